//===- TesselToInstructions.cpp - The patterns applied to a core ---------===//
//
// The driver of the instruction patterns: each op of a core's body, in
// order, goes through the pattern of its kind. The order is the program's
// (a greedy driver would revisit and reorder), and a pattern that fails has
// emitted its error, so the first failure stops the core.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/TesselToInstructions/TesselToInstructions.h"

#include "InstructionLowering.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tessel {

using namespace instructions;

/// Linalg ops read through casts that erase static sizes (tiling a part of
/// variable size leaves them); instructions need the sizes, which every
/// unrolled step knows. A linalg op on memrefs accepts the cast's source.
static void foldCastsIntoLinalg(CoreOp core) {
  core.walk([](memref::CastOp cast) {
    if (!cast.getSource().getType().hasStaticShape())
      return;
    cast.getResult().replaceUsesWithIf(
        cast.getSource(), [](OpOperand &use) {
          return isa<linalg::LinalgOp>(use.getOwner());
        });
  });
}

/// The core's tessel.pad_views and their views, which its loads no longer
/// read (each now reads the pad's source); one still read is an error.
static LogicalResult erasePadViews(CoreOp core) {
  SmallVector<PadViewOp> pads;
  core.walk([&](PadViewOp pad) { pads.push_back(pad); });
  for (PadViewOp pad : pads) {
    SmallVector<Operation *> views;
    std::function<void(Operation *)> collect = [&](Operation *op) {
      for (Operation *user : op->getUsers())
        collect(user);
      views.push_back(op);
    };
    collect(pad);
    for (Operation *op : views)
      if (!isa<PadViewOp, memref::SubViewOp>(op))
        return op->emitOpError()
               << "reads a tessel.pad_view, which holds no data: only loads "
                  "of its windows into SRAM can read it";
    for (Operation *op : views)
      op->erase();
  }
  return success();
}

LogicalResult lowerCoreToInstructions(CoreOp core) {
  MLIRContext *context = core.getContext();
  PatternRewriter rewriter(context);
  ArchAttr arch = lookupArch(core);
  TileOp tile = core.getTileOp();
  InstructionLowering lowering{
      rewriter, arch, arch.getSplitChannels(tile.getRow(), tile.getCol()) > 1};
  RewritePatternSet patternList(context);
  populateTransferPatterns(patternList, lowering);
  populateMatmulPatterns(patternList, lowering);
  populateWindowPatterns(patternList, lowering);
  populateBodyPatterns(patternList, lowering);
  FrozenRewritePatternSet patterns(std::move(patternList));
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();

  foldCastsIntoLinalg(core);
  // The core's own ops only: lowering an op erases its body.
  SmallVector<Operation *> ops = llvm::map_to_vector(
      core.getBody().front(), [](Operation &op) { return &op; });
  for (Operation *op : ops) {
    if (!patterns.getOpSpecificNativePatterns().count(op->getName())) {
      if (isa<linalg::LinalgOp>(op))
        return op->emitOpError("has no lowering to tessel instructions yet");
      continue;
    }
    if (failed(applicator.matchAndRewrite(op, rewriter)))
      return failure();
  }
  return erasePadViews(core);
}

} // namespace mlir::tessel
