//===- SplitTransfers.cpp - A large DRAM transfer over a tile's channels --===//
//
// A transfer runs on one DMA channel, at that channel's rate, from the one
// DRAM channel the DMA channel picks (docs/isa.md). A tile with several
// DRAM channels of its own (systolic-32x32: two, both at its corner) then
// moves a large slice at one channel's rate while the other idles: the
// first loads of an op and the store of its last step stand outside compute
// for twice as long as they need to. This pass cuts such a transfer into
// one piece per DRAM channel, each on the DMA channel that reads from it,
// and waits for all of them where the transfer was waited for.
//
// Only DRAM channels nearest to this tile and to no other count: where
// tiles share their channels, their own transfers already keep them busy,
// and a split would only change which tile waits (the mapper's cost model
// makes the same distinction, docs/mapper.md).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSPLITTRANSFERS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct SplitTransfers : impl::TesselSplitTransfersBase<SplitTransfers> {
  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      TileOp tile = core.getTileOp();
      unsigned channels = arch.getSplitChannels(tile.getRow(), tile.getCol());
      if (channels < 2)
        return;
      // Below this many bytes a piece moves in less time than its setup:
      // the added transfers would cost what the split saves.
      int64_t minPieceBytes = arch.getSetupTransferBytes();
      // DMA channels `g * channels + i` all read DRAM channel `i`: stores,
      // and the pieces of an op's first loads (tessel-early-loads), take
      // the groups in turn, so that one transfer's setup and latency run
      // under the previous one's data. The other loads keep to the first
      // group: spread too, they queued behind stores (ResNet-18's second
      // convolution on systolic-32x32 ran 0.4 % slower).
      unsigned groups = arch.getTileDmaChannels() % channels
                            ? 1
                            : arch.getTileDmaChannels() / channels;
      unsigned nextGroup = 0;
      SmallVector<DmaOp> transfers;
      core.walk([&](DmaOp dma) { transfers.push_back(dma); });
      for (DmaOp dma : transfers) {
        bool turns = isInSpace(dma.getTarget(), MemorySpace::dram) ||
                     dma->hasAttr(TesselDialect::getFirstLoadAttrName());
        if (split(dma, channels, minPieceBytes,
                  turns ? nextGroup * channels : 0) &&
            turns)
          nextGroup = (nextGroup + 1) % groups;
      }
    });
  }

  /// Cuts `dma`, a transfer between DRAM and the tile's SRAM on no named
  /// channel, along its outermost dimension of more than one element into
  /// up to `channels` pieces of at least `minPieceBytes`, piece `i` on DMA
  /// channel `firstChannel + i`; whether it did.
  bool split(DmaOp dma, unsigned channels, int64_t minPieceBytes,
             unsigned firstChannel) {
    if (dma.getChannel() ||
        isInSpace(dma.getSource(), MemorySpace::dram) ==
            isInSpace(dma.getTarget(), MemorySpace::dram))
      return false;
    auto type = cast<MemRefType>(dma.getSource().getType());
    // A piece is a subview of both ends, which needs strided layouts.
    if (!type.isStrided() ||
        !cast<MemRefType>(dma.getTarget().getType()).isStrided())
      return false;
    ArrayRef<int64_t> shape = type.getShape();
    const auto *outer =
        llvm::find_if(shape, [](int64_t size) { return size > 1; });
    if (outer == shape.end())
      return false;
    unsigned dim = outer - shape.begin();
    int64_t bytes = getSizeInBytes(type);
    int64_t pieces = std::min<int64_t>(
        {static_cast<int64_t>(channels), shape[dim], bytes / minPieceBytes});
    if (pieces < 2)
      return false;

    OpBuilder builder(dma);
    Location loc = dma.getLoc();
    int64_t chunk = llvm::divideCeil(shape[dim], pieces);
    SmallVector<Value> tokens;
    for (int64_t begin = 0, i = 0; begin < shape[dim]; begin += chunk, ++i) {
      int64_t size = std::min(chunk, shape[dim] - begin);
      Value source =
          createSlab(builder, loc, dma.getSource(), dim, begin, size);
      Value target =
          createSlab(builder, loc, dma.getTarget(), dim, begin, size);
      auto piece = DmaOp::create(builder, loc, source, target,
                                 builder.getI32IntegerAttr(firstChannel + i));
      piece->setDiscardableAttrs(dma->getDiscardableAttrDictionary());
      tokens.push_back(piece.getToken());
    }
    replaceTransfer(dma, tokens);
    ++numSplit;
    return true;
  }
};

} // namespace
} // namespace mlir::tessel
