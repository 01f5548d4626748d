//===- LowerToInstructions.cpp - Core bodies to tessel instructions -------===//
//
// Inside each core, the copies between DRAM and SRAM become DMA transfers and
// the linalg ops on SRAM buffers become the instructions the MAC array and
// vector unit execute, in the order the ISA's numerics are defined for.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWERTOINSTRUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

Attribute sramSpace(MLIRContext *ctx) {
  return MemorySpaceAttr::get(ctx, MemorySpace::sram);
}

/// A static SRAM buffer for an intermediate value of an elementwise body.
Value allocateTemporary(OpBuilder &b, Location loc, MemRefType like,
                        Type elementType) {
  auto type = MemRefType::get(like.getShape(), elementType,
                              MemRefLayoutAttrInterface(),
                              sramSpace(b.getContext()));
  return memref::AllocOp::create(b, loc, type);
}

/// A view of `buffer` indexed by the op's loops through `map` (a projected
/// permutation, possibly dropping loops): dropped loops get stride 0, so the
/// vector unit reads a broadcast without materializing it.
FailureOr<Value> getLoopView(OpBuilder &b, Location loc, Value buffer,
                             AffineMap map, ArrayRef<int64_t> loopSizes) {
  auto type = cast<MemRefType>(buffer.getType());
  if (map.isIdentity())
    return buffer;
  if (!map.isProjectedPermutation())
    return failure();
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> viewStrides(loopSizes.size(), 0);
  for (auto [dim, expr] : llvm::enumerate(map.getResults()))
    viewStrides[cast<AffineDimExpr>(expr).getPosition()] = strides[dim];
  auto layout = StridedLayoutAttr::get(b.getContext(), offset, viewStrides);
  auto viewType = MemRefType::get(loopSizes, type.getElementType(), layout,
                                  type.getMemorySpace());
  SmallVector<OpFoldResult> sizes, stridesOfr;
  for (int64_t size : loopSizes)
    sizes.push_back(b.getIndexAttr(size));
  for (int64_t stride : viewStrides)
    stridesOfr.push_back(b.getIndexAttr(stride));
  return memref::ReinterpretCastOp::create(b, loc, viewType, buffer,
                                           b.getIndexAttr(offset), sizes,
                                           stridesOfr)
      .getResult();
}

struct Lowering {
  IRRewriter &rewriter;
  ArchAttr arch;

  /// memref.copy between DRAM and SRAM: a DMA transfer, waited for at once
  /// (the schedule later moves the wait to the first use).
  LogicalResult lowerCopy(memref::CopyOp copy) {
    rewriter.setInsertionPoint(copy);
    auto dma = DmaOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget(), /*channel=*/nullptr);
    WaitOp::create(rewriter, copy.getLoc(), ValueRange{dma.getToken()});
    rewriter.eraseOp(copy);
    return success();
  }

  LogicalResult lowerFill(linalg::FillOp fill) {
    auto constant = fill.value().getDefiningOp<arith::ConstantOp>();
    auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
    if (!value)
      return fill.emitOpError("fills with a value that is not a float "
                              "constant; the vector unit fills immediates");
    rewriter.setInsertionPoint(fill);
    VectorFillOp::create(rewriter, fill.getLoc(),
                         rewriter.getF32FloatAttr(value.getValueAsDouble()),
                         fill.getOutputs()[0]);
    rewriter.eraseOp(fill);
    return success();
  }

  /// One MAC-array block per (n, k) block of the array's size, k ascending
  /// within each column block: the accumulation order of the ISA.
  LogicalResult lowerMatmul(linalg::MatmulOp matmul) {
    Value lhs = matmul.getInputs()[0], rhs = matmul.getInputs()[1],
          acc = matmul.getOutputs()[0];
    auto lhsType = cast<MemRefType>(lhs.getType());
    auto rhsType = cast<MemRefType>(rhs.getType());
    int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1),
            n = rhsType.getDimSize(1);
    bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
    int64_t rows = arch.getTileMacRows(), cols = arch.getTileMacCols();
    int64_t mBlock = weightStationary ? m : rows;
    int64_t kBlock = weightStationary ? rows : k;
    Location loc = matmul.getLoc();
    rewriter.setInsertionPoint(matmul);
    auto slice = [&](Value v, int64_t r0, int64_t rs, int64_t c0, int64_t cs) {
      return memref::SubViewOp::create(
          rewriter, loc, v,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(r0),
                                 rewriter.getIndexAttr(c0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rs),
                                 rewriter.getIndexAttr(cs)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    };
    for (int64_t m0 = 0; m0 < m; m0 += mBlock) {
      int64_t ms = std::min(mBlock, m - m0);
      for (int64_t n0 = 0; n0 < n; n0 += cols) {
        int64_t ns = std::min(cols, n - n0);
        for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
          int64_t ks = std::min(kBlock, k - k0);
          // One statement per view: argument evaluation order is
          // unspecified, and the IR must not depend on the compiler.
          Value lhsBlock = slice(lhs, m0, ms, k0, ks);
          Value rhsBlock = slice(rhs, k0, ks, n0, ns);
          Value accBlock = slice(acc, m0, ms, n0, ns);
          MatmulOp::create(rewriter, loc, lhsBlock, rhsBlock, accBlock);
        }
      }
    }
    rewriter.eraseOp(matmul);
    return success();
  }

  LogicalResult lowerTranspose(linalg::TransposeOp transpose) {
    rewriter.setInsertionPoint(transpose);
    auto permutation = AffineMap::getPermutationMap(
        transpose.getPermutation(), rewriter.getContext());
    // out[i] = in[perm(i)]: the input seen through the inverse permutation.
    Value view = memref::TransposeOp::create(
        rewriter, transpose.getLoc(), transpose.getInput(),
        AffineMapAttr::get(inversePermutation(permutation)));
    VectorUnaryOp::create(rewriter, transpose.getLoc(), VectorUnaryKind::copy,
                          view, transpose.getInit());
    rewriter.eraseOp(transpose);
    return success();
  }

  /// An elementwise linalg.generic: one vector instruction per body op, each
  /// into an SRAM temporary of the iteration shape (the last one into the
  /// output). Broadcast operands are read through zero-stride views.
  LogicalResult lowerElementwise(linalg::GenericOp generic) {
    if (generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
        !generic.getIndexingMapsArray().back().isIdentity())
      return generic.emitOpError("is not an elementwise op with one identity-"
                                 "indexed output; no vector lowering yet");
    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    Value output = generic.getDpsInits()[0];
    auto outType = cast<MemRefType>(output.getType());
    ArrayRef<int64_t> shape = outType.getShape();
    Block &body = generic.getRegion().front();

    DenseMap<Value, Value> buffers; // scalar of the body -> SRAM view
    for (OpOperand *input : generic.getDpsInputOperands()) {
      FailureOr<Value> view =
          getLoopView(rewriter, loc, input->get(),
                      generic.getMatchingIndexingMap(input), shape);
      if (failed(view))
        return generic.emitOpError("reads an operand through a map that is "
                                   "not a projected permutation");
      buffers[body.getArgument(input->getOperandNumber())] = *view;
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    SmallVector<Value> temporaries;
    auto bufferFor = [&](Value scalar) -> FailureOr<Value> {
      if (Value buffer = buffers.lookup(scalar))
        return buffer;
      // A constant (defined in or captured by the body): a filled buffer.
      auto constant = scalar.getDefiningOp<arith::ConstantOp>();
      auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
      if (!value)
        return failure();
      Value buffer = allocateTemporary(rewriter, loc, outType, scalar.getType());
      VectorFillOp::create(rewriter, loc,
                           rewriter.getF32FloatAttr(value.getValueAsDouble()),
                           buffer);
      temporaries.push_back(buffer);
      buffers[scalar] = buffer;
      return buffer;
    };
    for (Operation &op : body.without_terminator()) {
      if (isa<arith::ConstantOp>(op))
        continue;
      if (op.getNumResults() != 1)
        return op.emitOpError("has no vector-unit lowering");
      Value result = op.getResult(0);
      bool isLast = yield.getOperand(0) == result &&
                    llvm::count(yield.getOperands(), result) == 1 &&
                    result.hasOneUse();
      // A comparison's i1 result is kept as 1.0 / 0.0 in the compared type.
      Type storage = isa<arith::CmpFOp>(op) ? op.getOperand(0).getType()
                                            : result.getType();
      Value target =
          isLast ? output : allocateTemporary(rewriter, loc, outType, storage);
      if (!isLast)
        temporaries.push_back(target);
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        FailureOr<Value> buffer = bufferFor(operand);
        if (failed(buffer))
          return op.emitOpError("uses a value the vector unit cannot read "
                                "(only the op's operands and float constants)");
        operands.push_back(*buffer);
      }
      if (failed(emitVectorOp(op, operands, target)))
        return failure();
      buffers[result] = target;
    }
    Value yielded = yield.getOperand(0);
    if (buffers.lookup(yielded) != output) {
      FailureOr<Value> buffer = bufferFor(yielded);
      if (failed(buffer))
        return generic.emitOpError("yields a value it cannot produce");
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::copy, *buffer,
                            output);
    }
    rewriter.setInsertionPointAfter(generic);
    for (Value temporary : temporaries)
      memref::DeallocOp::create(rewriter, loc, temporary);
    rewriter.eraseOp(generic);
    return success();
  }

  LogicalResult emitVectorOp(Operation &op, ArrayRef<Value> in, Value out) {
    Location loc = op.getLoc();
    auto binary = [&](VectorBinaryKind kind) {
      VectorBinaryOp::create(rewriter, loc, kind, in[0], in[1], out);
      return success();
    };
    auto unary = [&](VectorUnaryKind kind) {
      VectorUnaryOp::create(rewriter, loc, kind, in[0], out);
      return success();
    };
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](arith::AddFOp) { return binary(VectorBinaryKind::add); })
        .Case([&](arith::SubFOp) { return binary(VectorBinaryKind::sub); })
        .Case([&](arith::MulFOp) { return binary(VectorBinaryKind::mul); })
        .Case([&](arith::DivFOp) { return binary(VectorBinaryKind::div); })
        .Case([&](arith::MaximumFOp) { return binary(VectorBinaryKind::max); })
        .Case([&](arith::MinimumFOp) { return binary(VectorBinaryKind::min); })
        .Case([&](arith::NegFOp) { return unary(VectorUnaryKind::neg); })
        .Case([&](math::AbsFOp) { return unary(VectorUnaryKind::abs); })
        .Case([&](math::ExpOp) { return unary(VectorUnaryKind::exp); })
        .Case([&](math::LogOp) { return unary(VectorUnaryKind::log); })
        .Case([&](math::TanhOp) { return unary(VectorUnaryKind::tanh); })
        .Case([&](math::ErfOp) { return unary(VectorUnaryKind::erf); })
        .Case([&](math::SqrtOp) { return unary(VectorUnaryKind::sqrt); })
        .Case([&](math::RsqrtOp) { return unary(VectorUnaryKind::rsqrt); })
        .Case([&](arith::SelectOp) {
          VectorSelectOp::create(rewriter, loc, in[0], in[1], in[2], out);
          return success();
        })
        .Case([&](arith::CmpFOp cmp) { return emitCompare(cmp, in, out); })
        .Default([&](Operation *other) {
          return other->emitOpError("has no vector-unit lowering");
        });
  }

  /// Ordered predicates map onto the ISA's (false on NaN). An unordered one
  /// is the negation of the opposite ordered one: ugt(a, b) = !ole(a, b),
  /// computed as 1 - ole(a, b).
  LogicalResult emitCompare(arith::CmpFOp cmp, ArrayRef<Value> in, Value out) {
    using P = arith::CmpFPredicate;
    std::optional<ComparePredicate> ordered, negated;
    switch (cmp.getPredicate()) {
    case P::OLT: ordered = ComparePredicate::lt; break;
    case P::OLE: ordered = ComparePredicate::le; break;
    case P::OGT: ordered = ComparePredicate::gt; break;
    case P::OGE: ordered = ComparePredicate::ge; break;
    case P::OEQ: ordered = ComparePredicate::eq; break;
    case P::UNE: ordered = ComparePredicate::ne; break;
    case P::UGT: negated = ComparePredicate::le; break;
    case P::UGE: negated = ComparePredicate::lt; break;
    case P::ULT: negated = ComparePredicate::ge; break;
    case P::ULE: negated = ComparePredicate::gt; break;
    default:
      return cmp.emitOpError("has a predicate the vector unit lacks");
    }
    Location loc = cmp.getLoc();
    VectorCompareOp::create(rewriter, loc, ordered ? *ordered : *negated, in[0],
                            in[1], out);
    if (negated)
      VectorBinaryImmOp::create(rewriter, loc, VectorBinaryKind::sub, out,
                                llvm::APFloat(1.0f), out, /*imm_lhs=*/true);
    return success();
  }
};

struct LowerToInstructions
    : impl::TesselLowerToInstructionsBase<LowerToInstructions> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation().walk([&](CoreOp core) {
      Lowering lowering{rewriter, lookupArch(core)};
      // The core's own ops only: lowering an op erases its body.
      SmallVector<Operation *> ops = llvm::map_to_vector(
          core.getBody().front(), [](Operation &op) { return &op; });
      for (Operation *op : ops) {
        LogicalResult lowered =
            llvm::TypeSwitch<Operation *, LogicalResult>(op)
                .Case([&](memref::CopyOp o) { return lowering.lowerCopy(o); })
                .Case([&](linalg::FillOp o) { return lowering.lowerFill(o); })
                .Case([&](linalg::MatmulOp o) {
                  return lowering.lowerMatmul(o);
                })
                .Case([&](linalg::TransposeOp o) {
                  return lowering.lowerTranspose(o);
                })
                .Case([&](linalg::GenericOp o) {
                  return lowering.lowerElementwise(o);
                })
                .Case([&](linalg::LinalgOp o) {
                  return o.emitOpError("has no lowering to tessel "
                                       "instructions yet");
                })
                .Default([](Operation *) { return success(); });
        if (failed(lowered))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
