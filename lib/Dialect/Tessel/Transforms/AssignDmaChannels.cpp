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
// take the others, where one is free, instead of queueing behind it (small_cnn on tessel-4x4: a max pooling's
// reads of a kept result waited 700 cycles behind the classifier's
// weights).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNDMACHANNELS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct AssignDmaChannels
    : impl::TesselAssignDmaChannelsBase<AssignDmaChannels> {
  void runOnOperation() override {
    StringRef early = TesselDialect::getIssuedEarlyAttrName();
    getOperation().walk([&](CoreOp core) {
      uint32_t channels = lookupArch(core).getTileDmaChannels();
      uint32_t next = 0;
      // The loads issued early not yet waited for, and how many hold each
      // channel. A load issued early takes its turn like any transfer:
      // made to join a channel another holds, GPT-2's small block at int8
      // on tessel-16x16 ran 11,292 -> 11,506 cycles.
      llvm::DenseMap<Value, uint32_t> pending;
      SmallVector<unsigned> holders(channels, 0);
      auto isHeld = [&](uint32_t channel) { return holders[channel] > 0; };
      for (Operation &op : core.getBody().front()) {
        if (auto wait = dyn_cast<WaitOp>(op)) {
          for (Value token : wait.getTokens())
            if (auto it = pending.find(token); it != pending.end()) {
              --holders[it->second];
              pending.erase(it);
            }
          continue;
        }
        if (!isTransfer(&op))
          continue;
        if (!getTransferChannel(&op)) {
          uint32_t channel = next++ % channels;
          // Past the held channels, where one is free.
          if (llvm::count_if(holders, [](unsigned n) { return n > 0; }) <
              static_cast<ptrdiff_t>(channels))
            while (isHeld(channel))
              channel = next++ % channels;
          setTransferChannel(&op, channel);
        }
        if (op.hasAttr(early)) {
          op.removeAttr(early);
          uint32_t channel = *getTransferChannel(&op);
          ++holders[channel];
          pending[op.getResult(0)] = channel;
        }
      }
    });
  }
};

} // namespace
} // namespace mlir::tessel
