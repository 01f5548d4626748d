//===- AssignDmaSlots.cpp - The token slot each transfer holds ------------===//
//
// A transfer holds one of its tile's token slots from its issue until a
// `wait` on it (docs/isa.md); the program declares how many slots each tile
// uses. Lowest-free-first keeps that number at the most transfers the core
// has pending at once. Slots given earlier are kept.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNDMASLOTS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

LogicalResult assignSlots(CoreOp core) {
  llvm::DenseMap<uint32_t, Operation *> held;  // slot -> pending transfer
  for (Operation &op : core.getBody().front()) {
    if (auto wait = dyn_cast<WaitOp>(op)) {
      releaseTokenSlots(wait, held);
      continue;
    }
    if (!isTransfer(&op))
      continue;
    std::optional<uint32_t> slot = getTransferSlot(&op);
    if (!slot) {
      uint32_t free = 0;
      while (held.contains(free))
        ++free;
      setTransferSlot(&op, free);
      slot = free;
    }
    if (!held.try_emplace(*slot, &op).second)
      return op.emitOpError()
             << "was given token slot " << *slot
             << ", which an earlier transfer of the core still holds";
  }
  return success();
}

struct AssignDmaSlots : impl::TesselAssignDmaSlotsBase<AssignDmaSlots> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](CoreOp core) {
      return failed(assignSlots(core)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
