//===- AssignDmaChannels.cpp - A DMA channel for every transfer -----------===//
//
// Each channel of a tile's DMA engine runs its transfers in issue order;
// transfers on different channels run side by side (docs/simulator.md).
// Passes that know which channel a transfer needs name it
// (tessel-split-transfers, tessel-share-loads); the rest take the engine's
// channels in turn, so that a step's loads, issued back to back, are not
// queued on one channel. A load issued during the ops before its own
// (`tessel.issued_early`, tessel-schedule) keeps its channel to itself
// until it is waited for: the transfers of those ops that name no channel
// take the others, where one is free, instead of queueing behind it
// (small_cnn on tessel-4x4: a max pooling's reads of a kept result waited
// 700 cycles behind the classifier's weights). Where every channel holds
// one, they take the channel whose early loads move the fewest bytes
// (ResNet-18 on tessel-16x16: an average pooling's store had queued 1,924
// cycles behind 14 KB of the classifier's weights, on a tile whose other
// channel held 28 bytes of its bias).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNDMACHANNELS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The bytes transfer `op` moves: its source view's, a gather's target's.
int64_t transferBytes(Operation *op) {
  Value moved = op->getOperand(0);
  if (auto gather = dyn_cast<DmaGatherOp>(op))
    moved = gather.getTarget();
  return getSizeInBytes(cast<MemRefType>(moved.getType()));
}

struct AssignDmaChannels
    : impl::TesselAssignDmaChannelsBase<AssignDmaChannels> {
  void runOnOperation() override {
    StringRef early = TesselDialect::getIssuedEarlyAttrName();
    getOperation().walk([&](CoreOp core) {
      uint32_t channels = lookupArch(core).getTileDmaChannels();
      uint32_t next = 0;
      // The loads issued early not yet waited for (their channel and
      // bytes), and how many hold each channel and with how many bytes. A
      // load issued early takes its turn like any transfer: made to join a
      // channel another holds, GPT-2's small block at int8 on tessel-16x16
      // ran 11,292 -> 11,506 cycles.
      llvm::DenseMap<Value, std::pair<uint32_t, int64_t>> pending;
      SmallVector<unsigned> holders(channels, 0);
      SmallVector<int64_t> heldBytes(channels, 0);
      auto isHeld = [&](uint32_t channel) { return holders[channel] > 0; };
      for (Operation &op : core.getBody().front()) {
        if (auto wait = dyn_cast<WaitOp>(op)) {
          for (Value token : wait.getTokens())
            if (auto it = pending.find(token); it != pending.end()) {
              auto [channel, bytes] = it->second;
              --holders[channel];
              heldBytes[channel] -= bytes;
              pending.erase(it);
            }
          continue;
        }
        if (!isTransfer(&op))
          continue;
        if (!getTransferChannel(&op)) {
          uint32_t channel = next++ % channels;
          if (llvm::all_of(holders, [](unsigned n) { return n > 0; })) {
            // The channel whose early loads move the fewest bytes; of
            // equals, the first in turn.
            for (uint32_t k = 1; k < channels; ++k) {
              uint32_t other = (channel + k) % channels;
              if (heldBytes[other] < heldBytes[channel])
                channel = other;
            }
          } else {
            // Past the held channels.
            while (isHeld(channel))
              channel = next++ % channels;
          }
          setTransferChannel(&op, channel);
        }
        if (op.hasAttr(early)) {
          op.removeAttr(early);
          uint32_t channel = *getTransferChannel(&op);
          int64_t bytes = transferBytes(&op);
          ++holders[channel];
          heldBytes[channel] += bytes;
          pending[op.getResult(0)] = {channel, bytes};
        }
      }
    });
  }
};

} // namespace
} // namespace mlir::tessel
