//===- SpreadStores.cpp - A store's pieces between the next steps' loads ---===//
//
// Each DMA channel runs its transfers one after another, in issue order
// (docs/simulator.md). On a tile whose DRAM channels are its own but whose
// DMA channels make no second group for them (bench/archs/
// systolic-32x32-768k.yaml: four DMA channels over three DRAM channels),
// a step's store and the next steps' loads share the same channels: a
// 229 KB accumulator slice of a GEMM leaves in 4,800 cycles, and the loads
// the tile issues for its next step queue behind it, so the MAC array
// waits for them. Yet the store is waited for only where its buffer is
// freed, steps later.
//
// This pass cuts such a store along its outermost dimension and issues the
// pieces one after each run of loads from DRAM that the tile issues before
// the store's wait, the last run excepted where there are others (the wait
// follows that run's step and would wait for the piece): each piece takes a
// step's spare time on the channels instead of the whole store holding up
// one step's loads. With one run before the wait, or too few bytes to cut,
// the whole store goes out after the first run's loads (ResNet-18's second
// convolution on that tile: its last step's loads had waited 2,218 cycles
// behind the store before it). Only a store that does hold the loads up is
// moved: one that, with the loads issued after it, takes the channels
// longer than the MAC array takes at its peak for the products before the
// tile waits for those loads (the convolution's other stores leave under
// its steps where they are; cut, the pieces' issue had added 18 cycles),
// and only on a tile whose transfers take its DRAM channels no longer than
// its products take the MAC array: otherwise the channels are busy in any
// order, and moving the stores only adds pieces.
// The pieces are at least what the tile's DMA moves in four times its
// setup over all its DRAM channels (tessel-split-transfers then spreads
// each over them), and the store is waited for where it was. A piece moves
// down past compute, transfers and waits that do not touch the slice it
// reads, never past a signal, a semaphore wait, a fence, a multicast, a
// gather or a transfer of the DRAM buffer it writes.
//
// Before tessel-allocate-sram, while every SRAM buffer is its own
// allocation: which elements an instruction touches is read from its views'
// strided layouts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/StridedViews.h"
#include "tessel/Dialect/Tessel/Transforms/TransferOrder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSPREADSTORES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct SpreadStores : impl::TesselSpreadStoresBase<SpreadStores> {
  /// What the tile's DMA moves per cycle over all its DRAM channels.
  int64_t bytesPerCycle = 0;

  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      // Where a second DMA channel reads each DRAM channel, stores take
      // their own (tessel-split-transfers) and queue behind no load; where
      // tiles share their DRAM channels, the emitter spreads transfers over
      // the DMA channels in turn.
      TileOp tile = core.getTileOp();
      if (!runsTransfersInIssueOrder(arch, tile))
        return;
      bytesPerCycle = arch.getTransferBytesPerCycle() *
                      arch.getSplitChannels(tile.getRow(), tile.getCol());
      int64_t minPieceBytes = 4 * arch.getTileDmaSetupCycles() * bytesPerCycle;
      // A tile whose transfers take its DRAM channels longer than its
      // products take the MAC array keeps the channels busy in any order:
      // moving its stores only adds pieces (the 1x1 convolution on the
      // 768 KiB tile, 28 cycles).
      if (isDramBound(core, arch, bytesPerCycle))
        return;
      SmallVector<DmaOp> stores;
      for (Operation &op : core.getBody().front())
        if (isDramStore(&op))
          stores.push_back(cast<DmaOp>(op));
      for (DmaOp store : stores)
        spread(store, minPieceBytes);
    });
  }

  /// The last load from DRAM before each run of MAC-array products between
  /// `store` and its wait: where the tile has issued the loads of a step.
  /// None if the store is not waited for once, in its block; up to the
  /// first instruction that touches the slice it reads or that it may not
  /// pass.
  SmallVector<Operation *> findRunEnds(DmaOp store) {
    SmallVector<Operation *> ends;
    if (!store.getToken().hasOneUse())
      return ends;
    Operation *wait = *store.getToken().getUsers().begin();
    if (wait->getBlock() != store->getBlock())
      return ends;
    Value source = store.getSource();
    Value root = getViewRoot(source);
    std::optional<Extent> extent = getExtent(source);
    if (!root.getDefiningOp<memref::AllocOp>() || !extent)
      return ends;
    Value dramRoot = getViewRoot(store.getTarget());
    Operation *lastLoad = nullptr;
    for (Operation *op = store->getNextNode(); op != wait;
         op = op->getNextNode()) {
      if (isAddressOp(op) || isa<memref::DeallocOp>(op))
        continue;
      if (isStoreBarrier(op, dramRoot) || touchesExtent(op, root, *extent))
        break;
      if (isDramLoad(op))
        lastLoad = op;
      else if (isa<MatmulOp>(op) && lastLoad) {
        ends.push_back(lastLoad);
        lastLoad = nullptr;
      }
    }
    return ends;
  }

  /// Whether `store` and the loads issued after it up to `runEnd` take
  /// the tile's DRAM channels longer than the MAC array takes at its peak
  /// for the products before the tile waits for one of those loads: a
  /// bound below the compute that hides them.
  bool holdsUpLoads(DmaOp store, Operation *runEnd, ArchAttr arch) {
    int64_t bytes = getTransferBytes(store);
    llvm::SmallPtrSet<Value, 8> loads;
    for (Operation *op = store->getNextNode(); op != runEnd->getNextNode();
         op = op->getNextNode())
      if (isDramLoad(op)) {
        bytes += getTransferBytes(cast<DmaOp>(op));
        loads.insert(cast<DmaOp>(op).getToken());
      }
    int64_t macCycles = 0;
    for (Operation *op = runEnd->getNextNode(); op; op = op->getNextNode()) {
      if (auto wait = dyn_cast<WaitOp>(op))
        if (llvm::any_of(wait.getTokens(),
                         [&](Value token) { return loads.contains(token); }))
          break;
      if (auto matmul = dyn_cast<MatmulOp>(op))
        macCycles += getPeakCycles(matmul, arch);
    }
    return bytes > macCycles * bytesPerCycle;
  }

  void spread(DmaOp store, int64_t minPieceBytes) {
    auto type = cast<MemRefType>(store.getSource().getType());
    if (!type.isStrided() ||
        !cast<MemRefType>(store.getTarget().getType()).isStrided())
      return;
    ArrayRef<int64_t> shape = type.getShape();
    const auto *outer =
        llvm::find_if(shape, [](int64_t size) { return size > 1; });
    if (outer == shape.end())
      return;
    unsigned dim = outer - shape.begin();
    int64_t bytes = getTransferBytes(store);
    SmallVector<Operation *> ends = findRunEnds(store);
    if (ends.empty())
      return;
    if (!holdsUpLoads(store, ends[0], lookupArch(store)))
      return;
    // No piece after the last run where there are others: the wait follows
    // its step, and the piece would hold the wait up.
    int64_t runs = std::max<int64_t>(1, ends.size() - 1);
    int64_t pieces =
        std::min<int64_t>({runs, shape[dim], bytes / minPieceBytes});
    if (pieces < 2) {
      // Too small to cut, or one run before the wait: the whole store
      // after the first run's loads.
      store->moveAfter(ends[0]);
      ++numSpread;
      return;
    }
    Location loc = store.getLoc();
    int64_t chunk = llvm::divideCeil(shape[dim], pieces);
    SmallVector<Value> tokens;
    for (int64_t begin = 0, i = 0; begin < shape[dim]; begin += chunk, ++i) {
      OpBuilder builder = OpBuilder::atBlockEnd(store->getBlock());
      builder.setInsertionPointAfter(ends[i]);
      int64_t size = std::min(chunk, shape[dim] - begin);
      Value from =
          createSlab(builder, loc, store.getSource(), dim, begin, size);
      Value to = createSlab(builder, loc, store.getTarget(), dim, begin, size);
      auto piece = DmaOp::create(builder, loc, from, to, store.getChannelAttr());
      piece->setDiscardableAttrs(store->getDiscardableAttrDictionary());
      tokens.push_back(piece.getToken());
    }
    replaceTransfer(store, tokens);
    ++numSpread;
  }
};

} // namespace
} // namespace mlir::tessel
