//===- FoldBiasAdds.cpp - A bias as the accumulator's initial value -------===//
//
// `nn.Linear` imports as a matmul from a zero fill followed by an
// elementwise add of the bias broadcast over the rows. Lowered as it is, the
// add is an op of its own: the matmul stores its whole result in DRAM and
// the add reads it back, with the bias, and stores it again. Started from
// the broadcast bias instead of from zero, the matmul computes the sum
// itself, and its accumulator, set in SRAM from the bias slice it needs
// (tessel-promote-to-sram), never makes the extra round trip.
//
// The sum is taken in another order: the bias first, then the products,
// where the add took the products' sum first. Both are rounded sums of the
// same terms; they differ in the last bits.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDBIASADDS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `op` sums its products into its output, so that starting it from
/// a value adds that value to its result: a matmul or a convolution (a
/// max pooling or a generic reduction need not add).
bool accumulatesSums(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp,
             linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp>(op);
}

/// The op computing `value` that starts from a zero fill and sums into it,
/// where nothing else reads `value`; else null.
linalg::LinalgOp getZeroStartedSum(Value value) {
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || !accumulatesSums(op) || !op.hasPureTensorSemantics() ||
      op->getNumResults() != 1 || !value.hasOneUse())
    return {};
  auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return op;
}

/// The dimensions of the iteration space `map` does not read: those a
/// broadcast of its operand adds. Fails unless `map` reads the others in
/// order, as `linalg.broadcast` does, and leaves at least one out and one
/// in (a scalar's add is an elementwise op like any other).
FailureOr<SmallVector<int64_t>> getBroadcastDims(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      map.getNumResults() >= map.getNumDims() || map.getNumResults() == 0)
    return failure();
  SmallVector<int64_t> added;
  int64_t next = 0;
  for (AffineExpr result : map.getResults()) {
    int64_t dim = cast<AffineDimExpr>(result).getPosition();
    if (dim < next)
      return failure();
    for (; next < dim; ++next)
      added.push_back(next);
    next = dim + 1;
  }
  for (; next < static_cast<int64_t>(map.getNumDims()); ++next)
    added.push_back(next);
  return added;
}

/// An elementwise add of a sum started from zero and a tensor broadcast
/// over it: the sum, the bias and the dimensions the bias is broadcast
/// along.
struct BiasAdd {
  linalg::LinalgOp sum;
  OpOperand *bias;
  SmallVector<int64_t> broadcastDims;
};

FailureOr<BiasAdd> matchBiasAdd(linalg::GenericOp add) {
  if (!add.hasPureTensorSemantics() || add.getNumDpsInputs() != 2 ||
      add.getNumDpsInits() != 1 ||
      add.getNumParallelLoops() != add.getNumLoops() ||
      !add.getIndexingMapMatchingResult(add->getResult(0)).isIdentity())
    return failure();
  // The body: one addf of the two inputs, yielded.
  Block &body = add.getRegion().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return failure();
  auto addf = dyn_cast<arith::AddFOp>(body.front());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!addf || yield.getValues() != ValueRange{addf.getResult()})
    return failure();
  auto lhs = dyn_cast<BlockArgument>(addf.getLhs());
  auto rhs = dyn_cast<BlockArgument>(addf.getRhs());
  if (!lhs || !rhs || lhs.getOwner() != &body || rhs.getOwner() != &body ||
      lhs.getArgNumber() >= 2 || rhs.getArgNumber() >= 2 || lhs == rhs)
    return failure();
  for (unsigned sumInput : {0u, 1u}) {
    OpOperand *sumOperand = add.getDpsInputOperand(sumInput);
    OpOperand *biasOperand = add.getDpsInputOperand(1 - sumInput);
    linalg::LinalgOp sum = getZeroStartedSum(sumOperand->get());
    if (!sum || !add.getMatchingIndexingMap(sumOperand).isIdentity() ||
        sum->getResult(0).getType() != add->getResult(0).getType())
      continue;
    FailureOr<SmallVector<int64_t>> dims =
        getBroadcastDims(add.getMatchingIndexingMap(biasOperand));
    if (failed(dims) || getElementTypeOrSelf(biasOperand->get().getType()) !=
                            getElementTypeOrSelf(add->getResult(0).getType()))
      continue;
    return BiasAdd{sum, biasOperand, std::move(*dims)};
  }
  return failure();
}

struct FoldBiasAdds : impl::TesselFoldBiasAddsBase<FoldBiasAdds> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    DominanceInfo dominance(func);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> adds;
    func.walk([&](linalg::GenericOp add) { adds.push_back(add); });
    for (linalg::GenericOp add : adds) {
      FailureOr<BiasAdd> match = matchBiasAdd(add);
      // The broadcast goes before the sum, so the bias must be there.
      if (failed(match) ||
          !dominance.properlyDominates(match->bias->get(), match->sum))
        continue;
      linalg::LinalgOp sum = match->sum;
      OpOperand *init = sum.getDpsInitOperand(0);
      rewriter.setInsertionPoint(sum);
      Location loc = add.getLoc();
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, tensor::getMixedSizes(rewriter, loc, init->get()),
          getElementTypeOrSelf(init->get().getType()));
      auto broadcast = linalg::BroadcastOp::create(
          rewriter, loc, match->bias->get(), empty, match->broadcastDims);
      Operation *fill = init->get().getDefiningOp();
      rewriter.modifyOpInPlace(
          sum, [&] { init->set(broadcast->getResult(0)); });
      rewriter.replaceOp(add, sum->getResult(0));
      if (fill->use_empty())
        rewriter.eraseOp(fill);
      ++numBiasAddsFolded;
    }
  }
};

} // namespace
} // namespace mlir::tessel
