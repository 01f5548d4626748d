//===- Transfers.cpp - Copies and fills to DMA and vector fills ----------===//
//
// memref.copy between DRAM and SRAM becomes a DMA transfer and its wait (a
// window of a tessel.pad_view loads its part inside the view's source, the
// border filled); linalg.fill a vector fill of an immediate; linalg.copy a
// vector copy.
//
//===----------------------------------------------------------------------===//

#include "InstructionLowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tessel::instructions {

LogicalResult InstructionLowering::lowerCopy(memref::CopyOp copy) {
  rewriter.setInsertionPoint(copy);
  Value source = copy.getSource(), target = copy.getTarget();
  if (source.getDefiningOp<memref::SubViewOp>() ||
      source.getDefiningOp<PadViewOp>()) {
    FailureOr<std::optional<std::pair<Value, Value>>> inside =
        getPaddedWindow(copy);
    if (failed(inside))
      return failure();
    if (*inside) {
      std::tie(source, target) = **inside;
    } else {
      rewriter.eraseOp(copy); // all padding: the fill was the load
      return success();
    }
  }
  auto dma = DmaOp::create(rewriter, copy.getLoc(), source, target,
                           /*channel=*/nullptr);
  if (Attribute group = copy->getAttr(TesselDialect::getShareAttrName()))
    dma->setAttr(TesselDialect::getShareAttrName(), group);
  WaitOp::create(rewriter, copy.getLoc(), ValueRange{dma.getToken()});
  rewriter.eraseOp(copy);
  return success();
}

FailureOr<std::optional<std::pair<Value, Value>>>
InstructionLowering::getPaddedWindow(memref::CopyOp copy) {
  Value source = copy.getSource(), target = copy.getTarget();
  auto sourceType = cast<MemRefType>(source.getType());
  int64_t rank = sourceType.getRank();
  // Per dimension of the padded tensor: the window's first element and
  // its step, composed over the subviews (outermost last).
  SmallVector<int64_t> start(rank, 0), step(rank, 1);
  Value view = source;
  while (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getSourceType().getRank() != rank ||
        ShapedType::isDynamicShape(subview.getStaticOffsets()) ||
        ShapedType::isDynamicShape(subview.getStaticStrides()))
      break;
    for (int64_t d = 0; d < rank; ++d) {
      start[d] = subview.getStaticOffsets()[d] + subview.getStaticStrides()[d] * start[d];
      step[d] *= subview.getStaticStrides()[d];
    }
    view = subview.getSource();
  }
  auto pad = view.getDefiningOp<PadViewOp>();
  if (!pad)
    return std::optional(std::make_pair(source, target));
  auto inner = cast<MemRefType>(pad.getSource().getType());
  SmallVector<int64_t> innerOffsets, sizes, targetOffsets;
  bool clipped = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = sourceType.getDimSize(d), low = pad.getLow()[d];
    // Elements i of the window with low <= start + i * step < low + dim.
    int64_t first = std::max<int64_t>(
        0, llvm::divideCeilSigned(low - start[d], step[d]));
    int64_t last = std::min<int64_t>(
        size - 1, llvm::divideFloorSigned(low + inner.getDimSize(d) - 1 -
                                              start[d],
                                          step[d]));
    if (last < first) {
      clipped = true;
      sizes.clear();
      break;
    }
    clipped |= first > 0 || last < size - 1;
    innerOffsets.push_back(start[d] + first * step[d] - low);
    sizes.push_back(last - first + 1);
    targetOffsets.push_back(first);
  }
  Location loc = copy.getLoc();
  if (sizes.empty()) {
    VectorFillOp::create(rewriter, loc, pad.getValueAttr(), target);
    return std::optional<std::pair<Value, Value>>();
  }
  SmallVector<int64_t> ones(rank, 1);
  if (clipped)
    fillBorder(loc, pad.getValueAttr(), target, targetOffsets, sizes);
  Value inside = memref::SubViewOp::create(rewriter, loc, pad.getSource(),
                                           innerOffsets, sizes, step);
  if (clipped)
    target = memref::SubViewOp::create(rewriter, loc, target, targetOffsets,
                                       sizes, ones);
  return std::optional(std::make_pair(inside, target));
}

void InstructionLowering::fillBorder(Location loc, FloatAttr value,
                                     Value target, ArrayRef<int64_t> offsets,
                                     ArrayRef<int64_t> sizes) {
  ArrayRef<int64_t> shape = cast<MemRefType>(target.getType()).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> ones(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t end = offsets[d] + sizes[d];
    for (auto [from, to] : {std::pair(int64_t(0), offsets[d]),
                            std::pair(end, shape[d])}) {
      if (from >= to)
        continue;
      SmallVector<int64_t> slabOffsets(offsets.take_front(d));
      SmallVector<int64_t> slabSizes(sizes.take_front(d));
      slabOffsets.push_back(from);
      slabSizes.push_back(to - from);
      for (int64_t e = d + 1; e < rank; ++e) {
        slabOffsets.push_back(0);
        slabSizes.push_back(shape[e]);
      }
      Value slab = memref::SubViewOp::create(rewriter, loc, target,
                                             slabOffsets, slabSizes, ones);
      VectorFillOp::create(rewriter, loc, value, slab);
    }
  }
}

LogicalResult InstructionLowering::lowerFill(linalg::FillOp fill) {
  std::optional<APFloat> value = getImmediate(fill.value());
  if (!value) {
    InFlightDiagnostic diag = fill.emitOpError(
        "fills with a value that is not a constant; the vector unit fills "
        "immediates");
    explainInexactInteger(diag, fill.value());
    return diag;
  }
  rewriter.setInsertionPoint(fill);
  VectorFillOp::create(rewriter, fill.getLoc(),
                       rewriter.getF32FloatAttr(value->convertToDouble()),
                       fill.getOutputs()[0]);
  rewriter.eraseOp(fill);
  return success();
}

namespace {

/// memref.copy between DRAM and SRAM -> tessel.dma and tessel.wait.
using CopyToDma =
    LowerWith<memref::CopyOp, &InstructionLowering::lowerCopy>;

/// linalg.fill of a constant -> tessel.vector_fill.
using FillToVectorFill =
    LowerWith<linalg::FillOp, &InstructionLowering::lowerFill>;

/// linalg.copy between SRAM buffers -> a vector copy.
struct LinalgCopyToVectorCopy : OpRewritePattern<linalg::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::CopyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    VectorUnaryOp::create(rewriter, op.getLoc(), VectorUnaryKind::copy,
                          op.getInputs()[0], op.getOutputs()[0]);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTransferPatterns(RewritePatternSet &patterns,
                              InstructionLowering &lowering) {
  patterns.add<CopyToDma, FillToVectorFill>(patterns.getContext(), lowering);
  patterns.add<LinalgCopyToVectorCopy>(patterns.getContext());
}

} // namespace mlir::tessel::instructions
