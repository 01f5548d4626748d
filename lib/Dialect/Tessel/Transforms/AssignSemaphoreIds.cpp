//===- AssignSemaphoreIds.cpp - Number each tile's semaphores -------------===//
//
// A program lists each tile's semaphores by index; `signal`,
// `wait_semaphore` and `dma_wait_semaphore` name a semaphore by its tile
// and that index (docs/isa.md). Semaphores keep an `id` they were given; the others take,
// in declaration order, the lowest id their tile has free.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNSEMAPHOREIDS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

void assignIds(DeviceOp device) {
  auto semaphores = device.getBody().front().getOps<SemaphoreOp>();
  llvm::DenseMap<Operation *, llvm::DenseSet<uint32_t>> taken;
  for (SemaphoreOp semaphore : semaphores)
    if (std::optional<uint32_t> id = semaphore.getId())
      taken[semaphore.getTileOp()].insert(*id);
  for (SemaphoreOp semaphore : semaphores) {
    if (semaphore.getId())
      continue;
    llvm::DenseSet<uint32_t> &ids = taken[semaphore.getTileOp()];
    uint32_t id = 0;
    while (ids.contains(id))
      ++id;
    ids.insert(id);
    semaphore.setId(id);
  }
}

struct AssignSemaphoreIds
    : impl::TesselAssignSemaphoreIdsBase<AssignSemaphoreIds> {
  void runOnOperation() override { getOperation().walk(assignIds); }
};

} // namespace
} // namespace mlir::tessel
