//===- Windows.cpp - Convolutions and pooling ----------------------------===//
//
// linalg.conv_2d_nchw_fchw becomes MAC-array blocks over its output rows or
// pixels; depthwise convolutions and pooling become vector ops over the
// window's taps.
//
//===----------------------------------------------------------------------===//

#include "InstructionLowering.h"

namespace mlir::tessel::instructions {

LogicalResult InstructionLowering::lowerConv(linalg::Conv2DNchwFchwOp conv) {
  if (failed(checkStatic(conv)))
    return failure();
  rewriter.setInsertionPoint(conv);
  Location loc = conv.getLoc();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1],
        y = conv.getOutputs()[0];
  ArrayRef<int64_t> wShape = cast<MemRefType>(w.getType()).getShape();
  ArrayRef<int64_t> yShape = cast<MemRefType>(y.getType()).getShape();
  Type elementType = cast<MemRefType>(x.getType()).getElementType();
  SmallVector<int64_t> xs = stridesOf(x), ws = stridesOf(w),
                       ys = stridesOf(y);
  auto stride = conv.getStrides().getValues<int64_t>();
  auto dilation = conv.getDilations().getValues<int64_t>();
  int64_t sh = stride[0], sw = stride[1], dh = dilation[0], dw = dilation[1];
  int64_t f = wShape[0], c = wShape[1], kh = wShape[2], kw = wShape[3];
  int64_t images = yShape[0], oh = yShape[2], ow = yShape[3];
  // The three reduction loops: extent, input stride, weight stride.
  struct Reduction {
    int64_t extent, xStride, wStride;
  };
  SmallVector<Reduction> reductions = {{c, xs[1], ws[1]},
                                       {kh, dh * xs[2], ws[2]},
                                       {kw, dw * xs[3], ws[3]}};
  // Ties keep the channels, the longest stride-1 run in NCHW weights.
  auto longest = llvm::max_element(reductions, [](const Reduction &a,
                                                  const Reduction &b) {
    return a.extent < b.extent;
  });
  Reduction k = *longest;
  reductions.erase(longest);
  Reduction outer = reductions[0], inner = reductions[1];
  int64_t taps = outer.extent * inner.extent;

  // The cycles of each arrangement, per image.
  // Per row, every tap of every row back to back.
  int64_t rowByWeights =
      estimateMatmulCycles(f, k.extent, ow, elementType, taps * oh);
  int64_t rowByPixels =
      estimateMatmulCycles(ow, k.extent, f, elementType, taps * oh);
  int64_t perRow = std::min(rowByWeights, rowByPixels);
  // All rows as one stream per tap: oh groups of ow pixels.
  bool allRows =
      oh > 1 && estimateMatmulCycles(ow, k.extent, f, elementType, taps,
                                     /*groups=*/oh) < perRow;
  bool pixelsStream = allRows || rowByPixels < rowByWeights;
  // The stream's rows are one group where both the input's and the
  // output's rows follow on from each other (a 1x1 convolution).
  int64_t xRowStep = sh * xs[2];
  bool oneGroup = xRowStep == ow * sw * xs[3] && ys[2] == ow * ys[3];
  // From a zero fill, the first tap's blocks start the sums.
  bool init = takeZeroFill(conv);

  // `count` rows of `ow` pixels from `offset` of `buffer` (pixels
  // `pixelStride` apart, rows `rowStride`, a pixel's `columns` values
  // `columnStride`) as the stream's rows: in groups, one per row, or one
  // run where the rows follow on.
  auto rowsOf = [&](Value buffer, int64_t offset, int64_t count,
                    int64_t pixelStride, int64_t rowStride,
                    int64_t columns, int64_t columnStride) -> Strided2D {
    if (count == 1 || oneGroup)
      return {buffer, offset, {count * ow, columns},
              {pixelStride, columnStride}};
    return {buffer, offset, {ow, columns}, {pixelStride, columnStride},
            count, rowStride};
  };
  int64_t rowsPerStream = allRows ? oh : 1;
  for (int64_t n = 0; n < images; ++n)
    for (int64_t r0 = 0; r0 < oh; r0 += rowsPerStream) {
      Strided2D out = rowsOf(y, n * ys[0] + r0 * ys[2], rowsPerStream, ys[3],
                             ys[2], f, ys[1]);
      for (int64_t a = 0; a < outer.extent; ++a)
        for (int64_t b = 0; b < inner.extent; ++b) {
          Strided2D pixels = rowsOf(
              x,
              n * xs[0] + r0 * xRowStep + a * outer.xStride +
                  b * inner.xStride,
              rowsPerStream, sw * xs[3], xRowStep, k.extent, k.xStride);
          Strided2D weights{w,
                            a * outer.wStride + b * inner.wStride,
                            {k.extent, f},
                            {k.wStride, ws[0]}};
          bool first = init && a == 0 && b == 0;
          if (pixelsStream)
            emitMatmulBlocks(loc, pixels, weights, out, first);
          else
            emitMatmulBlocks(loc, transposed(weights), transposed(pixels),
                             transposed(out), first);
        }
    }
  rewriter.eraseOp(conv);
  return success();
}

LogicalResult InstructionLowering::lowerWindowed(linalg::LinalgOp op, Value x,
                                                 Value weight, Value y,
                                                 ArrayRef<int64_t> kernel,
                                                 DenseIntElementsAttr strides,
                                                 DenseIntElementsAttr dilations,
                                                 VectorBinaryKind combine) {
  if (failed(checkStatic(op)))
    return failure();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  ArrayRef<int64_t> yShape = cast<MemRefType>(y.getType()).getShape();
  SmallVector<int64_t> xs = stridesOf(x), ys = stridesOf(y);
  auto stride = strides.getValues<int64_t>();
  auto dilation = dilations.getValues<int64_t>();
  int64_t c = yShape[1], oh = yShape[2], ow = yShape[3];
  Type accType = cast<MemRefType>(y.getType()).getElementType();
  SmallVector<Value> temporaries;
  auto temporary = [&](ArrayRef<int64_t> shape) {
    temporaries.push_back(allocateTemporary(rewriter, loc, shape, accType));
    return temporaries.back();
  };
  // Narrow inputs (bf16, f16) accumulated in f32: the vector unit's
  // operands share one type, so each window is widened (exactly) first, and
  // the weights once.
  Value wideIn;
  if (getElementTypeOrSelf(x.getType()) != accType) {
    wideIn = temporary({c, oh, ow});
    if (weight) {
      Value wideWeight =
          temporary(cast<MemRefType>(weight.getType()).getShape());
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, weight,
                            wideWeight);
      weight = wideWeight;
    }
  }
  Value product;
  if (weight)
    product = temporary({c, oh, ow});
  for (int64_t n = 0; n < yShape[0]; ++n) {
    Value out = window(loc, y, n * ys[0], {c, oh, ow}, {ys[1], ys[2], ys[3]});
    for (int64_t i = 0; i < kernel[0]; ++i)
      for (int64_t j = 0; j < kernel[1]; ++j) {
        Value in = window(
            loc, x, n * xs[0] + i * dilation[0] * xs[2] + j * dilation[1] * xs[3],
            {c, oh, ow}, {xs[1], stride[0] * xs[2], stride[1] * xs[3]});
        if (wideIn) {
          VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, in,
                                wideIn);
          in = wideIn;
        }
        Value term = in;
        if (weight) {
          SmallVector<int64_t> wstr = stridesOf(weight);
          Value tap = window(loc, weight, i * wstr[1] + j * wstr[2],
                             {c, oh, ow}, {wstr[0], 0, 0});
          VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::mul, in,
                                 tap, product);
          term = product;
        }
        VectorBinaryOp::create(rewriter, loc, combine, out, term, out);
      }
  }
  rewriter.setInsertionPointAfter(op);
  for (Value temporary : temporaries)
    memref::DeallocOp::create(rewriter, loc, temporary);
  rewriter.eraseOp(op);
  return success();
}

namespace {

/// linalg.conv_2d_nchw_fchw -> tessel.matmul blocks.
using ConvToMacBlocks =
    LowerWith<linalg::Conv2DNchwFchwOp, &InstructionLowering::lowerConv>;

/// The kernel's (height, width) of a depthwise convolution's weight
/// (C x KH x KW) or of a pooling's window operand (KH x KW).
SmallVector<int64_t> windowSizes(Value operand, unsigned first) {
  ArrayRef<int64_t> shape = cast<MemRefType>(operand.getType()).getShape();
  return {shape[first], shape[first + 1]};
}

/// linalg.depthwise_conv_2d_nchw_chw -> vector multiply-adds per tap.
struct DepthwiseConvToVector
    : InstructionPattern<linalg::DepthwiseConv2DNchwChwOp> {
  using InstructionPattern::InstructionPattern;
  LogicalResult matchAndRewrite(linalg::DepthwiseConv2DNchwChwOp op,
                                PatternRewriter &) const override {
    return lowering.lowerWindowed(
        op, op.getInputs()[0], op.getInputs()[1], op.getOutputs()[0],
        windowSizes(op.getInputs()[1], 1), op.getStrides(), op.getDilations(),
        VectorBinaryKind::add);
  }
};

/// linalg.pooling_nchw_max and _sum -> vector maxima or sums per tap.
template <typename PoolOp, VectorBinaryKind combine>
struct PoolingToVector : InstructionPattern<PoolOp> {
  using InstructionPattern<PoolOp>::InstructionPattern;
  LogicalResult matchAndRewrite(PoolOp op, PatternRewriter &) const override {
    return this->lowering.lowerWindowed(
        op, op.getInputs()[0], Value(), op.getOutputs()[0],
        windowSizes(op.getInputs()[1], 0), op.getStrides(), op.getDilations(),
        combine);
  }
};

} // namespace

void populateWindowPatterns(RewritePatternSet &patterns,
                            InstructionLowering &lowering) {
  using MaxPooling =
      PoolingToVector<linalg::PoolingNchwMaxOp, VectorBinaryKind::max>;
  using SumPooling =
      PoolingToVector<linalg::PoolingNchwSumOp, VectorBinaryKind::add>;
  patterns.add<ConvToMacBlocks, DepthwiseConvToVector, MaxPooling, SumPooling>(
      patterns.getContext(), lowering);
}

} // namespace mlir::tessel::instructions
