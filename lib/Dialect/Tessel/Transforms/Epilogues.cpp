//===- Epilogues.cpp - Elementwise partitions run on their producer -------===//
//
// tessel-fuse-epilogues marks them; tessel-tile-for-sram and
// tessel-promote-to-sram find them the same way, as the partition right
// after their producer's.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Epilogues.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tessel {

scf::ForallOp getNextPartition(scf::ForallOp forall) {
  for (Operation *next = forall->getNextNode(); next;
       next = next->getNextNode()) {
    auto partition = dyn_cast<scf::ForallOp>(next);
    if (partition && partition->hasAttr(TesselDialect::getPartitionAttrName()))
      return partition;
    // Buffers are allocated where bufferization put them, between.
    if (!isMemoryEffectFree(next) && !isa<memref::AllocOp>(next))
      return {};
  }
  return {};
}

scf::ForallOp getEpilogue(scf::ForallOp producer) {
  scf::ForallOp next = getNextPartition(producer);
  return next && next->hasAttr(TesselDialect::getEpilogueAttrName())
             ? next
             : scf::ForallOp();
}

linalg::LinalgOp getPartitionedOp(scf::ForallOp forall) {
  linalg::LinalgOp only;
  WalkResult result = forall.getBody()->walk([&](linalg::LinalgOp op) {
    if (only)
      return WalkResult::interrupt();
    only = op;
    return WalkResult::advance();
  });
  return result.wasInterrupted() ? linalg::LinalgOp() : only;
}

linalg::GenericOp getEpilogueOp(scf::ForallOp epilogue) {
  return dyn_cast_or_null<linalg::GenericOp>(
      getPartitionedOp(epilogue).getOperation());
}

} // namespace mlir::tessel
