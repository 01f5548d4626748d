//===- FuseElementwise.cpp - Elementwise chains as one op -----------------===//
//
// Upstream's elementwise fusion also propagates reshapes through ops, which
// rewrites a matmul after a flatten into a multi-dimensional contraction.
// Tessel keeps matmuls as matmuls (the MAC array's op) and fuses only
// elementwise producers into elementwise consumers.
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

struct FuseElementwise : impl::TesselFuseElementwiseBase<FuseElementwise> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return isElementwise(producer) && isElementwise(fused->getOwner()) &&
                 producer->hasOneUse();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
