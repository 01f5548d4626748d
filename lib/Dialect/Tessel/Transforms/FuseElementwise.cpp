//===- FuseElementwise.cpp - Elementwise chains as one op -----------------===//
//
// Upstream's elementwise fusion also propagates reshapes through ops, which
// rewrites a matmul after a flatten into a multi-dimensional contraction.
// Tessel keeps matmuls as matmuls (the MAC array's op) and fuses only
// elementwise producers into elementwise consumers. A producer of integers
// (not booleans) stays an op of its own: its consumer reads the integers as
// indices, and fused, an index looked up in one table would pick the row of
// another in the same body, a gather of a gather that one dma_gather cannot
// do (BERT's token types: token_type_ids[position_ids]).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFUSEELEMENTWISE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isElementwise(linalgOp);
}

bool producesIndices(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isIntOrIndex() && !element.isInteger(1);
  });
}

struct FuseElementwise : impl::TesselFuseElementwiseBase<FuseElementwise> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return isElementwise(producer) && isElementwise(fused->getOwner()) &&
                 producer->hasOneUse() && !producesIndices(producer);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
