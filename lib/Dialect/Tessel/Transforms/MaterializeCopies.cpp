//===- MaterializeCopies.cpp - Data movement as mappable linalg ops -------===//
//
// Pads, concatenations and slice insertions move data without being linalg
// ops: the mapping would not place them and bufferization would turn them
// into DRAM-to-DRAM copies, which the chip cannot execute. Rewritten into a
// fill and copies into slices, they are split over tiles like any op.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELMATERIALIZECOPIES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// tensor.insert_slice %src into %dst  ->  the same insertion of a
/// linalg.copy of %src into the slice of %dst, which bufferizes in place.
struct CopyIntoSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    if (insert.getSource().getDefiningOp<linalg::CopyOp>() ||
        insert->getParentOfType<scf::ForallOp>())
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

struct MaterializeCopies : impl::TesselMaterializeCopiesBase<MaterializeCopies> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    linalg::populateDecomposePadPatterns(patterns);
    patterns.add<CopyIntoSlice>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
