//===- SimplifyMath.cpp - Powers by constants as the vector unit's ops ----===//
//
// Upstream's algebraic simplification already knows how to turn powers by
// constant exponents into multiplications, square roots and divisions; this
// pass runs it where the chip needs it, before elementwise fusion, so the
// ops the mapper and the lowering see are all ones the vector unit has.
// Integer powers beyond upstream's reach (|n| > 8) are expanded here.
// log1p (softplus, mish) becomes log in Kahan's form, which keeps its
// accuracy near 0: with u = 1 + x, log1p(x) = x where u = 1, else
// log(u) * (x / (u - 1)).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// Upstream's strength reduction of math.fpowi takes exponents up to this
/// magnitude; on larger ones it keeps the driver from converging without
/// changing the IR.
constexpr int64_t kUpstreamMaxExponent = 8;

/// math.fpowi by a larger constant exponent n as multiplications, squaring
/// and multiplying (x^9 = x * ((x^2)^2)^2), and 1 / that for n < 0.
struct FPowIByConstant : OpRewritePattern<math::FPowIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::FPowIOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> exponent = getConstantIntValue(op.getRhs());
    auto type = dyn_cast<FloatType>(op.getType());
    if (!exponent || !type)
      return rewriter.notifyMatchFailure(op, "not a scalar power by a constant");
    if (*exponent >= -kUpstreamMaxExponent && *exponent <= kUpstreamMaxExponent)
      return rewriter.notifyMatchFailure(op, "upstream's to expand");
    Location loc = op.getLoc();
    Value one =
        arith::ConstantOp::create(rewriter, loc, rewriter.getFloatAttr(type, 1.0));
    uint64_t remaining = *exponent < 0 ? 0 - static_cast<uint64_t>(*exponent)
                                       : static_cast<uint64_t>(*exponent);
    Value result, square = op.getLhs();
    while (remaining) {
      if (remaining & 1)
        result = result ? arith::MulFOp::create(rewriter, loc, result, square)
                              .getResult()
                        : square;
      remaining >>= 1;
      if (remaining)
        square = arith::MulFOp::create(rewriter, loc, square, square);
    }
    if (!result)
      result = one;
    if (*exponent < 0)
      result = arith::DivFOp::create(rewriter, loc, one, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SimplifyMath : impl::TesselSimplifyMathBase<SimplifyMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    patterns.add<Log1pAsLog, FPowIByConstant>(&getContext());
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
