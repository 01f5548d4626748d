//===- TransferOrder.cpp - How a tile's DMA channels run its transfers ----===//

#include "tessel/Dialect/Tessel/Transforms/TransferOrder.h"

namespace mlir::tessel {

bool runsTransfersInIssueOrder(ArchAttr arch, TileOp tile) {
  unsigned own = arch.getSplitChannels(tile.getRow(), tile.getCol());
  return own >= 2 && arch.getTileDmaChannels() < 2 * own;
}

bool isDramLoad(Operation *op) {
  auto dma = dyn_cast<DmaOp>(op);
  return dma && isInSpace(dma.getSource(), MemorySpace::dram) &&
         isInSpace(dma.getTarget(), MemorySpace::sram);
}

bool isDramStore(Operation *op) {
  auto dma = dyn_cast<DmaOp>(op);
  return dma && isInSpace(dma.getSource(), MemorySpace::sram) &&
         isInSpace(dma.getTarget(), MemorySpace::dram);
}

int64_t getTransferBytes(DmaOp dma) {
  return getSizeInBytes(cast<MemRefType>(dma.getSource().getType()));
}

int64_t getPeakCycles(MatmulOp matmul, ArchAttr arch) {
  auto lhs = cast<MemRefType>(matmul.getLhs().getType());
  auto rhs = cast<MemRefType>(matmul.getRhs().getType());
  return lhs.getNumElements() * rhs.getShape().back() /
         std::max<int64_t>(arch.getMacsPerCycle(lhs.getElementType()), 1);
}

int64_t getRunBlockCycles(MatmulOp block, ArchAttr arch,
                          std::optional<int64_t> rows) {
  auto lhs = cast<MemRefType>(block.getLhs().getType());
  if (lhs.getNumElements() == 0)
    return 0;
  int64_t k = lhs.getShape().back();
  int64_t n = cast<MemRefType>(block.getRhs().getType()).getShape().back();
  int64_t m = lhs.getNumElements() / k;
  if (rows)
    m = m / lhs.getShape().front() * *rows;
  return std::max(k,
                  arch.getMatmulStreamCycles(m, k, n, lhs.getElementType()));
}

bool isDramBound(CoreOp core, ArchAttr arch, int64_t bytesPerCycle) {
  int64_t dramBytes = 0, macCycles = 0;
  for (Operation &op : core.getBody().front()) {
    if (isDramLoad(&op) || isDramStore(&op))
      dramBytes += getTransferBytes(cast<DmaOp>(op));
    if (auto matmul = dyn_cast<MatmulOp>(op))
      macCycles += getPeakCycles(matmul, arch);
  }
  return dramBytes > macCycles * bytesPerCycle;
}

} // namespace mlir::tessel
