//===- CollapseEpilogueReshapes.cpp - Elementwise ops at a sum's shape ----===//
//
// torch-mlir computes a linear layer on a batch of sequences as a matmul on
// the rows flattened (128 x 768) and expands its result back
// (1 x 128 x 768) for what follows: the GELU, the residual add. An
// elementwise op reading the expanded result reads it at other indices than
// the matmul writes, so it cannot run on the matmul's slices in SRAM (an
// epilogue, tessel-fuse-epilogues). Computed at the matmul's shape instead,
// its other inputs collapsed the same way and its result expanded after it,
// it reads the matmul's result as it is written. Upstream's collapsing
// patterns do it; this pass picks where.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCOLLAPSEEPILOGUERESHAPES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `fused`, an operand of an all-parallel generic, is the expanded
/// result of a reduction (a matmul, a convolution) that nothing else reads.
bool readsExpandedSum(OpOperand *fused) {
  auto generic = dyn_cast<linalg::GenericOp>(fused->getOwner());
  auto expand = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (!generic || !expand || !expand->hasOneUse() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  auto sum = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
  return sum && sum.getNumReductionLoops() != 0 &&
         expand.getSrc().hasOneUse();
}

struct CollapseEpilogueReshapes
    : impl::TesselCollapseEpilogueReshapesBase<CollapseEpilogueReshapes> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns,
                                                       readsExpandedSum);
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
