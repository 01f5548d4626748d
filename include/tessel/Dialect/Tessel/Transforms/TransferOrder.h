//===- TransferOrder.h - How a tile's DMA channels run its transfers -*- C++ -*-===//
//
// Each DMA channel runs its transfers in issue order, at the rate of the DRAM
// channel it reads (docs/simulator.md). Whether moving a transfer earlier or
// later pays depends on the tile's channels: on a tile whose DRAM channels
// are its own and whose DMA channels make no second group for them
// (bench/archs/systolic-32x32-768k.yaml), every transfer queues behind the
// ones issued before it; with a second group (systolic-32x32), stores and
// later pieces run beside the first ones. tessel-early-stores,
// tessel-early-loads and tessel-spread-stores ask these questions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFERORDER_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFERORDER_H

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <optional>

namespace mlir::tessel {

/// Whether `tile` has at least two DRAM channels of its own and fewer than
/// two DMA channels for each: its transfers, loads and stores alike, then
/// reach DRAM in the order they are issued.
bool runsTransfersInIssueOrder(ArchAttr arch, TileOp tile);

/// Whether `op` is a load from DRAM into the core's SRAM.
bool isDramLoad(Operation *op);

/// Whether `op` is a store from the core's SRAM to DRAM.
bool isDramStore(Operation *op);

/// The bytes `dma` moves.
int64_t getTransferBytes(DmaOp dma);

/// The cycles `matmul`'s products take the MAC array at its peak.
int64_t getPeakCycles(MatmulOp matmul, ArchAttr arch);

/// The cycles the MAC array takes for `block` in a run of blocks with two
/// weight buffers, where its first `rows` of dimension 0 are all it streams
/// (all of them where `rows` is absent): its stream at its MAC steps or its
/// SRAM port, and at least its weights' fill, which the previous block's
/// stream hides only when as long.
int64_t getRunBlockCycles(MatmulOp block, ArchAttr arch,
                          std::optional<int64_t> rows = std::nullopt);

/// Whether the DRAM loads and stores of `core` take `bytesPerCycle` (what
/// the tile's DMA moves over its DRAM channels) longer than its products
/// take the MAC array at its peak: its channels are busy in any order.
bool isDramBound(CoreOp core, ArchAttr arch, int64_t bytesPerCycle);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFERORDER_H
