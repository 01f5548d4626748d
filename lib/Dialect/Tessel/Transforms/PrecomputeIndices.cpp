//===- PrecomputeIndices.cpp - Lookups at input-free indices as tables ----===//
//
// torch-mlir writes flips, reflection padding, nearest and bilinear
// interpolation and transposed convolutions as a linalg.generic that reads a
// tensor with tensor.extract at indices it computes from its loop indices:
// `15 - j`, `|7 - |i - 1||`, `floor(i / 2.0)`, wrapped by `select`s where an
// index is negative. None of it depends on an input, but the chip computes
// in floating point and on data, not on indices. This pass evaluates each
// such lookup's indices at every point of the op, once, with the body ops'
// own folders (as tessel-fold-constant-tensors evaluates whole ops), and
// gives the op a constant operand holding the element each point reads,
// as an offset into the tensor seen flat. The lookup is then a gather at
// indices that are an operand, which the DMA engine runs.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/FoldOnConstants.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/InterleavedRange.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPRECOMPUTEINDICES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Ops with more points than this stay as they are: the table holds an
/// offset per point, and evaluating it folds every index op per point.
constexpr int64_t kMaxPoints = int64_t(1) << 20;

/// What of a generic's body depends on no input: its loop indices, the
/// elements of its constant operands, values captured from outside that are
/// constants, and what pure ops compute from these alone.
struct InputFree {
  DenseMap<Value, DenseElementsAttr> constantOperands;
  DenseMap<Value, Attribute> captured;
  llvm::DenseSet<Value> values;

  InputFree(linalg::GenericOp generic) {
    Block &body = generic.getRegion().front();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      DenseElementsAttr attr;
      if (matchPattern(input->get(), m_Constant(&attr))) {
        Value arg = generic.getMatchingBlockArgument(input);
        constantOperands[arg] = attr;
        values.insert(arg);
      }
    }
    for (Operation &op : body.without_terminator()) {
      bool readsInput = isa<tensor::ExtractOp>(op) &&
                        !isCapturedConstant(op.getOperand(0), body);
      if (op.getNumResults() == 0 || op.getNumRegions() != 0 ||
          !isPure(&op) || readsInput)
        continue;
      if (llvm::all_of(op.getOperands(),
                       [&](Value v) { return isKnown(v, body); }))
        values.insert(op.result_begin(), op.result_end());
    }
  }

  bool isCapturedConstant(Value value, Block &body) {
    if (value.getParentBlock() == &body)
      return false;
    if (captured.count(value))
      return true;
    Attribute attr;
    if (!matchPattern(value, m_Constant(&attr)))
      return false;
    captured[value] = attr;
    return true;
  }

  bool isKnown(Value value, Block &body) {
    return values.contains(value) || isCapturedConstant(value, body);
  }
};

/// A lookup this pass replaces: a tensor.extract of a tensor from outside
/// the op, at indices that depend on no input.
struct Lookup {
  tensor::ExtractOp extract;
  SmallVector<int64_t> offsets;
};

struct PrecomputeIndices
    : impl::TesselPrecomputeIndicesBase<PrecomputeIndices> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp g) { generics.push_back(g); });
    for (linalg::GenericOp generic : generics)
      if (failed(precompute(generic)))
        return signalPassFailure();
  }

  LogicalResult precompute(linalg::GenericOp generic) {
    if (!generic.hasPureTensorSemantics())
      return success();
    SmallVector<int64_t> bounds = generic.getStaticLoopRanges();
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      return success();
    int64_t points = computeProduct(bounds);
    if (points == 0 || points > kMaxPoints)
      return success();
    Block &body = generic.getRegion().front();
    InputFree known(generic);
    SmallVector<Lookup> lookups;
    body.walk([&](tensor::ExtractOp extract) {
      Value source = extract.getTensor();
      if (source.getParentBlock() == &body ||
          known.values.contains(extract.getResult()) ||
          extract.getIndices().empty() ||
          !cast<RankedTensorType>(source.getType()).hasStaticShape())
        return;
      if (llvm::all_of(extract.getIndices(),
                       [&](Value v) { return known.isKnown(v, body); }))
        lookups.push_back({extract, {}});
    });
    if (lookups.empty())
      return success();
    if (failed(evaluate(generic, bounds, known, lookups)))
      return failure();
    rewrite(generic, bounds, lookups);
    ++numLookupsPrecomputed;
    return success();
  }

  /// Fills each lookup's offsets: the flat position, in its tensor, of the
  /// element each point of the op reads.
  LogicalResult evaluate(linalg::GenericOp generic, ArrayRef<int64_t> bounds,
                         InputFree &known, MutableArrayRef<Lookup> lookups) {
    Block &body = generic.getRegion().front();
    Builder builder(generic.getContext());
    SmallVector<int64_t> loopStrides = computeStrides(bounds);
    DenseMap<Value, SmallVector<int64_t>> operandStrides;
    for (auto [arg, attr] : known.constantOperands)
      operandStrides[arg] = computeStrides(attr.getType().getShape());
    int64_t points = computeProduct(bounds);
    for (Lookup &lookup : lookups)
      lookup.offsets.reserve(points);
    DenseMap<Value, Attribute> values(known.captured.begin(),
                                      known.captured.end());
    for (int64_t flat = 0; flat < points; ++flat) {
      SmallVector<int64_t> point = delinearize(flat, loopStrides);
      for (auto [arg, attr] : known.constantOperands) {
        AffineMap map = generic.getMatchingIndexingMap(
            generic.getDpsInputOperand(cast<BlockArgument>(arg).getArgNumber()));
        values[arg] = attr.getValues<Attribute>()[linearize(
            map.compose(point), operandStrides[arg])];
      }
      for (Operation &op : body.without_terminator()) {
        if (op.getNumResults() == 0 || !known.values.contains(op.getResult(0)))
          continue;
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          values[index.getResult()] =
              builder.getIndexAttr(point[index.getDim()]);
          continue;
        }
        if (failed(foldOnConstants(&op, values)))
          return op.emitOpError("computes an index of a lookup but does not "
                                "fold on constants");
      }
      for (Lookup &lookup : lookups) {
        ArrayRef<int64_t> shape =
            cast<RankedTensorType>(lookup.extract.getTensor().getType())
                .getShape();
        int64_t offset = 0;
        for (auto [dim, index] : llvm::enumerate(lookup.extract.getIndices())) {
          auto attr = dyn_cast_or_null<IntegerAttr>(values.lookup(index));
          if (!attr)
            return lookup.extract.emitOpError()
                   << "index " << dim << " does not evaluate to an integer";
          int64_t value = attr.getValue().getSExtValue();
          if (value < 0 || value >= shape[dim])
            return lookup.extract.emitOpError()
                   << "reads index " << value << " of dimension " << dim
                   << " (size " << shape[dim] << ") at point ("
                   << llvm::interleaved(point) << ") of the op";
          offset = offset * shape[dim] + value;
        }
        lookup.offsets.push_back(offset);
      }
    }
    return success();
  }

  /// The op with one more constant operand per lookup, read at every point
  /// (an identity map), whose element is the flat offset the lookup reads
  /// in its tensor collapsed to one dimension.
  void rewrite(linalg::GenericOp generic, ArrayRef<int64_t> bounds,
               ArrayRef<Lookup> lookups) {
    IRRewriter rewriter(generic.getContext());
    rewriter.setInsertionPoint(generic);
    Location loc = generic.getLoc();
    Type i64 = rewriter.getI64Type();
    auto tableType = RankedTensorType::get(bounds, i64);
    SmallVector<Value> inputs(generic.getDpsInputs());
    SmallVector<AffineMap> maps;
    for (OpOperand *input : generic.getDpsInputOperands())
      maps.push_back(generic.getMatchingIndexingMap(input));
    AffineMap identity =
        rewriter.getMultiDimIdentityMap(generic.getNumLoops());
    SmallVector<Value> flatSources;
    for (const Lookup &lookup : lookups) {
      auto attr = DenseElementsAttr::get(tableType, ArrayRef(lookup.offsets));
      inputs.push_back(arith::ConstantOp::create(rewriter, loc, tableType,
                                                 cast<TypedAttr>(attr)));
      maps.push_back(identity);
      tensor::ExtractOp extract = lookup.extract;
      Value source = extract.getTensor();
      auto type = cast<RankedTensorType>(source.getType());
      if (type.getRank() > 1) {
        ReassociationIndices all =
            llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
        source = tensor::CollapseShapeOp::create(rewriter, loc, source,
                                                 ArrayRef{all});
      }
      flatSources.push_back(source);
    }
    for (OpOperand &output : generic.getDpsInitsMutable())
      maps.push_back(generic.getMatchingIndexingMap(&output));
    auto replacement = linalg::GenericOp::create(
        rewriter, loc, generic.getResultTypes(), inputs, generic.getDpsInits(),
        maps, generic.getIteratorTypesArray());
    replacement->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(generic.getRegion(), replacement.getRegion(),
                                replacement.getRegion().begin());
    Block &body = replacement.getRegion().front();
    unsigned first = generic.getNumDpsInputs();
    for (auto [k, lookup] : llvm::enumerate(lookups)) {
      tensor::ExtractOp extract = lookup.extract;
      BlockArgument offset = body.insertArgument(first + k, i64, loc);
      rewriter.setInsertionPoint(extract);
      Value index = arith::IndexCastOp::create(
          rewriter, extract.getLoc(), rewriter.getIndexType(), offset);
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, flatSources[k],
                                                     ValueRange{index});
    }
    rewriter.replaceOp(generic, replacement.getResults());
  }
};

} // namespace
} // namespace mlir::tessel
