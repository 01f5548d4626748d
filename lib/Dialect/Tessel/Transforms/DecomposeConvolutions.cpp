//===- DecomposeConvolutions.cpp - Convolutions as 2-D NCHW ones ----------===//
//
// The chip's convolution is the 2-D NCHW one (linalg.conv_2d_nchw_fchw,
// docs/lowering.md); depthwise convolutions have their own. PyTorch's
// Conv1d imports as linalg.conv_1d_ncw_fcw, and a convolution whose groups
// are neither 1 nor the channels as linalg.conv_2d_ngchw_gfchw. Both are
// 2-D NCHW convolutions in disguise:
//
// - a 1-D convolution is a 2-D one over a single row: the input, the filter
//   and the output get a unit height (tensor.expand_shape), the strides and
//   dilations a unit first entry, and the result drops the row again;
// - a grouped convolution is one convolution per group, each reading its
//   group's channels and filters (tensor.extract_slice) and writing its
//   group's outputs (tensor.insert_slice);
// - a 3-D convolution (linalg.conv_3d_ncdhw_fcdhw) is, for each output
//   depth, the sum over the kernel's depth of 2-D convolutions of one input
//   depth plane with one filter plane, accumulated into the output plane;
// - a 3-D pooling (a linalg.generic for a maximum; AvgPool3d's sum is a
//   linalg.pooling_ndhwc_sum between transposes, which gets the inverse
//   transposes) is likewise, per output depth, 2-D poolings of the input
//   planes the window's depth reaches, each combined into the output plane.
//
// Everything after this pass (the mapper, partitioning, the lowering) then
// treats them as the convolutions it knows, splits and all.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELDECOMPOSECONVOLUTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// `attr` (one entry per spatial dimension) with `prefix` in front.
DenseIntElementsAttr prepend(Builder &builder, int64_t prefix,
                             DenseIntElementsAttr attr) {
  SmallVector<int64_t> values = {prefix};
  llvm::append_range(values, attr.getValues<int64_t>());
  return builder.getI64VectorAttr(values);
}

/// `type` with a unit dimension inserted at `at`.
RankedTensorType withUnitDim(RankedTensorType type, int64_t at) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + at, 1);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The offsets and sizes of the slice of `value` at `index` of dimension
/// `dim` (the rest whole).
std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
getPlane(OpBuilder &builder, Value value, int64_t dim, int64_t index) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(builder.getIndexAttr(size));
  offsets[dim] = builder.getIndexAttr(index);
  sizes[dim] = builder.getIndexAttr(1);
  return {offsets, sizes};
}

/// The slice of `value` at `index` of dimension `dim`, without that
/// dimension.
Value extractPlane(OpBuilder &builder, Location loc, Value value, int64_t dim,
                   int64_t index) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  auto [offsets, sizes] = getPlane(builder, value, dim, index);
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      builder, loc, RankedTensorType::get(shape, type.getElementType()), value,
      offsets, sizes, strides);
}

/// `into` with `plane` inserted at `index` of dimension `dim`.
Value insertPlane(OpBuilder &builder, Location loc, Value plane, Value into,
                  int64_t dim, int64_t index) {
  auto [offsets, sizes] = getPlane(builder, into, dim, index);
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  return tensor::InsertSliceOp::create(builder, loc, plane, into, offsets,
                                       sizes, strides);
}

/// The output `op`'s parts accumulate into, in place: its init, or where
/// that is a fill something else also reads (CSE merges RegNet's zero fills
/// across its grouped convolutions), a fill of its own.
Value getOwnInit(OpBuilder &builder, linalg::LinalgOp op) {
  Value init = op.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || init.hasOneUse())
    return init;
  auto type = cast<RankedTensorType>(init.getType());
  Value empty = tensor::EmptyOp::create(builder, op.getLoc(), type.getShape(),
                                        type.getElementType());
  return linalg::FillOp::create(builder, op.getLoc(), fill.value(), empty)
      .getResult(0);
}

/// Whether `op` is on statically shaped tensors, which its parts slice.
LogicalResult checkSliceable(linalg::LinalgOp op, PatternRewriter &rewriter) {
  if (!op.hasPureTensorSemantics())
    return rewriter.notifyMatchFailure(op, "not on tensors");
  if (!llvm::all_of(op->getOperandTypes(), [](Type type) {
        return cast<RankedTensorType>(type).hasStaticShape();
      }))
    return rewriter.notifyMatchFailure(op, "dynamic shapes");
  return success();
}

/// conv_1d_ncw_fcw as conv_2d_nchw_fchw over one row.
struct Conv1DAsConv2D : OpRewritePattern<linalg::Conv1DNcwFcwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv1DNcwFcwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Location loc = op.getLoc();
    // (a, b, c) -> (a, b, 1, c)
    SmallVector<ReassociationIndices> unitRow = {{0}, {1}, {2, 3}};
    auto addRow = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      return tensor::ExpandShapeOp::create(rewriter, loc, withUnitDim(type, 2),
                                           value, unitRow);
    };
    Value input = addRow(op.getInputs()[0]);
    Value filter = addRow(op.getInputs()[1]);
    Value init = addRow(op.getOutputs()[0]);
    auto conv = linalg::Conv2DNchwFchwOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{input, filter},
        ValueRange{init}, prepend(rewriter, 1, op.getStrides()),
        prepend(rewriter, 1, op.getDilations()));
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getResultTypes()[0], conv.getResult(0), unitRow);
    return success();
  }
};

/// conv_2d_ngchw_gfchw as one conv_2d_nchw_fchw per group.
struct GroupedConvAsConvPerGroup
    : OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkSliceable(op, rewriter)))
      return failure();
    Value input = op.getInputs()[0], filter = op.getInputs()[1];
    Value result = getOwnInit(rewriter, op);
    Location loc = op.getLoc();
    int64_t groups = cast<RankedTensorType>(input.getType()).getDimSize(1);
    for (int64_t g = 0; g < groups; ++g) {
      Value groupInput = extractPlane(rewriter, loc, input, 1, g);
      Value groupFilter = extractPlane(rewriter, loc, filter, 0, g);
      Value groupInit = extractPlane(rewriter, loc, result, 1, g);
      auto conv = linalg::Conv2DNchwFchwOp::create(
          rewriter, loc, TypeRange{groupInit.getType()},
          ValueRange{groupInput, groupFilter}, ValueRange{groupInit},
          op.getStrides(), op.getDilations());
      result = insertPlane(rewriter, loc, conv.getResult(0), result, 1, g);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A 3-D windowed op over NC(D)HW as 2-D ones: output plane d (of `into`)
/// is combined, in window-depth order, with the 2-D op (`apply(input plane,
/// k, plane)`) of each input plane `d * strides[0] + k * dilations[0]` the
/// window's depth `windowDepth` reaches; each plane's chain is computed in
/// place in the plane it is inserted back into.
Value combineByPlanes(
    PatternRewriter &rewriter, Location loc, Value input, Value into,
    int64_t windowDepth, ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
    function_ref<Value(Value inputPlane, int64_t k, Value plane)> apply) {
  int64_t depth = cast<RankedTensorType>(into.getType()).getDimSize(2);
  for (int64_t d = 0; d < depth; ++d) {
    Value plane = extractPlane(rewriter, loc, into, 2, d);
    for (int64_t k = 0; k < windowDepth; ++k)
      plane = apply(extractPlane(rewriter, loc, input, 2,
                                 d * strides[0] + k * dilations[0]),
                    k, plane);
    into = insertPlane(rewriter, loc, plane, into, 2, d);
  }
  return into;
}

/// conv_3d_ncdhw_fcdhw as conv_2d_nchw_fchw: output plane d accumulates,
/// over the kernel's depth k (in order), the 2-D convolution of input plane
/// `d * stride + k * dilation` with filter plane k.
struct Conv3DAsConv2Ds : OpRewritePattern<linalg::Conv3DNcdhwFcdhwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv3DNcdhwFcdhwOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkSliceable(op, rewriter)))
      return failure();
    Value filter = op.getInputs()[1];
    Location loc = op.getLoc();
    int64_t kernelDepth = cast<RankedTensorType>(filter.getType()).getDimSize(2);
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
    auto planeStrides = rewriter.getI64VectorAttr({strides[1], strides[2]});
    auto planeDilations =
        rewriter.getI64VectorAttr({dilations[1], dilations[2]});
    Value result = combineByPlanes(
        rewriter, loc, op.getInputs()[0], getOwnInit(rewriter, op), kernelDepth,
        strides, dilations, [&](Value inputPlane, int64_t k, Value plane) {
          Value filterPlane = extractPlane(rewriter, loc, filter, 2, k);
          return linalg::Conv2DNchwFchwOp::create(
                     rewriter, loc, TypeRange{plane.getType()},
                     ValueRange{inputPlane, filterPlane}, ValueRange{plane},
                     planeStrides, planeDilations)
              .getResult(0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `(stride, dilation)` of a window dimension read at `expr`: `out * stride
/// + tap * dilation` for the output loop `out` and the window loop `tap`
/// (each factor left out when 1).
std::optional<std::pair<int64_t, int64_t>>
getWindowStep(AffineExpr expr, unsigned out, unsigned tap) {
  auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return std::nullopt;
  // The factor of loop `loop` in `term`, a dim or a dim times a constant.
  auto factorOf = [](AffineExpr term, unsigned loop) -> std::optional<int64_t> {
    if (auto dim = dyn_cast<AffineDimExpr>(term))
      return dim.getPosition() == loop ? std::optional<int64_t>(1)
                                       : std::nullopt;
    auto product = dyn_cast<AffineBinaryOpExpr>(term);
    if (!product || product.getKind() != AffineExprKind::Mul)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(product.getLHS());
    auto constant = dyn_cast<AffineConstantExpr>(product.getRHS());
    if (!dim || !constant || dim.getPosition() != loop)
      return std::nullopt;
    return constant.getValue();
  };
  for (auto [first, second] : {std::pair(sum.getLHS(), sum.getRHS()),
                               std::pair(sum.getRHS(), sum.getLHS())}) {
    std::optional<int64_t> stride = factorOf(first, out);
    std::optional<int64_t> dilation = factorOf(second, tap);
    if (stride && dilation)
      return std::pair(*stride, *dilation);
  }
  return std::nullopt;
}

/// A 3-D max or sum pooling of NCDHW `input` into `init` with a window of
/// `windowShape` (kd, kh, kw), as pooling_nchw_max (sum) per output plane
/// and window depth, combined into the plane in window-depth order.
Value poolByPlanes(PatternRewriter &rewriter, Location loc, Value input,
                   Value init, RankedTensorType windowType,
                   ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                   bool maximum) {
  Value window = tensor::EmptyOp::create(
      rewriter, loc, windowType.getShape().drop_front(),
      windowType.getElementType());
  auto planeStrides = rewriter.getI64VectorAttr({strides[1], strides[2]});
  auto planeDilations = rewriter.getI64VectorAttr({dilations[1], dilations[2]});
  return combineByPlanes(
      rewriter, loc, input, init, windowType.getDimSize(0), strides, dilations,
      [&](Value inputPlane, int64_t, Value plane) -> Value {
        // Owned: ranges over initializer lists would dangle.
        SmallVector<Type> types = {plane.getType()};
        SmallVector<Value> inputs = {inputPlane, window}, inits = {plane};
        if (maximum)
          return linalg::PoolingNchwMaxOp::create(rewriter, loc, types, inputs,
                                                  inits, planeStrides,
                                                  planeDilations)
              .getResult(0);
        return linalg::PoolingNchwSumOp::create(rewriter, loc, types, inputs,
                                                inits, planeStrides,
                                                planeDilations)
            .getResult(0);
      });
}

/// A 3-D max or sum pooling as torch-mlir writes it (loops n, c, d, h, w,
/// kd, kh, kw; the input read at `(n, c, d * sd + kd * dd, ..)`, a window
/// tensor at `(kd, kh, kw)`, the output at `(n, c, d, h, w)`), as
/// pooling_nchw_max (sum) per output plane and window depth, combined into
/// the plane in window-depth order.
struct Pool3DAsPool2Ds : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumLoops() != 8 || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 3 ||
        failed(checkSliceable(op, rewriter)))
      return rewriter.notifyMatchFailure(op, "not a 3-D pooling");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation *combine = yield.getOperand(0).getDefiningOp();
    bool maximum = isa_and_nonnull<arith::MaximumFOp>(combine);
    if (!combine || (!maximum && !isa<arith::AddFOp>(combine)) ||
        combine->getOperand(0) != body.getArgument(0) ||
        combine->getOperand(1) != body.getArgument(2) ||
        &body.front() != combine)
      return rewriter.notifyMatchFailure(op, "not a max or sum");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    MLIRContext *ctx = op.getContext();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (unsigned loop = 0; loop < 8; ++loop)
      if ((iterators[loop] == utils::IteratorType::reduction) != (loop >= 5))
        return rewriter.notifyMatchFailure(op, "loops in another order");
    if (maps[1] != AffineMap::get(8, 0,
                                  {getAffineDimExpr(5, ctx),
                                   getAffineDimExpr(6, ctx),
                                   getAffineDimExpr(7, ctx)},
                                  ctx) ||
        maps[2] != AffineMap::getMultiDimIdentityMap(8, ctx).getMajorSubMap(5) ||
        maps[0].getNumResults() != 5 ||
        maps[0].getResult(0) != getAffineDimExpr(0, ctx) ||
        maps[0].getResult(1) != getAffineDimExpr(1, ctx))
      return rewriter.notifyMatchFailure(op, "not a pooling's maps");
    SmallVector<int64_t> strides, dilations;
    for (unsigned dim = 0; dim < 3; ++dim) {
      std::optional<std::pair<int64_t, int64_t>> step =
          getWindowStep(maps[0].getResult(2 + dim), 2 + dim, 5 + dim);
      if (!step)
        return rewriter.notifyMatchFailure(op, "not a window");
      strides.push_back(step->first);
      dilations.push_back(step->second);
    }

    auto windowType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    rewriter.replaceOp(op, poolByPlanes(rewriter, op.getLoc(),
                                        op.getDpsInputs()[0],
                                        getOwnInit(rewriter, op), windowType,
                                        strides, dilations, maximum));
    return success();
  }
};

/// `value` transposed by `permutation` (result dimension i is dimension
/// `permutation[i]` of `value`).
Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, empty, permutation)
      .getResult()[0];
}

/// pooling_ndhwc_sum (AvgPool3d's, between torch-mlir's transposes from and
/// to NCDHW) as the NCDHW sum pooling by planes, between the inverse
/// transposes, which cancel torch-mlir's.
struct NdhwcSumPoolAsPlanes : OpRewritePattern<linalg::PoolingNdhwcSumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::PoolingNdhwcSumOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkSliceable(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    SmallVector<int64_t> toChannelsFirst = {0, 4, 1, 2, 3},
                         toChannelsLast = {0, 2, 3, 4, 1};
    auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
    auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
    Value pooled = poolByPlanes(
        rewriter, loc, transpose(rewriter, loc, op.getInputs()[0], toChannelsFirst),
        transpose(rewriter, loc, op.getOutputs()[0], toChannelsFirst),
        cast<RankedTensorType>(op.getInputs()[1].getType()), strides, dilations,
        /*maximum=*/false);
    rewriter.replaceOp(op, transpose(rewriter, loc, pooled, toChannelsLast));
    return success();
  }
};

struct DecomposeConvolutions
    : impl::TesselDecomposeConvolutionsBase<DecomposeConvolutions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Conv1DAsConv2D, GroupedConvAsConvPerGroup, Conv3DAsConv2Ds,
                 Pool3DAsPool2Ds, NdhwcSumPoolAsPlanes>(&getContext());
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
