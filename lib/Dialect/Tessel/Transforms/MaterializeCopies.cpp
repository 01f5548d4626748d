//===- MaterializeCopies.cpp - Data movement as mappable linalg ops -------===//
//
// Pads, concatenations and slice insertions move data without being linalg
// ops: the mapping would not place them and bufferization would turn them
// into DRAM-to-DRAM copies, which the chip cannot execute. Rewritten into a
// fill and copies into slices, they are split over tiles like any op.
// A constant pad that only linalg ops read (a convolution's, a pooling's)
// needs no tensor at all: it becomes a tessel.pad_view, whose windows the
// loads fill in SRAM and read from the unpadded tensor.
//
// The same holds for an op that accumulates into a tensor something else
// also uses (a zero fill shared by several matmuls after CSE, say): one of
// the users would get a bufferization copy. Each such op gets its own fill
// (or broadcast).
// And a result returned as a view of an argument, or as a slice of another
// tensor, is copied into a tensor of its own: an output is a DRAM buffer.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELMATERIALIZECOPIES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `insert` puts back the result of a linalg op computed in the
/// very slice of the destination it is inserted into, directly or through a
/// chain of ops each accumulating into the previous one's result (a grouped
/// convolution's group, the kernel depths of a 3-D convolution's plane,
/// tessel-decompose-convolutions): that bufferizes in place as it is.
bool insertsWhereComputed(tensor::InsertSliceOp insert) {
  Value value = insert.getSource();
  while (auto result = dyn_cast<OpResult>(value)) {
    auto op = dyn_cast<linalg::LinalgOp>(result.getOwner());
    // Each op of the chain writes in place over the one before: nothing
    // else may read what it overwrites.
    bool chained = value != insert.getSource();
    if (!op || !op.hasPureTensorSemantics() || (chained && !result.hasOneUse()))
      return false;
    value = op.getDpsInitOperand(result.getResultNumber())->get();
    if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
      return slice.getSource() == insert.getDest() &&
             slice.isSameAs(insert, [](OpFoldResult a, OpFoldResult b) {
               return isEqualConstantIntOrValue(a, b);
             });
  }
  return false;
}

/// tensor.insert_slice %src into %dst  ->  the same insertion of a
/// linalg.copy of %src into the slice of %dst, which bufferizes in place.
struct CopyIntoSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    if (insert.getSource().getDefiningOp<linalg::CopyOp>() ||
        insert->getParentOfType<scf::ForallOp>() ||
        insertsWhereComputed(insert))
      return failure();
    Location loc = insert.getLoc();
    auto slice = tensor::ExtractSliceOp::create(
        rewriter, loc, insert.getSourceType(), insert.getDest(),
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
    auto copy = linalg::CopyOp::create(rewriter, loc, insert.getSource(),
                                       slice.getResult());
    rewriter.modifyOpInPlace(insert, [&] {
      insert.getSourceMutable().assign(copy.getResult(0));
    });
    return success();
  }
};

/// Gives every linalg op whose init is a fill or a broadcast that has other
/// uses its own clone of it, so that each op writes into a buffer of its
/// own. CSE leaves such shared inits: a zero fill shared by several
/// matmuls, or the broadcast bias of convolutions whose biases an ONNX
/// exporter stored once because they were equal (folded batch norms of a
/// fresh model are all zero).
void untieSharedInits(func::FuncOp func) {
  auto getInitProducer = [](Value init) -> Operation * {
    Operation *def = init.getDefiningOp();
    return isa_and_nonnull<linalg::FillOp, linalg::BroadcastOp>(def) ? def
                                                                     : nullptr;
  };
  SmallVector<OpOperand *> shared;
  func.walk([&](linalg::LinalgOp op) {
    if (op->getParentOfType<scf::ForallOp>())
      return;
    for (OpOperand &init : op.getDpsInitsMutable())
      if (getInitProducer(init.get()) && !init.get().hasOneUse())
        shared.push_back(&init);
  });
  for (OpOperand *init : shared) {
    if (init->get().hasOneUse())
      continue; // the last user keeps the original
    auto producer = cast<linalg::LinalgOp>(getInitProducer(init->get()));
    OpBuilder builder(init->getOwner());
    Value dest = producer.getDpsInits()[0];
    IRMapping map;
    if (auto empty = dest.getDefiningOp<tensor::EmptyOp>())
      map.map(dest, builder.clone(*empty)->getResult(0));
    init->set(builder.clone(*producer, map)->getResult(0));
  }
}

/// Gives every result the function returns as a view of one of its
/// arguments, or as a slice of a larger tensor, a copy of its own: an
/// output is a DRAM buffer of its own, which a view of an input or a slice
/// inside another buffer is not (a model returning `x.reshape(...)` or
/// `x[:, 2:10]`).
void copyReturnedViews(func::FuncOp func) {
  func.walk([](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || !type.hasStaticShape())
        continue;
      bool sliced = false;
      Value root = operand.get();
      while (Operation *def = root.getDefiningOp()) {
        if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                 tensor::ExtractSliceOp, tensor::CastOp>(def))
          break;
        sliced |= isa<tensor::ExtractSliceOp>(def);
        root = def->getOperand(0);
      }
      if (!sliced && !isa<BlockArgument>(root))
        continue;
      Location loc = ret.getLoc();
      auto empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                           type.getElementType());
      operand.set(linalg::CopyOp::create(builder, loc, operand.get(),
                                         empty.getResult())
                      .getResult(0));
    }
  });
}

/// The value a pad fills with, as the f32 immediate a vector fill takes;
/// none when it is not a float constant or does not convert exactly.
std::optional<float> getPadImmediate(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  FloatAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  APFloat f32 = attr.getValue();
  bool lost = false;
  f32.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  if (lost)
    return std::nullopt;
  return f32.convertToFloat();
}

/// Replaces each constant, statically shaped pad whose every user reads it
/// as an input of a linalg op by a tessel.pad_view: the readers' loads
/// fill their windows and read the unpadded tensor, so the padded tensor
/// is never written (a convolution's padding cost a fill of the whole
/// padded tensor and a copy of the unpadded one into it).
void padsAsViews(func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  for (tensor::PadOp pad : pads) {
    std::optional<float> value = getPadImmediate(pad);
    bool readOnly = llvm::all_of(pad->getUses(), [](OpOperand &use) {
      auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
      return reader && reader.isDpsInput(&use);
    });
    if (!value || !readOnly || pad->use_empty() ||
        !pad.getSourceType().hasStaticShape() ||
        !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
        !pad.getHigh().empty())
      continue;
    OpBuilder builder(pad);
    auto view = PadViewOp::create(
        builder, pad.getLoc(), pad.getResultType(), pad.getSource(),
        builder.getDenseI64ArrayAttr(pad.getStaticLow()),
        builder.getDenseI64ArrayAttr(pad.getStaticHigh()),
        builder.getF32FloatAttr(*value));
    pad.replaceAllUsesWith(view.getResult());
    pad.erase();
  }
}

struct MaterializeCopies : impl::TesselMaterializeCopiesBase<MaterializeCopies> {
  void runOnOperation() override {
    padsAsViews(getOperation());
    RewritePatternSet patterns(&getContext());
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    linalg::populateDecomposePadPatterns(patterns);
    patterns.add<CopyIntoSlice>(&getContext());
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
    untieSharedInits(getOperation());
    copyReturnedViews(getOperation());
  }
};

} // namespace
} // namespace mlir::tessel
