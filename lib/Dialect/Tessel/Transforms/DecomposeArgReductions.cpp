//===- DecomposeArgReductions.cpp - argmax as reductions of floats --------===//
//
// torch-mlir writes argmax (and argmin) as one reduction with two results,
// the maximum and its index, whose body carries the index along in i64 and
// picks it with a select on each strict improvement. The vector unit
// reduces floats along a dimension, one result at a time. So the op
// becomes: the maximum, reduced as any maximum; then, per row, the least
// index whose element equals it, as the minimum over the reduced loop of
// `element == maximum ? index : +inf`, in f32 (exact for indices below
// 2^24); then that index rounded and converted to i64, which the vector
// unit's cast writes. The first index of the maximum is what the strict
// comparison picks, and what PyTorch returns.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELDECOMPOSEARGREDUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Indices up to this are exact in f32.
constexpr int64_t kMaxExactIndex = int64_t(1) << 24;

/// What an arg reduction's body is: the loop whose index it carries, and
/// whether it keeps the maximum (argmax) or the minimum (argmin).
struct ArgReduction {
  unsigned loop;
  bool maximum;
};

/// The body `yield(max(in, acc), select(in > acc, index, accIndex))` (or
/// min and <), with `index` the index cast of one reduced loop.
std::optional<ArgReduction> matchArgReduction(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 2 ||
      generic.getNumReductionLoops() != 1)
    return std::nullopt;
  Block &body = generic.getRegion().front();
  BlockArgument in = body.getArgument(0), acc = body.getArgument(1),
                accIndex = body.getArgument(2);
  if (!isa<FloatType>(in.getType()) || !accIndex.getType().isInteger(64))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  auto select = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!combine || !select || select.getFalseValue() != accIndex)
    return std::nullopt;
  bool maximum = isa<arith::MaximumFOp, arith::MaxNumFOp>(combine);
  if (!maximum && !isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
    return std::nullopt;
  auto compare = select.getCondition().getDefiningOp<arith::CmpFOp>();
  auto strict =
      maximum ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
  if (!compare || compare.getPredicate() != strict ||
      compare.getLhs() != in || compare.getRhs() != acc ||
      !llvm::is_contained(combine->getOperands(), in) ||
      !llvm::is_contained(combine->getOperands(), acc))
    return std::nullopt;
  auto cast = select.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>()
                    : linalg::IndexOp();
  if (!index || generic.getIteratorTypesArray()[index.getDim()] !=
                    utils::IteratorType::reduction)
    return std::nullopt;
  return ArgReduction{static_cast<unsigned>(index.getDim()), maximum};
}

/// A linalg.generic over `maps` and `iterators` whose body `build` writes.
Value createGeneric(
    OpBuilder &builder, Location loc, ValueRange inputs, Value init,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
    function_ref<Value(OpBuilder &, Location, ValueRange)> build) {
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, build(b, l, args));
      });
  return generic.getResult(0);
}

/// A fresh tensor of `type` filled with `value`.
Value createFilled(OpBuilder &builder, Location loc, RankedTensorType type,
                   TypedAttr value) {
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                        type.getElementType());
  Value constant = arith::ConstantOp::create(builder, loc, value);
  return linalg::FillOp::create(builder, loc, constant, empty).getResult(0);
}

struct DecomposeArgReduction : OpRewritePattern<linalg::GenericOp> {
  DecomposeArgReduction(MLIRContext *ctx, llvm::Statistic &decomposed)
      : OpRewritePattern(ctx), decomposed(decomposed) {}

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (!generic.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(generic, "not on tensors");
    std::optional<ArgReduction> arg = matchArgReduction(generic);
    if (!arg)
      return rewriter.notifyMatchFailure(generic, "not an arg reduction");
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    int64_t extent = ranges[arg->loop];
    if (ShapedType::isDynamic(extent) || extent > kMaxExactIndex)
      return rewriter.notifyMatchFailure(generic, "indices not exact in f32");

    Location loc = generic.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    Value input = generic.getDpsInputs()[0];
    // Positions in f32 whatever the elements' type: exact below 2^24.
    FloatType f32 = rewriter.getF32Type();
    auto indexType = cast<RankedTensorType>(generic.getResultTypes()[1]);
    bool maximum = arg->maximum;

    // The extreme value, reduced as any maximum (minimum).
    Value extreme = createGeneric(
        rewriter, loc, input, generic.getDpsInits()[0], {maps[0], maps[1]},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (maximum)
            return arith::MaximumFOp::create(b, l, args[0], args[1]);
          return arith::MinimumFOp::create(b, l, args[0], args[1]);
        });

    // The least index where the element is the extreme, in f32.
    SmallVector<float> indices;
    for (int64_t i = 0; i < extent; ++i)
      indices.push_back(static_cast<float>(i));
    auto iotaType = RankedTensorType::get({extent}, f32);
    Value iota = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(iotaType, ArrayRef(indices)));
    AffineMap alongLoop = AffineMap::get(
        generic.getNumLoops(), 0, getAffineDimExpr(arg->loop, ctx), ctx);
    auto positionType = RankedTensorType::get(indexType.getShape(), f32);
    auto infinity = FloatAttr::get(f32, APFloat::getInf(f32.getFloatSemantics()));
    Value unfound = createFilled(rewriter, loc, positionType, infinity);
    Value first = createGeneric(
        rewriter, loc, ValueRange{input, extreme, iota}, unfound,
        {maps[0], maps[1], alongLoop, maps[2]}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value isExtreme = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OEQ, args[0], args[1]);
          Value inf = arith::ConstantOp::create(b, l, infinity);
          Value candidate =
              arith::SelectOp::create(b, l, isExtreme, args[2], inf);
          return arith::MinimumFOp::create(b, l, candidate, args[3]);
        });

    // As i64: the position is integral, so rounding it is exact.
    AffineMap identity = AffineMap::getMultiDimIdentityMap(indexType.getRank(), ctx);
    Value empty = tensor::EmptyOp::create(rewriter, loc, indexType.getShape(),
                                          indexType.getElementType());
    Value index = createGeneric(
        rewriter, loc, first, empty, {identity, identity},
        SmallVector<utils::IteratorType>(indexType.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value rounded = math::RoundEvenOp::create(b, l, args[0]);
          return arith::FPToSIOp::create(b, l, indexType.getElementType(),
                                         rounded);
        });
    rewriter.replaceOp(generic, {extreme, index});
    ++decomposed;
    return success();
  }

  llvm::Statistic &decomposed;
};

struct DecomposeArgReductions
    : impl::TesselDecomposeArgReductionsBase<DecomposeArgReductions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeArgReduction>(&getContext(), numDecomposed);
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
