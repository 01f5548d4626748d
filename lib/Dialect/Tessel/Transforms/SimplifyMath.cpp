//===- SimplifyMath.cpp - Powers by constants as the vector unit's ops ----===//
//
// Upstream's algebraic simplification already knows how to turn powers by
// constant exponents into multiplications, square roots and divisions; this
// pass runs it where the chip needs it, before elementwise fusion, so the
// ops the mapper and the lowering see are all ones the vector unit has.
// log1p (softplus, mish) becomes log in Kahan's form, which keeps its
// accuracy near 0: with u = 1 + x, log1p(x) = x where u = 1, else
// log(u) * (x / (u - 1)).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSIMPLIFYMATH
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// math.log1p as log in Kahan's form (see the file comment).
struct Log1pAsLog : OpRewritePattern<math::Log1pOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log1pOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type type = x.getType();
    if (!isa<FloatType>(type))
      return rewriter.notifyMatchFailure(op, "not a scalar float");
    Value one =
        arith::ConstantOp::create(rewriter, loc, rewriter.getFloatAttr(type, 1.0));
    Value u = arith::AddFOp::create(rewriter, loc, x, one);
    Value exact = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ,
                                        u, one);
    Value scaled = arith::MulFOp::create(
        rewriter, loc, math::LogOp::create(rewriter, loc, u),
        arith::DivFOp::create(rewriter, loc, x,
                              arith::SubFOp::create(rewriter, loc, u, one)));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, exact, x, scaled);
    return success();
  }
};

struct SimplifyMath : impl::TesselSimplifyMathBase<SimplifyMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    patterns.add<Log1pAsLog>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
