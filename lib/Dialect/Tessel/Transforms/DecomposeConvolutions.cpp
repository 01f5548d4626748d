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
//   group's outputs (tensor.insert_slice).
//
// Everything after this pass (the mapper, partitioning, the lowering) then
// treats them as the convolutions it knows, splits and all.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

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
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Value input = op.getInputs()[0], filter = op.getInputs()[1];
    Value result = op.getOutputs()[0];
    auto inputType = cast<RankedTensorType>(input.getType());
    auto filterType = cast<RankedTensorType>(filter.getType());
    auto resultType = cast<RankedTensorType>(result.getType());
    if (!inputType.hasStaticShape() || !filterType.hasStaticShape() ||
        !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    int64_t groups = inputType.getDimSize(1);
    // The slice of group g of a tensor whose dimension `groupDim` runs over
    // the groups, without that dimension.
    auto groupSlice = [&](Value value, int64_t groupDim,
                          int64_t g) -> std::pair<SmallVector<OpFoldResult>,
                                                  SmallVector<OpFoldResult>> {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes;
      for (int64_t size : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      offsets[groupDim] = rewriter.getIndexAttr(g);
      sizes[groupDim] = rewriter.getIndexAttr(1);
      return {offsets, sizes};
    };
    auto withoutDim = [](RankedTensorType type, int64_t dim) {
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + dim);
      return RankedTensorType::get(shape, type.getElementType());
    };
    auto extract = [&](Value value, int64_t groupDim, int64_t g) -> Value {
      auto [offsets, sizes] = groupSlice(value, groupDim, g);
      SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(
          rewriter, loc,
          withoutDim(cast<RankedTensorType>(value.getType()), groupDim), value,
          offsets, sizes, strides);
    };
    for (int64_t g = 0; g < groups; ++g) {
      Value groupInput = extract(input, 1, g);
      Value groupFilter = extract(filter, 0, g);
      Value groupInit = extract(result, 1, g);
      auto conv = linalg::Conv2DNchwFchwOp::create(
          rewriter, loc, TypeRange{groupInit.getType()},
          ValueRange{groupInput, groupFilter}, ValueRange{groupInit},
          op.getStrides(), op.getDilations());
      auto [offsets, sizes] = groupSlice(result, 1, g);
      SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(rewriter, loc, conv.getResult(0),
                                             result, offsets, sizes, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DecomposeConvolutions
    : impl::TesselDecomposeConvolutionsBase<DecomposeConvolutions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Conv1DAsConv2D, GroupedConvAsConvPerGroup>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
