//===- EarlyStores.cpp - Store each block of a result once it is final ----===//
//
// As lowered, a step stores its result slice after its last instruction, so
// the store of the last step stands after all compute: on one tile of
// systolic-32x32 a 1x1 convolution's last 401 KB take 3,254 cycles after
// its last product. But the MAC array finishes a slice block by block (a
// block of output channels, of columns), and each block is final after its
// own last product. This pass cuts such a store, along the dimension of the
// slice that gives the most, into the pieces that become final at
// different instructions and issues each piece right after the last
// instruction that writes it: only the last block's piece is left after the
// compute. Where the store was waited for, all its pieces are.
//
// A piece moves up past compute, loads, stores and waits that do not touch
// its elements, never past synchronization (a signal, a semaphore wait, a
// fence), a multicast or a gather, or a transfer of the DRAM buffer it
// writes. A piece is at least what the tile's DMA moves in four times its
// setup, so the added transfers cost little against what they hide. A
// transfer holds its DMA channel through the DRAM latency as well, so the
// pass cuts on a tile with a second DMA channel for each DRAM channel it
// uses, where consecutive pieces' latencies overlap; on a tile with DRAM
// channels of its own but no second group of DMA channels, only the core's
// last store, and only where its products outlast its transfers: nothing
// queues behind that store, and without the cut the whole slice leaves
// after the last product (the 256^3 GEMM's 256 KB on the 768 KiB tile).
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEARLYSTORES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The address ops in `block` that compute `values` and stand at or after
/// `point`, operands before users; false if one of them is not an address
/// op (it cannot move).
bool addressOpsFrom(ValueRange values, Operation *point,
                    SmallVectorImpl<Operation *> &ops,
                    llvm::SmallPtrSetImpl<Operation *> &seen) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != point->getBlock() ||
        def->isBeforeInBlock(point) || !seen.insert(def).second)
      continue;
    if (!isAddressOp(def) ||
        !addressOpsFrom(def->getOperands(), point, ops, seen))
      return false;
    ops.push_back(def);
  }
  return true;
}

struct EarlyStores : impl::TesselEarlyStoresBase<EarlyStores> {
  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      // A transfer holds its DMA channel through the DRAM latency too; the
      // pieces' latencies overlap only where a second DMA channel reads
      // the same DRAM channels (the stores take the channels in turn,
      // tessel-split-transfers). Elsewhere each piece would add a latency
      // to a tile whose channels may already be the bottleneck; the one
      // exception is the last store of a tile that runs its transfers in
      // issue order (below).
      TileOp tile = core.getTileOp();
      unsigned own = arch.getSplitChannels(tile.getRow(), tile.getCol());
      bool inIssueOrder = runsTransfersInIssueOrder(arch, tile);
      if (arch.getTileDmaChannels() < 2 * own && !inIssueOrder)
        return;
      int64_t minPieceBytes = 4 * arch.getSetupTransferBytes();
      SmallVector<DmaOp> stores;
      for (Operation &op : core.getBody().front())
        if (isDramStore(&op))
          stores.push_back(cast<DmaOp>(op));
      // Where the channels run transfers in issue order, a piece of a store
      // would queue the next step's loads behind it (tessel-spread-stores
      // moves those stores instead): only the core's last store, which
      // nothing follows, goes out as its blocks finish, and only on a tile
      // whose products outlast its transfers (on a DRAM-bound one the
      // pieces' setups and latencies only add: the 1x1 convolution on the
      // 768 KiB tile, 937 cycles).
      if (inIssueOrder) {
        if (stores.empty() ||
            isDramBound(core, arch, arch.getTransferBytesPerCycle() * own))
          return;
        stores.erase(stores.begin(), stores.end() - 1);
      }
      for (DmaOp store : stores)
        storeEarly(store, minPieceBytes);
    });
  }

  void storeEarly(DmaOp store, int64_t minPieceBytes) {
    Value source = store.getSource();
    auto type = cast<MemRefType>(source.getType());
    Value root = getViewRoot(source);
    std::optional<StridedBox> box = StridedBox::of(source);
    if (!root.getDefiningOp<memref::AllocOp>() || !box || !box->nests() ||
        !cast<MemRefType>(store.getTarget().getType()).isStrided())
      return;
    std::optional<Extent> whole = getExtent(source);
    ArrayRef<int64_t> shape = type.getShape();

    // Walk up from the store to a barrier: for every dimension of the
    // slice, the last instruction that writes each of its indices.
    Value dramRoot = getViewRoot(store.getTarget());
    IndexClaims lastWriters(root, *box);
    for (Operation *op = store->getPrevNode(); op && !lastWriters.complete();
         op = op->getPrevNode()) {
      if (isStoreBarrier(op, dramRoot) || op == root.getDefiningOp())
        break;
      if (isAddressOp(op) || isa<memref::AllocOp, memref::DeallocOp>(op) ||
          !touchesExtent(op, root, *whole))
        continue;
      if (!lastWriters.claim(op))
        return; // too many elements to tell which indices it writes
    }
    SmallVector<SmallVector<Operation *>> writer(lastWriters.getClaims());

    // Written by the instruction just before the store is final where the
    // store is.
    Operation *previous = store->getPrevNode();
    while (previous && isAddressOp(previous))
      previous = previous->getPrevNode();
    for (SmallVector<Operation *> &writers : writer)
      for (Operation *&w : writers)
        if (w == previous)
          w = nullptr;

    // Cut along the dimension that gives the most pieces (ties: the
    // outermost).
    auto later = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b) ? b : a;
    };
    SmallVector<TransferPiece> pieces;
    unsigned dim = 0;
    for (auto [d, writers] : llvm::enumerate(writer)) {
      if (writers.empty())
        continue;
      int64_t rowBytes = type.getNumElements() / shape[d] *
                         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      SmallVector<TransferPiece> cut =
          getTransferPieces(writers, store, rowBytes, minPieceBytes, later);
      if (cut.size() > pieces.size()) {
        pieces = std::move(cut);
        dim = d;
      }
    }
    if (pieces.size() < 2)
      return;

    // The store's views must be computed before the first piece.
    Operation *first = store;
    for (const TransferPiece &piece : pieces)
      if (piece.at != store && piece.at->isBeforeInBlock(first))
        first = piece.at->getNextNode();
    SmallVector<Operation *> hoisted;
    llvm::SmallPtrSet<Operation *, 8> seen;
    if (!addressOpsFrom({source, store.getTarget()}, first, hoisted, seen))
      return;
    for (Operation *op : hoisted)
      op->moveBefore(first);

    SmallVector<Value> tokens;
    llvm::DenseMap<Operation *, Operation *> lastPlaced;
    OpBuilder builder(store);
    for (const TransferPiece &piece : pieces) {
      Operation *&at = lastPlaced[piece.at];
      if (at)
        builder.setInsertionPointAfter(at);
      else if (piece.at == store)
        builder.setInsertionPoint(store);
      else
        builder.setInsertionPointAfter(piece.at);
      Location loc = store.getLoc();
      int64_t size = piece.end - piece.begin;
      Value from = createSlab(builder, loc, source, dim, piece.begin, size);
      Value to =
          createSlab(builder, loc, store.getTarget(), dim, piece.begin, size);
      auto dma = DmaOp::create(builder, loc, from, to, store.getChannelAttr());
      dma->setDiscardableAttrs(store->getDiscardableAttrDictionary());
      at = dma;
      tokens.push_back(dma.getToken());
    }
    replaceTransfer(store, tokens);
    ++numSplit;
  }
};

} // namespace
} // namespace mlir::tessel
