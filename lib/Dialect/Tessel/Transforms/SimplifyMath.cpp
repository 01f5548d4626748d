//===- SimplifyMath.cpp - Powers by constants as the vector unit's ops ----===//
//
// Upstream's algebraic simplification already knows how to turn powers by
// constant exponents into multiplications, square roots and divisions; this
// pass runs it where the chip needs it, before elementwise fusion, so the
// ops the mapper and the lowering see are all ones the vector unit has.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSIMPLIFYMATH
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct SimplifyMath : impl::TesselSimplifyMathBase<SimplifyMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
