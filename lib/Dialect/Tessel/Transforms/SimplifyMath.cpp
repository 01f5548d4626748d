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
// A quantization to an integer type, as ONNX's QuantizeLinear imports
// (clamp(roundeven(v) + zp, lo, hi) converted to i8), rounds in f32 and adds
// the zero point to the rounded value; the vector unit has no rounding op
// of its own, but its conversion to an integer rounds to nearest even. So
// the value is clamped first, to [lo - zp, hi - zp] (rounding commutes with
// clamping to integers), converted to i32 (rounding it), the zero point
// added in i32 and the sum narrowed: the same integers for every input.
// Its DequantizeLinear subtracts the zero point in i16, a type the chip does
// not have: a sum or difference of two i8 values converted to a float is
// computed in i32 instead, which holds it as exactly.
//
// Run again after elementwise fusion, the pass finds a quantization and its
// dequantization in one body (a QDQ graph has one after most ops), and
// converts the clamped integer to a float directly: the narrowing to i8,
// the extension back and the zero point's addition and subtraction give
// back the same integer, since the clamp keeps it within i8.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/IntegerSums.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

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

/// `op` as (x, constant) if it is a binary op of type Op with one operand an
/// integral constant (getSmallIntegralConstant), in either order.
template <typename Op>
std::optional<std::pair<Value, int64_t>> matchWithConstant(Value value) {
  auto op = value.getDefiningOp<Op>();
  if (!op)
    return std::nullopt;
  for (int side = 0; side < 2; ++side)
    if (std::optional<int64_t> constant =
            getSmallIntegralConstant(op->getOperand(side)))
      return std::make_pair(op->getOperand(1 - side), *constant);
  return std::nullopt;
}

/// One bound of a clamp to an integral constant: `minimumf`/`maximumf`, or
/// the `cmpf` and `select` that torch-mlir imports `aten.clamp` as
/// (`select(x ult lo, lo, x)`, `select(x ugt hi, hi, x)`), which it is
/// rebuilt as, so a NaN clamps as it did.
struct ClampBound {
  Value clamped;
  int64_t bound;
  bool upper;
  std::optional<arith::CmpFPredicate> predicate; // the select form's

  /// `value` clamped to `constant` (the bound, shifted) as this bound did.
  Value build(PatternRewriter &rewriter, Location loc, Value value,
              Value constant) const {
    if (!predicate)
      return upper ? Value(arith::MinimumFOp::create(rewriter, loc, value, constant))
                   : Value(arith::MaximumFOp::create(rewriter, loc, value, constant));
    Value outside = arith::CmpFOp::create(rewriter, loc, *predicate, value, constant);
    return arith::SelectOp::create(rewriter, loc, outside, constant, value);
  }
};

/// `value` as a bound of a clamp (ClampBound), or none.
std::optional<ClampBound> matchClampBound(Value value) {
  if (auto min = matchWithConstant<arith::MinimumFOp>(value))
    return ClampBound{min->first, min->second, true, std::nullopt};
  if (auto max = matchWithConstant<arith::MaximumFOp>(value))
    return ClampBound{max->first, max->second, false, std::nullopt};
  auto select = value.getDefiningOp<arith::SelectOp>();
  auto compare = select ? select.getCondition().getDefiningOp<arith::CmpFOp>()
                        : arith::CmpFOp();
  if (!compare || compare.getLhs() != select.getFalseValue() ||
      compare.getRhs() != select.getTrueValue())
    return std::nullopt;
  std::optional<int64_t> bound = getSmallIntegralConstant(compare.getRhs());
  if (!bound)
    return std::nullopt;
  using P = arith::CmpFPredicate;
  switch (compare.getPredicate()) {
  case P::ULT: case P::OLT: case P::ULE: case P::OLE:
    return ClampBound{compare.getLhs(), *bound, false, compare.getPredicate()};
  case P::UGT: case P::OGT: case P::UGE: case P::OGE:
    return ClampBound{compare.getLhs(), *bound, true, compare.getPredicate()};
  default:
    return std::nullopt;
  }
}

/// fptosi(clamp(roundeven(v) + zp, lo, hi)) to i8/i16/i32 as
/// trunci(fptosi(roundeven(clamp(v, lo - zp, hi - zp)) : i32) + zp) (see
/// the file comment); the bounds in either order and either form
/// (ClampBound), the zero point optional.
struct QuantizeInIntegers : OpRewritePattern<arith::FPToSIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::FPToSIOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<IntegerType>(op.getType());
    if (!resultType || resultType.getWidth() > 32 || !op.getIn().getType().isF32())
      return rewriter.notifyMatchFailure(op, "not f32 to an integer of 32 bits or less");
    // The clamp, outermost first.
    std::optional<ClampBound> outer = matchClampBound(op.getIn());
    std::optional<ClampBound> inner =
        outer ? matchClampBound(outer->clamped) : std::nullopt;
    if (!inner || inner->upper == outer->upper)
      return rewriter.notifyMatchFailure(op, "not a clamp to integral constants");
    Value clamped = inner->clamped;
    int64_t zeroPoint = 0;
    if (auto shifted = matchWithConstant<arith::AddFOp>(clamped))
      std::tie(clamped, zeroPoint) = *shifted;
    auto rounded = clamped.getDefiningOp<math::RoundEvenOp>();
    if (!rounded)
      return rewriter.notifyMatchFailure(op, "not a rounding to even");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc, rewriter.getFloatAttr(f32, static_cast<double>(value)));
    };
    Value value = rounded.getOperand();
    for (const ClampBound *bound : {&*inner, &*outer})
      value = bound->build(rewriter, loc, value, constant(bound->bound - zeroPoint));
    value = math::RoundEvenOp::create(rewriter, loc, value);
    value = arith::FPToSIOp::create(rewriter, loc, i32, value);
    if (zeroPoint)
      value = arith::AddIOp::create(
          rewriter, loc, value,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getI32IntegerAttr(zeroPoint)));
    if (resultType.getWidth() < 32)
      value = arith::TruncIOp::create(rewriter, loc, resultType, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// Whether `value` is sign-extended from i8: an extsi of an i8, or a
/// constant in [-128, 127].
bool isExtendedI8(Value value) {
  if (auto extend = value.getDefiningOp<arith::ExtSIOp>())
    return extend.getIn().getType().isInteger(8);
  std::optional<int64_t> constant = getConstantIntValue(value);
  return constant && *constant >= -128 && *constant <= 127;
}

/// `value`, sign-extended from i8 (isExtendedI8), as an i32 value built at
/// the rewriter's point.
Value getAsI32FromI8(Value value, PatternRewriter &rewriter, Location loc) {
  Type i32 = rewriter.getI32Type();
  if (auto extend = value.getDefiningOp<arith::ExtSIOp>())
    return arith::ExtSIOp::create(rewriter, loc, i32, extend.getIn());
  return arith::ConstantOp::create(
      rewriter, loc, rewriter.getI32IntegerAttr(*getConstantIntValue(value)));
}

/// sitofp(a -/+ b) of two i8 values extended to a type other than i32 (i16:
/// ONNX's DequantizeLinear) as the same in i32: the sum or difference of two
/// i8 values never wraps in either.
template <typename Op>
struct I8SumsInI32 : OpRewritePattern<arith::SIToFPOp> {
  using OpRewritePattern<arith::SIToFPOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::SIToFPOp op,
                                PatternRewriter &rewriter) const override {
    auto combined = op.getIn().template getDefiningOp<Op>();
    auto type = dyn_cast<IntegerType>(op.getIn().getType());
    if (!combined || !type || type.getWidth() < 10 || type.getWidth() == 32)
      return rewriter.notifyMatchFailure(op, "not a sum of i8 values to widen");
    // Checked before anything is built: a pattern that builds ops and then
    // fails keeps the driver from converging.
    if (!isExtendedI8(combined.getLhs()) || !isExtendedI8(combined.getRhs()))
      return rewriter.notifyMatchFailure(op, "an operand is not an i8 value");
    Location loc = op.getLoc();
    Value lhs = getAsI32FromI8(combined.getLhs(), rewriter, loc);
    Value rhs = getAsI32FromI8(combined.getRhs(), rewriter, loc);
    Value sum = Op::create(rewriter, loc, lhs, rhs);
    rewriter.replaceOpWithNewOp<arith::SIToFPOp>(op, op.getType(), sum);
    return success();
  }
};

/// The range [lo, hi] of `value` if it is a float clamped to integral
/// constants (ClampBound; a NaN clamped too, as the vector unit's max and
/// min and the unordered comparisons do) and converted to an integer
/// (through a rounding to even, which the conversion does); else none.
std::optional<std::pair<int64_t, int64_t>> getConvertedClampRange(Value value) {
  auto convert = value.getDefiningOp<arith::FPToSIOp>();
  if (!convert)
    return std::nullopt;
  Value clamped = convert.getIn();
  if (auto rounded = clamped.getDefiningOp<math::RoundEvenOp>())
    clamped = rounded.getOperand();
  std::optional<ClampBound> outer = matchClampBound(clamped);
  std::optional<ClampBound> inner =
      outer ? matchClampBound(outer->clamped) : std::nullopt;
  if (!inner || inner->upper == outer->upper)
    return std::nullopt;
  using P = arith::CmpFPredicate;
  for (const ClampBound *bound : {&*inner, &*outer})
    if (bound->predicate && !llvm::is_contained({P::ULT, P::ULE, P::UGT, P::UGE},
                                                *bound->predicate))
      return std::nullopt;
  return outer->upper ? std::make_pair(inner->bound, outer->bound)
                      : std::make_pair(outer->bound, inner->bound);
}

/// `narrow`, the narrowing (trunci) of `wide + zeroPoint` where `wide`'s
/// range plus the zero point fits the narrow type, as (wide, zeroPoint):
/// the narrowing then loses nothing. Else none.
std::optional<std::pair<Value, int64_t>> getExactlyNarrowed(Value narrow) {
  auto truncate = narrow.getDefiningOp<arith::TruncIOp>();
  if (!truncate)
    return std::nullopt;
  Value wide = truncate.getIn();
  int64_t zeroPoint = 0;
  if (auto shifted = wide.getDefiningOp<arith::AddIOp>()) {
    std::optional<int64_t> constant = getConstantIntValue(shifted.getRhs());
    if (!constant)
      return std::nullopt;
    wide = shifted.getLhs();
    zeroPoint = *constant;
  }
  std::optional<std::pair<int64_t, int64_t>> range = getConvertedClampRange(wide);
  unsigned bits = truncate.getType().getIntOrFloatBitWidth();
  int64_t lowest = -(int64_t{1} << (bits - 1)), highest = (int64_t{1} << (bits - 1)) - 1;
  if (!range || range->first + zeroPoint < lowest || range->second + zeroPoint > highest)
    return std::nullopt;
  return std::make_pair(wide, zeroPoint);
}

/// A quantization followed by its dequantization in one body (fused):
/// `sitofp(extsi(trunci(q + zp)) - zp)`, `sitofp(trunci(q))` or, PT2E's,
/// `sitofp(trunci(q + zp)) - zp` in f32, where q is converted from a value
/// clamped so that q + zp fits the narrow type, is `sitofp(q)`: the same
/// value without the narrowing and the zero point's round trip.
struct DequantizeWithoutNarrowing : OpRewritePattern<arith::SIToFPOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::SIToFPOp op,
                                PatternRewriter &rewriter) const override {
    Value integer = op.getIn();
    int64_t subtracted = 0;
    if (auto subtract = integer.getDefiningOp<arith::SubIOp>()) {
      std::optional<int64_t> constant = getConstantIntValue(subtract.getRhs());
      if (!constant)
        return rewriter.notifyMatchFailure(op, "a zero point that is not a constant");
      integer = subtract.getLhs();
      subtracted = *constant;
    }
    if (auto extend = integer.getDefiningOp<arith::ExtSIOp>())
      integer = extend.getIn();
    std::optional<std::pair<Value, int64_t>> narrowed = getExactlyNarrowed(integer);
    if (!narrowed)
      return rewriter.notifyMatchFailure(op, "not an exact narrowing");
    // sitofp(trunci(q + zp)) followed by a subtraction of zp in f32.
    if (subtracted == 0 && narrowed->second != 0 && op->hasOneUse()) {
      auto subtract = dyn_cast<arith::SubFOp>(*op->getUsers().begin());
      std::optional<int64_t> zeroPoint =
          subtract && subtract.getLhs() == op.getResult()
              ? getSmallIntegralConstant(subtract.getRhs())
              : std::nullopt;
      if (!zeroPoint || *zeroPoint != narrowed->second)
        return rewriter.notifyMatchFailure(op, "the zero point is not taken back");
      rewriter.setInsertionPoint(subtract);
      rewriter.replaceOpWithNewOp<arith::SIToFPOp>(subtract, op.getType(),
                                                   narrowed->first);
      return success();
    }
    if (subtracted != narrowed->second)
      return rewriter.notifyMatchFailure(op, "another zero point is taken back");
    rewriter.replaceOpWithNewOp<arith::SIToFPOp>(op, op.getType(), narrowed->first);
    return success();
  }
};

struct SimplifyMath : impl::TesselSimplifyMathBase<SimplifyMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    patterns.add<Log1pAsLog, FPowIByConstant, QuantizeInIntegers,
                 I8SumsInI32<arith::SubIOp>, I8SumsInI32<arith::AddIOp>,
                 DequantizeWithoutNarrowing>(&getContext());
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
