//===- AssignDmaChannels.cpp - A DMA channel for every transfer -----------===//
//
// Each channel of a tile's DMA engine runs its transfers in issue order;
// transfers on different channels run side by side (docs/simulator.md).
// Passes that know which channel a transfer needs name it
// (tessel-split-transfers, tessel-share-loads); the rest take the engine's
// channels in turn, so that a step's loads, issued back to back, are not
// queued on one channel.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNDMACHANNELS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct AssignDmaChannels
    : impl::TesselAssignDmaChannelsBase<AssignDmaChannels> {
  void runOnOperation() override {
    getOperation().walk([](CoreOp core) {
      uint32_t channels = lookupArch(core).getTileDmaChannels();
      uint32_t next = 0;
      for (Operation &op : core.getBody().front())
        if (isTransfer(&op) && !getTransferChannel(&op))
          setTransferChannel(&op, next++ % channels);
    });
  }
};

} // namespace
} // namespace mlir::tessel
