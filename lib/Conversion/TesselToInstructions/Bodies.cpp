//===- Bodies.cpp - Elementwise and reduction bodies on the vector unit ---===//
//
// A linalg.generic's body (or a linalg.reduce's) becomes one vector op per
// body op, over strided views of the operands, with temporaries in SRAM for
// its intermediate values; indexed loads of a table in DRAM become gathers.
// GELU's five ops (PyTorch's erf form) become the one `gelu` that chains
// them; an unordered comparison only selects read is computed as its
// negation, the selects' choices swapped; a constant operand is one
// element, read through zero strides.
//
//===----------------------------------------------------------------------===//

#include "InstructionLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <functional>

namespace mlir::tessel::instructions {

LogicalResult InstructionLowering::emitGather(memref::LoadOp load,
                                              ArrayRef<int64_t> shape,
                                              const BodyBuffers &buffers,
                                              Value target) {
  Value table = load.getMemRef();
  auto type = cast<MemRefType>(table.getType());
  if (getMemorySpace(type) != MemorySpace::dram)
    return load.emitOpError("reads an SRAM buffer element by element; only "
                            "a DRAM table is read by index (dma_gather)");
  auto [strides, offset] = getStridesAndOffset(type);
  SmallVector<int64_t> viewStrides(shape.size(), 0);
  Value indices;
  int64_t indexStride = 0, rows = 0;
  bool wrap = false;
  for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
    if (auto cast = index.getDefiningOp<arith::IndexCastOp>()) {
      Value source = cast.getIn();
      if (Value wrapped = getWrappedIndex(source, type.getDimSize(dim))) {
        source = wrapped;
        wrap = true;
      }
      Value view = buffers.of.lookup(source);
      if (indices || !view)
        return load.emitOpError()
               << "reads the table at indices computed from the data in a "
                  "way a gather does not: one dimension may be picked by "
                  "an integer the vector unit computes from the op's "
                  "operands (an embedding, index_select or gather), the "
                  "others must follow the loops";
      indices = view;
      indexStride = strides[dim];
      rows = type.getDimSize(dim);
      continue;
    }
    std::optional<LoopLinear> linear = getLoopLinear(index, shape.size());
    if (!linear)
      return load.emitOpError()
             << "reads the table at an index (dimension " << dim
             << ") that is not an affine function of the loops nor an "
                "integer operand of the op";
    offset += linear->constant * strides[dim];
    for (auto [loop, coefficient] : llvm::enumerate(linear->coefficients))
      viewStrides[loop] += coefficient * strides[dim];
  }
  if (!indices)
    return load.emitOpError("reads the table at indices that do not depend "
                            "on the data; such lookups are operands "
                            "(tessel-extracts-as-operands)");
  Location loc = load.getLoc();
  Value tableView =
      stridedView(rewriter, loc, table, offset, shape, viewStrides);
  auto gather = DmaGatherOp::create(
      rewriter, loc, tableView, indices, target,
      rewriter.getI64IntegerAttr(rows),
      rewriter.getI64IntegerAttr(indexStride),
      wrap ? rewriter.getUnitAttr() : UnitAttr(), /*channel=*/nullptr);
  WaitOp::create(rewriter, loc, ValueRange{gather.getToken()});
  return success();
}

/// The vector unit's binary operation that `op` is, or none. Integers wrap
/// (two's complement), as arith's do; a division truncates, as divsi, and
/// the ISA defines x / 0 (-1), where divsi leaves it undefined.
static std::optional<VectorBinaryKind> getBinaryKind(Operation &op) {
  using Kind = std::optional<VectorBinaryKind>;
  return llvm::TypeSwitch<Operation *, Kind>(&op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return VectorBinaryKind::add; })
      .Case<arith::SubFOp, arith::SubIOp>([](auto) { return VectorBinaryKind::sub; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return VectorBinaryKind::mul; })
      .Case<arith::DivFOp, arith::DivSIOp>([](auto) { return VectorBinaryKind::div; })
      .Case<arith::MaximumFOp, arith::MaxSIOp>(
          [](auto) { return VectorBinaryKind::max; })
      .Case<arith::MinimumFOp, arith::MinSIOp>(
          [](auto) { return VectorBinaryKind::min; })
      .Default([](Operation *) -> Kind { return std::nullopt; });
}

/// Whether `value` is an arith.constant of f32 `expected`, bit for bit.
static bool isF32Constant(Value value, float expected) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  return attr && attr.getType().isF32() &&
         attr.getValue().bitwiseIsEqual(APFloat(expected));
}

/// Where `value` is computed by a commutative `OpTy` one of whose operands
/// `isKnown` accepts (a constant), its other operand; otherwise null.
template <typename OpTy>
static Value getOtherOperand(Value value, function_ref<bool(Value)> isKnown) {
  auto op = value.getDefiningOp<OpTy>();
  if (!op)
    return Value();
  if (isKnown(op.getRhs()))
    return op.getLhs();
  if (isKnown(op.getLhs()))
    return op.getRhs();
  return Value();
}

/// GELU in PyTorch's erf form as torch-mlir imports it, `x * ((erf(x /
/// sqrt(2)) + 1) * 0.5)` in f32 (either order of each commutative op),
/// computed by `root`, the last product: the value it is GELU of, with the
/// four other ops in `chain`, each used only by the next; none where `root`
/// is not such a product. The ISA's vector_unary gelu chains the same five
/// f32 operations (docs/isa.md), so the lowering runs them as that one
/// instruction (and tessel.mapper.graph counts one).
static std::optional<Value> matchGelu(Operation &root,
                                      SmallVectorImpl<Operation *> &chain) {
  auto product = dyn_cast<arith::MulFOp>(root);
  if (!product || !product.getType().isF32())
    return std::nullopt;
  auto isHalf = [](Value v) { return isF32Constant(v, 0.5f); };
  auto isOne = [](Value v) { return isF32Constant(v, 1.0f); };
  for (Value x : {product.getLhs(), product.getRhs()}) {
    Value cdf = x == product.getLhs() ? product.getRhs() : product.getLhs();
    Value onePlusErf = getOtherOperand<arith::MulFOp>(cdf, isHalf);
    if (!onePlusErf)
      continue;
    Value erfValue = getOtherOperand<arith::AddFOp>(onePlusErf, isOne);
    auto erf = erfValue ? erfValue.getDefiningOp<math::ErfOp>() : nullptr;
    auto scaled = erf ? erf.getOperand().getDefiningOp<arith::DivFOp>() : nullptr;
    if (!scaled || scaled.getLhs() != x ||
        !isF32Constant(scaled.getRhs(), llvm::numbers::sqrt2f))
      continue;
    SmallVector<Operation *> ops = {scaled, erf, onePlusErf.getDefiningOp(),
                                    cdf.getDefiningOp()};
    if (!llvm::all_of(ops, [](Operation *op) { return op->hasOneUse(); }))
      continue;
    chain.assign(ops.begin(), ops.end());
    return x;
  }
  return std::nullopt;
}

LogicalResult InstructionLowering::evaluateBody(linalg::LinalgOp op,
                                                ArrayRef<int64_t> shape,
                                                Operation *stop, Value direct,
                                                Value directTarget,
                                                BodyBuffers &buffers) {
  Location loc = op.getLoc();
  Block &body = op->getRegion(0).front();
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> view = getLoopView(
        rewriter, loc, input->get(), op.getMatchingIndexingMap(input), shape);
    if (failed(view))
      return op.emitOpError("reads an operand through a map that is not a "
                            "projected permutation");
    buffers.of[body.getArgument(input->getOperandNumber())] = *view;
  }
  auto temporary = [&](Type elementType) {
    Value buffer = allocateTemporary(rewriter, loc, shape, elementType);
    buffers.temporaries.push_back(buffer);
    return buffer;
  };
  auto bufferFor = [&](Value scalar) -> FailureOr<Value> {
    if (Value buffer = buffers.of.lookup(scalar))
      return buffer;
    std::optional<APFloat> value = getImmediate(scalar);
    if (!value)
      return failure();
    // One element, read through zero strides: a fill of the whole step
    // would be a pass through the SRAM port of its own.
    Value element = allocateTemporary(rewriter, loc, {1}, scalar.getType());
    buffers.temporaries.push_back(element);
    VectorFillOp::create(rewriter, loc,
                         rewriter.getF32FloatAttr(value->convertToDouble()),
                         element);
    Value buffer = stridedView(rewriter, loc, element, 0, shape,
                               SmallVector<int64_t>(shape.size(), 0));
    buffers.of[scalar] = buffer;
    return buffer;
  };
  // What computes only the indices of loads is an address: the gather
  // reads what it computes (and what nothing uses is not computed).
  llvm::SmallPtrSet<Operation *, 8> addresses;
  for (Operation &bodyOp : llvm::reverse(body.without_terminator())) {
    bool addressOnly = llvm::all_of(bodyOp.getUses(), [&](OpOperand &use) {
      auto load = dyn_cast<memref::LoadOp>(use.getOwner());
      return addresses.contains(use.getOwner()) ||
             (load && use.get() != load.getMemRef());
    });
    if (isPure(&bodyOp) && !isa<memref::LoadOp>(bodyOp) && addressOnly)
      addresses.insert(&bodyOp);
  }
  // Except the integers that pick a gather's rows, when computed from the
  // data (`embedding(ids + 1)`): the vector unit computes them.
  body.walk([&](memref::LoadOp load) {
    auto type = cast<MemRefType>(load.getMemRef().getType());
    for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
      auto cast = index.getDefiningOp<arith::IndexCastOp>();
      if (!cast)
        continue;
      Value source = cast.getIn();
      if (Value wrapped = getWrappedIndex(source, type.getDimSize(dim)))
        source = wrapped;
      SmallVector<Operation *> work;
      if (Operation *def = source.getDefiningOp())
        work.push_back(def);
      while (!work.empty()) {
        Operation *computed = work.pop_back_val();
        if (computed->getBlock() != &body || !addresses.erase(computed))
          continue;
        for (Value operand : computed->getOperands())
          if (Operation *def = operand.getDefiningOp())
            work.push_back(def);
      }
    }
  });
  // GELU's five ops as one instruction: the four before its last product
  // are not computed apart.
  llvm::SmallDenseMap<Operation *, Value> geluOf;
  llvm::SmallPtrSet<Operation *, 8> insideGelu;
  for (Operation &bodyOp : body.without_terminator()) {
    SmallVector<Operation *> chain;
    if (std::optional<Value> x = matchGelu(bodyOp, chain)) {
      geluOf[&bodyOp] = *x;
      insideGelu.insert(chain.begin(), chain.end());
    }
  }
  for (Operation &bodyOp : body.without_terminator()) {
    if (&bodyOp == stop)
      break;
    if (insideGelu.contains(&bodyOp))
      continue;
    if (Value x = geluOf.lookup(&bodyOp)) {
      FailureOr<Value> in = bufferFor(x);
      if (failed(in))
        return bodyOp.emitOpError("uses a value the vector unit cannot read");
      Value result = bodyOp.getResult(0);
      Value target =
          result == direct ? directTarget : temporary(result.getType());
      VectorUnaryOp::create(rewriter, bodyOp.getLoc(), VectorUnaryKind::gelu,
                            *in, target);
      buffers.of[result] = target;
      continue;
    }
    // Constants (and casts of them) become filled buffers where used.
    if (bodyOp.getNumResults() == 1 &&
        (getImmediate(bodyOp.getResult(0)) ||
         isa<arith::ConstantOp>(bodyOp)))
      continue;
    if (bodyOp.getNumResults() != 1)
      return bodyOp.emitOpError("has no vector-unit lowering");
    Value result = bodyOp.getResult(0);
    if (addresses.contains(&bodyOp))
      continue;
    // Rounding to even ahead of a conversion to an integer is the cast's
    // own rounding: the cast reads the value as it is.
    if (isa<math::RoundEvenOp>(bodyOp) &&
        llvm::all_of(bodyOp.getUsers(), llvm::IsaPred<arith::FPToSIOp>)) {
      FailureOr<Value> buffer = bufferFor(bodyOp.getOperand(0));
      if (failed(buffer))
        return bodyOp.emitOpError("rounds a value the vector unit cannot read");
      buffers.of[result] = *buffer;
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(bodyOp)) {
      Value target = result == direct ? directTarget
                                      : temporary(result.getType());
      if (failed(emitGather(load, shape, buffers, target)))
        return failure();
      buffers.of[result] = target;
      continue;
    }
    // A binary op of a value and a constant reads the constant as its
    // immediate: no fill, no temporary, one operand less through the SRAM
    // port. The immediate is the f32 a fill would have written, converted
    // to the element type the same way: the same values.
    if (std::optional<VectorBinaryKind> kind = getBinaryKind(bodyOp)) {
      std::optional<APFloat> lhs = getImmediate(bodyOp.getOperand(0));
      std::optional<APFloat> rhs = getImmediate(bodyOp.getOperand(1));
      FailureOr<Value> value = failure();
      if (lhs.has_value() != rhs.has_value())
        value = bufferFor(bodyOp.getOperand(lhs ? 1 : 0));
      if (succeeded(value)) {
        Value target = result == direct ? directTarget : temporary(result.getType());
        VectorBinaryImmOp::create(
            rewriter, bodyOp.getLoc(), *kind, *value,
            APFloat(static_cast<float>((lhs ? *lhs : *rhs).convertToDouble())),
            target, /*imm_lhs=*/lhs.has_value());
        buffers.of[result] = target;
        continue;
      }
    }
    SmallVector<Value> operands;
    for (Value operand : bodyOp.getOperands()) {
      FailureOr<Value> buffer = bufferFor(operand);
      if (failed(buffer)) {
        InFlightDiagnostic diag = bodyOp.emitOpError(
            "uses a value the vector unit cannot read (only the op's "
            "operands, values computed before it and constants)");
        explainInexactInteger(diag, operand);
        return diag;
      }
      operands.push_back(*buffer);
    }
    // A comparison's i1 result is kept as 1 / 0 in the compared type, a
    // logical and / or of two in the first's type; a select reads its
    // condition in its own type.
    auto castTo = [&](Value buffer, Type type) {
      if (getElementTypeOrSelf(buffer.getType()) == type)
        return buffer;
      Value converted = temporary(type);
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, buffer,
                            converted);
      return converted;
    };
    Type storage = result.getType();
    if (isa<arith::CmpFOp, arith::CmpIOp>(bodyOp))
      storage = bodyOp.getOperand(0).getType();
    if (isa<arith::AndIOp, arith::OrIOp>(bodyOp) && result.getType().isInteger(1)) {
      storage = getElementTypeOrSelf(operands[0].getType());
      operands[1] = castTo(operands[1], storage);
    }
    if (isa<arith::SelectOp>(bodyOp))
      operands[0] = castTo(operands[0], storage);
    Value target = result == direct ? directTarget : temporary(storage);
    if (failed(emitVectorOp(bodyOp, operands, target, temporary)))
      return failure();
    buffers.of[result] = target;
  }
  return success();
}

void InstructionLowering::freeTemporaries(Operation *op, BodyBuffers &buffers) {
  rewriter.setInsertionPointAfter(op);
  for (Value temporary : buffers.temporaries)
    memref::DeallocOp::create(rewriter, op->getLoc(), temporary);
}

LogicalResult InstructionLowering::lowerElementwise(linalg::GenericOp generic) {
  if (generic.getNumReductionLoops() != 0)
    return lowerReduction(generic);
  if (generic.getNumDpsInits() != 1 ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return generic.emitOpError("is not an elementwise op with one identity-"
                               "indexed output; no vector lowering yet");
  rewriter.setInsertionPoint(generic);
  Value output = generic.getDpsInits()[0];
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  Value yielded = yield.getOperand(0);
  // The op computing the yielded value writes the output directly unless
  // the value is also used inside the body (or is an operand or constant).
  Value direct = yielded.hasOneUse() && yielded.getDefiningOp() &&
                         !isa<arith::ConstantOp>(yielded.getDefiningOp())
                     ? yielded
                     : Value();
  BodyBuffers buffers;
  ArrayRef<int64_t> shape = cast<MemRefType>(output.getType()).getShape();
  if (failed(evaluateBody(generic, shape, /*stop=*/nullptr, direct, output,
                          buffers)))
    return failure();
  Value result = buffers.of.lookup(yielded);
  std::optional<APFloat> value = getImmediate(yielded);
  if (!result && value)
    VectorFillOp::create(rewriter, generic.getLoc(),
                         rewriter.getF32FloatAttr(value->convertToDouble()),
                         output);
  else if (!result)
    return generic.emitOpError("yields a value it cannot produce");
  else if (result != output)
    VectorUnaryOp::create(rewriter, generic.getLoc(), VectorUnaryKind::copy,
                          result, output);
  freeTemporaries(generic, buffers);
  rewriter.eraseOp(generic);
  return success();
}

LogicalResult InstructionLowering::lowerReduction(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return op.emitOpError("reduces into more than one output");
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  BlockArgument acc = body.getArguments().back();
  std::optional<ReductionKind> kind;
  // A minimum is the negated maximum of the negated elements (for
  // integers, of their complements -1 - x, which never overflow).
  bool minimum =
      combine && isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(combine);
  if (combine && isa<arith::AddFOp, arith::AddIOp>(combine))
    kind = ReductionKind::add;
  else if (minimum || (combine && isa<arith::MaximumFOp, arith::MaxNumFOp,
                                      arith::MaxSIOp>(combine)))
    kind = ReductionKind::max;
  if (!kind || !llvm::is_contained(combine->getOperands(), acc))
    return op.emitOpError("reduces with something other than an addition, "
                          "maximum or minimum of the accumulator");
  Value element = combine->getOperand(0) == acc ? combine->getOperand(1)
                                                 : combine->getOperand(0);
  // The output holds the parallel loops, in order.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<unsigned> parallel;
  for (auto [loop, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(loop);
  // Results that are the constant 0 are kept unit dimensions.
  SmallVector<unsigned> written;
  bool inOrder = true;
  for (AffineExpr expr : outMap.getResults()) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      inOrder = inOrder && constant.getValue() == 0;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(expr);
    inOrder = inOrder && dim;
    if (dim)
      written.push_back(dim.getPosition());
  }
  inOrder = inOrder && written == parallel;
  if (!inOrder)
    return op.emitOpError("writes its output in another order than its "
                          "parallel loops");

  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> shape = op.getStaticLoopRanges();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return op.emitOpError("has a loop of dynamic extent");
  BodyBuffers buffers;
  if (failed(evaluateBody(op, shape, combine, /*direct=*/Value(), Value(),
                          buffers)))
    return failure();
  Value reduced = buffers.of.lookup(element);
  if (!reduced)
    return op.emitOpError("reduces a value it cannot produce");
  Type elementType = element.getType();
  auto negate = [&](Value from) {
    Value negated = allocateTemporary(rewriter, loc, shape, elementType);
    buffers.temporaries.push_back(negated);
    if (isa<IntegerType>(elementType))
      VectorBinaryImmOp::create(rewriter, loc, VectorBinaryKind::sub, from,
                                llvm::APFloat(-1.0f), negated,
                                /*imm_lhs=*/true);
    else
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::neg, from,
                            negated);
    return negated;
  };
  if (minimum)
    reduced = negate(reduced);
  for (int64_t loop = iterators.size() - 1; loop >= 0; --loop) {
    if (iterators[loop] != utils::IteratorType::reduction)
      continue;
    shape.erase(shape.begin() + loop);
    Value next = allocateTemporary(rewriter, loc, shape, elementType);
    buffers.temporaries.push_back(next);
    VectorReduceOp::create(rewriter, loc, *kind, reduced, next, loop);
    reduced = next;
  }
  if (minimum)
    reduced = negate(reduced);
  // Kept unit dimensions: the output seen without them.
  Value output = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(output.getType());
  if (outType.getShape() != ArrayRef<int64_t>(shape)) {
    auto [strides, offset] = getStridesAndOffset(outType);
    SmallVector<int64_t> kept;
    for (auto [dim, expr] : llvm::enumerate(outMap.getResults()))
      if (isa<AffineDimExpr>(expr))
        kept.push_back(strides[dim]);
    output = stridedView(rewriter, loc, output, offset, shape, kept);
  }
  VectorBinaryOp::create(rewriter, loc,
                         minimum                       ? VectorBinaryKind::min
                         : *kind == ReductionKind::add ? VectorBinaryKind::add
                                                       : VectorBinaryKind::max,
                         output, reduced, output);
  freeTemporaries(op, buffers);
  rewriter.eraseOp(op);
  return success();
}

/// The vector unit's comparison that is the negation of an unordered
/// predicate (true for a NaN, where the unit's `lt`, `le`, `gt` and `ge`
/// are false): `ugt` is `not le`, and so on; none for the others.
static std::optional<ComparePredicate>
getNegatedComparison(arith::CmpFPredicate predicate) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::UGT: return ComparePredicate::le;
  case P::UGE: return ComparePredicate::lt;
  case P::ULT: return ComparePredicate::ge;
  case P::ULE: return ComparePredicate::gt;
  default: return std::nullopt;
  }
}

/// Whether `cmp` is lowered as its negation (getNegatedComparison) with no
/// `1 - x` after it: every use is a select's condition, which then swaps
/// its choices. A ReLU as torch-mlir imports it, `select(x ugt 0, x, 0)`,
/// is `select(x le 0, 0, x)`: one pass through SRAM fewer, the same result
/// for every x.
static bool comparesNegated(arith::CmpFOp cmp) {
  if (!getNegatedComparison(cmp.getPredicate()))
    return false;
  return llvm::all_of(cmp->getUses(), [](OpOperand &use) {
    return isa<arith::SelectOp>(use.getOwner()) && use.getOperandNumber() == 0;
  });
}

LogicalResult InstructionLowering::emitVectorOp(
    Operation &op, ArrayRef<Value> in, Value out,
    function_ref<Value(Type)> temporary) {
  Location loc = op.getLoc();
  auto binary = [&](VectorBinaryKind kind) {
    VectorBinaryOp::create(rewriter, loc, kind, in[0], in[1], out);
    return success();
  };
  auto unary = [&](VectorUnaryKind kind) {
    VectorUnaryOp::create(rewriter, loc, kind, in[0], out);
    return success();
  };
  if (std::optional<VectorBinaryKind> kind = getBinaryKind(op))
    return binary(*kind);
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](arith::NegFOp) { return unary(VectorUnaryKind::neg); })
      .Case([&](math::AbsFOp) { return unary(VectorUnaryKind::abs); })
      .Case([&](math::ExpOp) { return unary(VectorUnaryKind::exp); })
      .Case([&](math::LogOp) { return unary(VectorUnaryKind::log); })
      .Case([&](math::TanhOp) { return unary(VectorUnaryKind::tanh); })
      .Case([&](math::ErfOp) { return unary(VectorUnaryKind::erf); })
      .Case([&](math::SinOp) { return unary(VectorUnaryKind::sin); })
      .Case([&](math::CosOp) { return unary(VectorUnaryKind::cos); })
      .Case([&](math::FloorOp) { return unary(VectorUnaryKind::floor); })
      .Case([&](math::SqrtOp) { return unary(VectorUnaryKind::sqrt); })
      .Case([&](math::RsqrtOp) { return unary(VectorUnaryKind::rsqrt); })
      .Case([&](arith::FPToSIOp convert) {
        return emitTruncation(convert, in[0], out, temporary);
      })
      .Case([&](arith::RemSIOp remainder) {
        return emitRemainder(remainder, in[0], in[1], out, temporary);
      })
      // Booleans held as 1 / 0: and is the minimum, or the maximum.
      .Case<arith::AndIOp, arith::OrIOp>([&](Operation *logical)
                                             -> LogicalResult {
        if (!logical->getResult(0).getType().isInteger(1))
          return logical->emitOpError(
              "is a bitwise operation; the vector unit has none (only the "
              "logical and / or of comparisons lowers)");
        return binary(isa<arith::AndIOp>(logical) ? VectorBinaryKind::min
                                                  : VectorBinaryKind::max);
      })
      // Sign extension, truncation to the low bits, conversion to a float
      // rounded to nearest even, and a float widened (exactly) or narrowed
      // (to nearest even) are what `cast` does.
      .Case<arith::ExtSIOp, arith::TruncIOp, arith::SIToFPOp, arith::ExtFOp>(
          [&](Operation *) { return unary(VectorUnaryKind::cast); })
      .Case([&](arith::TruncFOp truncate) -> LogicalResult {
        if (truncate.getRoundingmodeAttr() &&
            truncate.getRoundingmode() != arith::RoundingMode::to_nearest_even)
          return truncate.emitOpError(
              "rounds other than to nearest even; the vector unit's cast "
              "rounds to nearest even only");
        return unary(VectorUnaryKind::cast);
      })
      // A boolean (a comparison's 1 / 0) as a number.
      .Case<arith::ExtUIOp, arith::UIToFPOp>([&](Operation *convert)
                                                 -> LogicalResult {
        if (!convert->getOperand(0).getType().isInteger(1))
          return convert->emitOpError(
              "extends an unsigned integer; the vector unit's integers "
              "are signed (only booleans extend as unsigned)");
        return unary(VectorUnaryKind::cast);
      })
      .Case([&](arith::SelectOp select) {
        // On a condition compared in its ordered negation, the choices
        // swap (emitCompare).
        auto compare = select.getCondition().getDefiningOp<arith::CmpFOp>();
        bool swapped = compare && comparesNegated(compare);
        VectorSelectOp::create(rewriter, loc, in[0], in[swapped ? 2 : 1],
                               in[swapped ? 1 : 2], out);
        return success();
      })
      .Case([&](arith::CmpFOp cmp) { return emitCompare(cmp, in, out); })
      .Case([&](arith::CmpIOp cmp) { return emitIntegerCompare(cmp, in, out); })
      .Default([&](Operation *other) {
        return other->emitOpError("has no vector-unit lowering");
      });
}

LogicalResult InstructionLowering::emitTruncation(
    arith::FPToSIOp convert, Value in, Value out,
    function_ref<Value(Type)> temporary) {
  Location loc = convert.getLoc();
  if (!isIntegral(convert.getIn())) {
    Type floatType = convert.getIn().getType();
    Value magnitude = temporary(floatType), negated = temporary(floatType),
          zero = temporary(floatType), negative = temporary(floatType);
    VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::abs, in, magnitude);
    VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::floor, magnitude,
                          magnitude);
    VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::neg, magnitude,
                          negated);
    VectorFillOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f), zero);
    VectorCompareOp::create(rewriter, loc, ComparePredicate::lt, in, zero,
                            negative);
    VectorSelectOp::create(rewriter, loc, negative, negated, magnitude,
                           magnitude);
    in = magnitude;
  }
  VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, in, out);
  return success();
}

LogicalResult InstructionLowering::emitRemainder(
    arith::RemSIOp remainder, Value x, Value y, Value out,
    function_ref<Value(Type)> temporary) {
  Location loc = remainder.getLoc();
  Value quotient = temporary(remainder.getType());
  VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::div, x, y, quotient);
  VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::mul, quotient, y,
                         quotient);
  VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::sub, x, quotient,
                         out);
  return success();
}

LogicalResult InstructionLowering::emitIntegerCompare(arith::CmpIOp cmp,
                                                      ArrayRef<Value> in,
                                                      Value out) {
  using P = arith::CmpIPredicate;
  std::optional<ComparePredicate> predicate;
  switch (cmp.getPredicate()) {
  case P::slt: predicate = ComparePredicate::lt; break;
  case P::sle: predicate = ComparePredicate::le; break;
  case P::sgt: predicate = ComparePredicate::gt; break;
  case P::sge: predicate = ComparePredicate::ge; break;
  case P::eq: predicate = ComparePredicate::eq; break;
  case P::ne: predicate = ComparePredicate::ne; break;
  default:
    return cmp.emitOpError("compares as unsigned integers; the vector "
                           "unit compares signed ones");
  }
  VectorCompareOp::create(rewriter, cmp.getLoc(), *predicate, in[0], in[1],
                          out);
  return success();
}

LogicalResult InstructionLowering::emitCompare(arith::CmpFOp cmp,
                                               ArrayRef<Value> in, Value out) {
  using P = arith::CmpFPredicate;
  std::optional<ComparePredicate> ordered,
      negated = getNegatedComparison(cmp.getPredicate());
  switch (cmp.getPredicate()) {
  case P::OLT: ordered = ComparePredicate::lt; break;
  case P::OLE: ordered = ComparePredicate::le; break;
  case P::OGT: ordered = ComparePredicate::gt; break;
  case P::OGE: ordered = ComparePredicate::ge; break;
  case P::OEQ: ordered = ComparePredicate::eq; break;
  case P::UNE: ordered = ComparePredicate::ne; break;
  default:
    if (!negated)
      return cmp.emitOpError("has a predicate the vector unit lacks");
  }
  Location loc = cmp.getLoc();
  VectorCompareOp::create(rewriter, loc, ordered ? *ordered : *negated, in[0],
                          in[1], out);
  // The selects that read only the negation swap their choices instead.
  if (negated && !comparesNegated(cmp))
    VectorBinaryImmOp::create(rewriter, loc, VectorBinaryKind::sub, out,
                              llvm::APFloat(1.0f), out, /*imm_lhs=*/true);
  return success();
}

namespace {

/// linalg.generic -> vector ops of its body (its reductions included).
using GenericToVector =
    LowerWith<linalg::GenericOp, &InstructionLowering::lowerElementwise>;

/// linalg.reduce -> vector reductions.
using ReduceToVector =
    LowerWith<linalg::ReduceOp, &InstructionLowering::lowerReduction>;

} // namespace

void populateBodyPatterns(RewritePatternSet &patterns,
                          InstructionLowering &lowering) {
  patterns.add<GenericToVector, ReduceToVector>(patterns.getContext(),
                                                lowering);
}

} // namespace mlir::tessel::instructions
