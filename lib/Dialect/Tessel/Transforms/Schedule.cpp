//===- Schedule.cpp - Double buffering within each core -------------------===//
//
// As lowered, a core loads a step's operands, waits, computes, stores and
// waits again, so its DMA engine and its compute units take turns. This pass
// overlaps them: each load (from DRAM, or of a slice a tile keeps on chip)
// is issued one step early, while the previous step computes, and its wait
// moves to the first instruction that reads what it loaded. The load's SRAM
// buffer is then allocated while the previous step's buffers are still
// live, which is the second buffer that `tessel-tile-for-sram` reserved
// room for.
//
// A load is never moved across synchronization (a wait orders it with other
// tiles' writes) or a fence (into another op, whose buffers the step sizes
// did not count), nor above the completion of a store of this tile to the
// same DRAM buffer (it could read stale data), nor by more than one step
// (but see below).
//
// Stores overlap too: the wait of a store to DRAM (and the release of the
// buffer it stores) moves down to the next store, so one output slice
// drains while the next is computed. It stops earlier at synchronization (a
// signal must follow the data it announces), at a fence, at a load of the
// DRAM buffer it writes, and at anything that touches the buffer it reads.
// The buffer then lives on into the next slice's steps; the step sizes
// count two steps of every operand, outputs included, but where the core's
// buffers would no longer fit its SRAM as tessel-allocate-sram places them,
// the core keeps its stores waited where they were issued.
//
// An op's part that shares its loads with other tiles over many steps loads
// every step after the first together, once the first step's loads have
// arrived: a shared load's handshake (the leader waits for every receiver's
// credit, each receiver for the delivery) then runs once ahead of the
// compute instead of at every step, where the slowest tile held the others
// back. Where the buffers would not fit, the core keeps its loads one step
// ahead.
//
// A load of a weight or a constant (which no core writes) that opens an op's
// part also moves above the waits for other tiles before the part (but
// after the tile's signals there): it runs while the tile waits, instead of
// after (where the buffers would not fit, the core keeps it where it was).
// Where no other tile reads what it loads (tessel-share-loads then leaves
// it a plain transfer, which waits for no one), it moves on up into the
// previous ops' parts, to just after the tile's last read of DRAM there
// and the transfers issued with it: the tile issues it once it has issued
// what the ops before read from DRAM, and the DRAM channels carry it while
// the tile computes, stores or waits for the others, instead of idling
// until the op starts (ResNet-18's classifier on tessel-16x16 loaded its
// 2 MB of weights only after the average pooling's barriers). Marked
// `tessel.issued_early`, it keeps a DMA channel to itself until it is
// waited for (tessel-assign-dma-channels), so the transfers it passes do
// not queue behind it. The loads of each op's part move together, and stay
// where they were if the core's buffers would not fit.
//
// A weight load other tiles read too moves so as well, where every core
// that may share it moves it alike, after a read of DRAM of the same op
// (its leader then waits for its receivers' credits inside that op, which
// they all reach), and where that op stores nothing to DRAM after the
// read, or stores less than the loads after compute that outlasts them
// (`computesBeforeStores`). Behind the first step's loads of BERT's FFN on
// tessel-16x16 the DRAM idled while the op before ended; the first weight
// panels now load then, and a convolution's weights load during the last
// step of the convolution before it. Where that op stores after the read
// otherwise (a layer norm's
// normalization), they may go further up, past the ops that read and
// store little, to the end of the last op that read DRAM in earnest (its
// signals, before any later wait): the FFN's first panels then load during
// its layer norm, which reads its input on chip. The fences are removed
// afterwards.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/DramWindows.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/SramPlacement.h"
#include "tessel/Dialect/Tessel/Transforms/TransferOrder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <set>
#include <tuple>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSCHEDULE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `view` is a slice a tile keeps on chip (tessel-keep-on-chip),
/// another's or this one's: a tessel.buffer not yet placed.
bool isKeptSlice(Value view) {
  auto buffer = getViewRoot(view).getDefiningOp<BufferOp>();
  return buffer && !buffer.getAddress();
}

/// A transfer into this tile's SRAM from DRAM or from a slice a tile keeps
/// on chip.
bool isLoad(DmaOp dma) {
  return (isInSpace(dma.getSource(), MemorySpace::dram) ||
          isKeptSlice(dma.getSource())) &&
         isInSpace(dma.getTarget(), MemorySpace::sram);
}

/// A transfer into this tile's SRAM from DRAM.
bool isDramLoad(DmaOp dma) {
  return isLoad(dma) && !isKeptSlice(dma.getSource());
}

/// A transfer from this tile's SRAM into DRAM.
bool isStore(DmaOp dma) {
  return isInSpace(dma.getSource(), MemorySpace::sram) &&
         isInSpace(dma.getTarget(), MemorySpace::dram);
}

/// The op number `op` is marked with for tessel-share-loads; null where
/// it is not marked.
IntegerAttr getShareGroup(Operation *op) {
  return op->getAttrOfType<IntegerAttr>(TesselDialect::getShareAttrName());
}

/// Adds to `ops` the address ops in `block` that `values` are computed by,
/// directly or through each other.
void addAddressOps(ValueRange values, Block &block,
                   llvm::SmallPtrSetImpl<Operation *> &ops) {
  SmallVector<Value> worklist(values);
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == &block && isAddressOp(def) &&
        ops.insert(def).second)
      worklist.append(def->operand_begin(), def->operand_end());
  }
}

/// The loads marked for sharing (tessel-share-loads) whose box of their
/// DRAM buffer no other tile's load of their op overlaps: tessel-share-loads
/// leaves them plain transfers, which wait for no other tile. A load whose
/// box cannot be told counts as read by others.
llvm::DenseSet<Operation *> getLoadsReadAlone(ModuleOp module) {
  struct Box {
    DramWindow window;
    Operation *core;
    Operation *load;
  };
  // (share group, DRAM buffer) -> the boxes of its marked loads.
  std::map<std::pair<int64_t, Operation *>, SmallVector<Box>> byBuffer;
  llvm::DenseSet<Operation *> unknown;
  module.walk([&](DmaOp dma) {
    IntegerAttr group = getShareGroup(dma);
    if (!group || !isInSpace(dma.getSource(), MemorySpace::dram))
      return;
    Operation *root = getViewRoot(dma.getSource()).getDefiningOp();
    std::optional<DramWindow> box = getDramBox(dma.getSource());
    if (!box) {
      unknown.insert(root);
      return;
    }
    byBuffer[{group.getInt(), root}].push_back(
        {std::move(*box), dma->getParentOfType<CoreOp>(), dma});
  });
  llvm::DenseSet<Operation *> alone;
  for (auto &[key, boxes] : byBuffer) {
    if (unknown.contains(key.second))
      continue;
    // Sorted by their start along the buffer's first dimension, a box
    // overlaps only boxes that start before it ends there.
    llvm::sort(boxes, [](const Box &a, const Box &b) {
      return a.window.lo.front() < b.window.lo.front();
    });
    SmallVector<bool> shared(boxes.size(), false);
    for (size_t i = 0; i < boxes.size(); ++i)
      for (size_t j = i + 1; j < boxes.size() &&
                             boxes[j].window.lo.front() < boxes[i].window.hi.front();
           ++j)
        if (boxes[i].core != boxes[j].core &&
            boxes[i].window.overlaps(boxes[j].window))
          shared[i] = shared[j] = true;
    for (auto [box, isShared] : llvm::zip_equal(boxes, shared))
      if (!isShared)
        alone.insert(box.load);
  }
  return alone;
}

struct Schedule : impl::TesselScheduleBase<Schedule> {
  using TesselScheduleBase::TesselScheduleBase;

  void runOnOperation() override {
    // The DRAM buffers some core stores into: not read-only, whatever their
    // kind.
    llvm::DenseSet<Value> written;
    getOperation().walk([&](DmaOp dma) {
      if (isStore(dma))
        written.insert(getViewRoot(dma.getTarget()));
    });
    llvm::DenseSet<Operation *> readAlone = getLoadsReadAlone(getOperation());
    SmallVector<CoreOp> cores;
    getOperation().walk([&](CoreOp core) {
      cores.push_back(core);
      Block &block = core.getBody().front();
      sinkLoadWaits(block);
      hoistLoads(block);
      SmallVector<Operation *> order = getOrder(block);
      unsigned together = loadLaterStepsTogether(block);
      if (together && !sramBuffersFit(core)) {
        restoreOrder(block, order);
        block.walk([](DmaOp dma) {
          dma->removeAttr(TesselDialect::getLoadedTogetherAttrName());
        });
        together = 0;
      }
      numPartsLoadedTogether += together;
      order = getOrder(block);
      unsigned sunk = sinkStoreWaits(block);
      if (sunk && !sramBuffersFit(core)) {
        restoreOrder(block, order);
        sunk = 0;
      }
      numStoreWaitsSunk += sunk;
      order = getOrder(block);
      unsigned early = hoistReadOnlyLoadsAboveWaits(block, written);
      if (early && !sramBuffersFit(core)) {
        restoreOrder(block, order);
        early = 0;
      }
      numLoadsAboveWaits += early;
    });
    numLoadsIntoPreviousOps += hoistLoadsIntoPreviousOps(cores, written,
                                                         readAlone);
    for (CoreOp core : cores)
      for (FenceOp fence : llvm::make_early_inc_range(
               core.getBody().front().getOps<FenceOp>()))
        fence.erase();
  }

  static SmallVector<Operation *> getOrder(Block &block) {
    return llvm::map_to_vector(block, [](Operation &op) { return &op; });
  }

  /// Moves `ops` in their order to just after `after` (null: the start of
  /// `block`), one after the other, without querying the block's order
  /// (which each move invalidates). Returns the last one moved.
  static Operation *moveInOrderAfter(ArrayRef<Operation *> ops,
                                     Operation *after, Block &block) {
    for (Operation *op : ops) {
      if (after)
        op->moveAfter(after);
      else
        op->moveBefore(&block.front());
      after = op;
    }
    return after;
  }

  /// Moves `load`, and the address ops it needs that lie between `at` and
  /// it (those above `at` dominate it already), in order to just after `at`
  /// (null: the start of `block`). Returns `load`.
  static Operation *moveWithAddressOps(DmaOp load, Operation *at,
                                       Block &block) {
    llvm::SmallPtrSet<Operation *, 8> needed;
    addAddressOps(load->getOperands(), block, needed);
    SmallVector<Operation *> moved;
    for (Operation *op = at ? at->getNextNode() : &block.front(); op != load;
         op = op->getNextNode())
      if (needed.contains(op))
        moved.push_back(op);
    moved.push_back(load);
    return moveInOrderAfter(moved, at, block);
  }

  /// Whether `op` may lie between an op part's synchronization and the
  /// loads that open the part: an address op, a deallocation or another
  /// load.
  static bool mayPrecedeOpeningLoads(Operation *op) {
    auto dma = dyn_cast<DmaOp>(op);
    return isAddressOp(op) || isa<memref::DeallocOp>(op) ||
           (dma && isLoad(dma));
  }

  static void restoreOrder(Block &block, ArrayRef<Operation *> order) {
    for (Operation *op : order)
      op->moveBefore(&block, block.end());
  }

  /// Moves the wait of each load to the first instruction that touches the
  /// loaded buffer.
  void sinkLoadWaits(Block &block) {
    SmallVector<WaitOp> waits;
    for (auto wait : block.getOps<WaitOp>())
      waits.push_back(wait);
    for (WaitOp wait : waits) {
      SmallVector<Value> buffers;
      for (Value token : wait.getTokens()) {
        auto dma = token.getDefiningOp<DmaOp>();
        if (dma && isLoad(dma))
          buffers.push_back(getViewRoot(dma.getTarget()));
      }
      // A store's wait stays where the lowering put it.
      if (buffers.size() != wait.getTokens().size())
        continue;
      auto isBuffer = [&](Value v) { return llvm::is_contained(buffers, v); };
      // The first op that reads a loaded buffer, frees it, or synchronizes.
      Operation *firstUse = nullptr;
      for (Operation *op = wait->getNextNode(); op && !firstUse;
           op = op->getNextNode()) {
        auto dealloc = dyn_cast<memref::DeallocOp>(op);
        if (llvm::any_of(buffers, [&](Value b) { return touchesBuffer(op, b); }) ||
            (dealloc && isBuffer(dealloc.getMemref())) ||
            isa<SignalOp, WaitSemaphoreOp>(op) ||
            op->hasTrait<OpTrait::IsTerminator>())
          firstUse = op;
      }
      if (firstUse && firstUse != wait->getNextNode()) {
        wait->moveBefore(firstUse);
        ++numWaitsSunk;
      }
    }
  }

  /// Moves the wait of each store to DRAM, and the deallocs of the buffers
  /// it stores, down to the next store or the first op that must follow
  /// the store's completion; returns how many waits moved.
  unsigned sinkStoreWaits(Block &block) {
    SmallVector<WaitOp> waits;
    for (auto wait : block.getOps<WaitOp>())
      waits.push_back(wait);
    unsigned sunk = 0;
    for (WaitOp wait : waits) {
      SmallVector<Value> buffers, written;
      for (Value token : wait.getTokens()) {
        auto dma = token.getDefiningOp<DmaOp>();
        if (!dma || !isStore(dma))
          break;
        buffers.push_back(getViewRoot(dma.getSource()));
        written.push_back(getViewRoot(dma.getTarget()));
      }
      if (buffers.size() != wait.getTokens().size())
        continue;
      auto isBuffer = [&](Value v) { return llvm::is_contained(buffers, v); };
      SmallVector<Operation *> released;
      Operation *stop = nullptr;
      bool passes = false; // an op other than the releases goes before it
      for (Operation *op = wait->getNextNode(); op && !stop;
           op = op->getNextNode()) {
        if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
          if (isBuffer(dealloc.getMemref())) {
            released.push_back(op);
            continue;
          }
        }
        auto dma = dyn_cast<DmaOp>(op);
        bool readsWritten =
            dma && isLoad(dma) &&
            llvm::is_contained(written, getViewRoot(dma.getSource()));
        auto gather = dyn_cast<DmaGatherOp>(op);
        bool gathersWritten =
            gather && llvm::is_contained(written, getViewRoot(gather.getTable()));
        if ((dma && isStore(dma)) || readsWritten || gathersWritten ||
            llvm::any_of(buffers, [&](Value b) { return touchesBuffer(op, b); }) ||
            isa<SignalOp, WaitSemaphoreOp, FenceOp, DmaMulticastOp>(op) ||
            op->hasTrait<OpTrait::IsTerminator>())
          stop = op;
        else
          passes = true;
      }
      if (!passes)
        continue;
      Block::iterator at = stop ? stop->getIterator() : block.end();
      wait->moveBefore(&block, at);
      for (Operation *dealloc : released)
        dealloc->moveBefore(&block, at);
      ++sunk;
    }
    return sunk;
  }

  /// Where a load may be issued earliest: just after the last op it must
  /// follow (null: the start of the block), scanning back from the load.
  /// `moved` gets the address ops the load needs that lie in between,
  /// in block order: they move with it. The scan stops at `stopAt` too;
  /// with `anyStep` it goes on past the previous step's loads.
  Operation *getEarliestPoint(DmaOp load, SmallVectorImpl<Operation *> &moved,
                              Operation *stopAt = nullptr,
                              bool anyStep = false) {
    Value source = getViewRoot(load.getSource());
    Value target = getViewRoot(load.getTarget());
    llvm::SmallPtrSet<Operation *, 8> operandDefs;
    SmallVector<Value> worklist(load->getOperands());
    // The fill of a padded window's border goes with the load into the
    // rest of the buffer: tessel-lower-to-instructions puts it just before
    // the load, with only the load's views between them.
    for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
      if (isAddressOp(op))
        continue;
      auto fill = dyn_cast<VectorFillOp>(op);
      if (!fill || getViewRoot(fill.getResult()) != target)
        break;
      operandDefs.insert(fill);
      worklist.push_back(fill.getResult());
    }
    addAddressOps(worklist, *load->getBlock(), operandDefs);
    Operation *earliest = getEarliestPointAmong(load, operandDefs, source,
                                                target, stopAt, anyStep);
    for (Operation *op = load->getPrevNode(); op != earliest;
         op = op->getPrevNode())
      if (operandDefs.contains(op))
        moved.push_back(op);
    std::reverse(moved.begin(), moved.end());
    return earliest;
  }

  Operation *
  getEarliestPointAmong(DmaOp load,
                        const llvm::SmallPtrSetImpl<Operation *> &operandDefs,
                        Value source, Value target, Operation *stopAt,
                        bool anyStep) {
    bool crossedCompute = false;
    for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
      if (op == stopAt)
        return op;
      if (operandDefs.contains(op))
        continue; // moves with the load
      // Synchronization orders the load with other tiles' writes; a fence
      // ends the op's part; and the target must not be in use (a buffer
      // allocated before the load).
      if (isa<SignalOp, WaitSemaphoreOp, FenceOp>(op) || touchesBuffer(op, target))
        return op;
      if (auto wait = dyn_cast<WaitOp>(op)) {
        for (Value token : wait.getTokens()) {
          auto dma = token.getDefiningOp<DmaOp>();
          // The previous step's operands: one step ahead at most.
          if (dma && isLoad(dma) && crossedCompute && !anyStep)
            return op;
          // A store to the buffer read: the load must see its data.
          if (dma && !isLoad(dma) && getViewRoot(dma.getTarget()) == source)
            return op;
        }
        continue;
      }
      if (auto dma = dyn_cast<DmaOp>(op)) {
        if (!isLoad(dma) && getViewRoot(dma.getTarget()) == source)
          return op;
        continue;
      }
      if (!isAddressOp(op) && !isa<memref::DeallocOp>(op))
        crossedCompute = true;
    }
    return nullptr; // the start of the core
  }

  /// Whether `load` reads a weight or a constant that no core writes (is
  /// not in `written`).
  static bool readsReadOnlyBuffer(DmaOp load,
                                  const llvm::DenseSet<Value> &written) {
    Value root = getViewRoot(load.getSource());
    auto buffer = root.getDefiningOp<DramBufferOp>();
    return buffer && !written.contains(root) &&
           (buffer.getKind() == DramBufferKind::weight ||
            buffer.getKind() == DramBufferKind::constant);
  }

  /// Moves each load of a weight or a constant (that no core writes) that
  /// an op's part opens with above the waits before it, so that it runs
  /// while the tile waits for the others to finish the previous op; the
  /// previous op's stores are waited for and its buffers freed before.
  /// Returns how many moved.
  unsigned hoistReadOnlyLoadsAboveWaits(Block &block,
                                        const llvm::DenseSet<Value> &written) {
    SmallVector<DmaOp> loads;
    for (auto dma : block.getOps<DmaOp>())
      if (isLoad(dma) && readsReadOnlyBuffer(dma, written))
        loads.push_back(dma);
    unsigned count = 0;
    for (DmaOp load : loads) {
      // The synchronization (and fences) above the load, with only address
      // ops, deallocations and the part's other loads in between. The load
      // goes after the tile's last signal there, before its first wait
      // after it: a shared load's leader waits where its load is for the
      // others' credits, so every signal this tile sends there (its own
      // completion, a first tile's go to the others, a relay's to its row)
      // must come first, or a tile that gives its credit only after its
      // waits would never get it. Only a load that gets ahead of a wait
      // moves (not on a relay, which signals its row after its wait).
      Operation *top = nullptr, *lastSignal = nullptr;
      for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
        if (isa<SignalOp>(op) && !lastSignal)
          lastSignal = op;
        if (isa<SignalOp, WaitSemaphoreOp, FenceOp>(op))
          top = op;
        else if (!mayPrecedeOpeningLoads(op))
          break;
      }
      if (lastSignal)
        for (top = lastSignal->getNextNode();
             top != load && !isa<WaitSemaphoreOp, FenceOp>(top);
             top = top->getNextNode())
          ;
      if (!top || top == load)
        continue;
      // `top` is a wait or a fence: what the load needs after it moves
      // with it.
      moveWithAddressOps(load, top->getPrevNode(), block);
      ++count;
    }
    return count;
  }


  /// Where tessel-share-loads pairs a load marked for sharing with other
  /// cores' loads: its op, its place among its core's marked loads of that
  /// op, and the DRAM buffer it reads.
  using SharingKey = std::tuple<int64_t, size_t, Operation *>;

  /// A load other tiles read too that moved into the ops before its own.
  struct SharedMove {
    DmaOp load;
    /// The op (share group) it follows on the core: after that op's last
    /// read of DRAM, or at the end of its part.
    int64_t after;
  };

  /// The synchronization (or fence) above `load` where `load` is among its
  /// op part's first step's loads: between them lie only address ops,
  /// deallocations, other loads, waits for loads of other DRAM buffers and
  /// compute that does not touch `load`'s buffer (an accumulator's bias
  /// copied in, say). Null where a wait for a load of the same DRAM buffer
  /// (an earlier step's), another transfer or an instruction that touches
  /// the buffer lies between.
  static Operation *getFirstStepTop(DmaOp load) {
    Value source = getViewRoot(load.getSource());
    Value target = getViewRoot(load.getTarget());
    for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<SignalOp, WaitSemaphoreOp, FenceOp>(op))
        return op;
      if (isAddressOp(op) || isa<memref::DeallocOp>(op))
        continue;
      if (auto dma = dyn_cast<DmaOp>(op)) {
        if (!isLoad(dma))
          return nullptr;
        continue;
      }
      if (auto wait = dyn_cast<WaitOp>(op)) {
        for (Value token : wait.getTokens()) {
          auto dma = token.getDefiningOp<DmaOp>();
          if (!dma || !isLoad(dma) || getViewRoot(dma.getSource()) == source)
            return nullptr;
        }
        continue;
      }
      if (isTransfer(op) || touchesBuffer(op, target))
        return nullptr;
    }
    return nullptr;
  }

  /// Whether `load` opens its op's part right below `top`: only address
  /// ops, deallocations and other loads lie between them.
  static bool opensPart(DmaOp load, Operation *top) {
    for (Operation *op = load->getPrevNode(); op != top; op = op->getPrevNode())
      if (!mayPrecedeOpeningLoads(op))
        return false;
    return true;
  }

  /// The end of the op part above `top` that last read DRAM in earnest (a
  /// load marked for sharing of at least `minBytes`, of another op than
  /// `own`, the last above `top`): the last of the signals that follow
  /// that load, and its share group. No wait for other tiles lies between
  /// the load and that point, so a core reaches it once it has passed the
  /// op's own waits, whatever the other cores do after theirs (a tile that
  /// gathers the op's signals waits for them right after); a shared load
  /// placed there on every core that may share it (the caller checks that
  /// they agree on the op) waits for credits that all arrive. Null where a
  /// gather lies between, where a wait or a fence comes first after the
  /// load, or where its signals end at `top` (no op lies between).
  static std::pair<Operation *, IntegerAttr>
  getEndOfLastDramReader(Operation *top, IntegerAttr own, int64_t minBytes) {
    for (Operation *op = top->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<DmaGatherOp>(op))
        return {};
      auto dma = dyn_cast<DmaOp>(op);
      if (!dma || !isDramLoad(dma))
        continue;
      IntegerAttr group = getShareGroup(dma);
      if (!group || group == own || getTransferBytes(dma) < minBytes)
        continue;
      Operation *end = op->getNextNode();
      while (end != top && !isa<SignalOp, WaitSemaphoreOp, FenceOp>(end))
        end = end->getNextNode();
      if (end == top || !isa<SignalOp>(end))
        return {};
      while (end->getNextNode() != top && isa<SignalOp>(end->getNextNode()))
        end = end->getNextNode();
      return {end, group};
    }
    return {};
  }

  /// Whether the ops between `from` and `to` do some work (transfers or
  /// compute, not only synchronization) that shared loads of `bytes` moved
  /// to `from` would not slow by more than they gain: the ops move less
  /// than an eighth of `bytes` to and from DRAM, and `bytes` is at least
  /// twice what the ops' transfers could move in their DMA setups
  /// (`setupBytes` each). A leader's early multicast keeps a DMA channel
  /// to itself until its op, so the ops' transfers queue on the others,
  /// each behind another's setup (BERT's layer on tessel-16x16: its first
  /// layer norm, 41 transfers a tile, ran 700 cycles longer), against the
  /// moved bytes' own time, which their op no longer waits for.
  static bool onlyLightOpsBetween(Operation *from, Operation *to,
                                  int64_t bytes, int64_t setupBytes) {
    int64_t dram = 0, transfers = 0;
    bool works = false;
    for (Operation *op = from->getNextNode(); op != to;
         op = op->getNextNode()) {
      if (isAddressOp(op) || isa<memref::DeallocOp, SignalOp, WaitSemaphoreOp,
                                 FenceOp, WaitOp>(op))
        continue;
      works = true;
      if (!isTransfer(op))
        continue;
      if (isa<DmaGatherOp, DmaMulticastOp>(op))
        return false;
      ++transfers;
      auto dma = cast<DmaOp>(op);
      if (isStore(dma) || isDramLoad(dma))
        dram += getTransferBytes(dma);
    }
    return works && 8 * dram < bytes && bytes >= 2 * transfers * setupBytes;
  }

  /// Whether shared loads of `bytes` issued right after `from` would leave
  /// the DRAM to the stores to DRAM between `from` and `to`: there are
  /// none, or they move fewer bytes than the loads, and the MAC-array
  /// blocks before the first of them stream at least as long as the loads
  /// take at one DMA channel's rate, so the loads run while the DRAM would
  /// idle. The early multicast otherwise takes DRAM from the stores the
  /// next barrier waits for: with any stores allowed (and the moves of any
  /// part passing small plain loads), BERT's layer on tessel-16x16 (72 KB
  /// of panels over 832 cycles of blocks) ran 101,860 -> 103,081 cycles.
  static bool computesBeforeStores(Operation *from, Operation *to,
                                   int64_t bytes, ArchAttr arch) {
    int64_t stored = 0, computed = 0;
    for (Operation *op = from->getNextNode(); op != to;
         op = op->getNextNode()) {
      if (auto dma = dyn_cast<DmaOp>(op); dma && isStore(dma))
        stored += getTransferBytes(dma);
      else if (auto block = dyn_cast<MatmulOp>(op); block && !stored)
        computed += getRunBlockCycles(block, arch);
    }
    return !stored || (stored < bytes &&
                       computed * arch.getTransferBytesPerCycle() >= bytes);
  }

  /// Moves the weight and constant loads that open ops' parts into the ops
  /// before, on every core (`hoistLoadsIntoPreviousOpsOf`), and returns how
  /// many moved. A load other tiles read too moves only where each load
  /// tessel-share-loads may pair it with moves, and on every core after a
  /// read of DRAM of the same op or at the end of its part, with no wait
  /// for other tiles between that op's read and the load: its leader then
  /// waits for its receivers' credits where every receiver arrives without
  /// waiting for the leader's later signals. The loads it passes keep their places
  /// in their cores' order only where they do in every core, so that
  /// tessel-share-loads pairs the same loads. Where an op's shared loads
  /// would break one of these, none of them moves, and the cores' moves are
  /// made again without them.
  unsigned
  hoistLoadsIntoPreviousOps(ArrayRef<CoreOp> cores,
                            const llvm::DenseSet<Value> &written,
                            const llvm::DenseSet<Operation *> &readAlone) {
    // Per marked load, its sharing key in its core's order now.
    auto getKeys = [&] {
      llvm::DenseMap<Operation *, SharingKey> keys;
      for (CoreOp core : cores) {
        std::map<int64_t, size_t> next;
        core.walk([&](DmaOp dma) {
          if (IntegerAttr group = getShareGroup(dma))
            keys[dma] = {group.getInt(), next[group.getInt()]++,
                         getViewRoot(dma.getSource()).getDefiningOp()};
        });
      }
      return keys;
    };
    llvm::DenseMap<Operation *, SharingKey> keys = getKeys();
    std::set<int64_t> kept;
    while (true) {
      SmallVector<SmallVector<Operation *>> orders;
      SmallVector<SharedMove> moves;
      SmallVector<Operation *> marked;
      unsigned count = 0;
      for (CoreOp core : cores) {
        orders.push_back(getOrder(core.getBody().front()));
        count += hoistLoadsIntoPreviousOpsOf(core, written, readAlone, kept,
                                             moves, marked);
      }
      llvm::DenseSet<Operation *> moved;
      std::map<int64_t, std::set<int64_t>> afterOps;
      for (auto [load, after] : moves) {
        moved.insert(load);
        afterOps[std::get<0>(keys.lookup(load))].insert(after);
      }
      // Per place of a shared load before the moves, and per place after
      // them (where tessel-share-loads pairs it): whether the loads there
      // moved, and (before) where they went.
      std::map<SharingKey, std::set<std::pair<bool, size_t>>> before;
      std::map<SharingKey, std::set<bool>> after;
      llvm::DenseMap<Operation *, SharingKey> now = getKeys();
      for (auto &[load, key] : keys) {
        if (readAlone.contains(load))
          continue;
        SharingKey place = now.lookup(load);
        before[key].insert({moved.contains(load), std::get<1>(place)});
        after[place].insert(moved.contains(load));
      }
      std::set<int64_t> failing;
      for (auto &[key, outcome] : before)
        if (outcome.size() > 1)
          failing.insert(std::get<0>(key));
      for (auto &[key, outcome] : after)
        if (outcome.size() > 1)
          failing.insert(std::get<0>(key));
      for (auto &[group, ops] : afterOps)
        if (ops.size() > 1)
          failing.insert(group);
      if (failing.empty())
        return count;
      for (auto [core, order] : llvm::zip_equal(cores, orders))
        restoreOrder(CoreOp(core).getBody().front(), order);
      for (Operation *load : marked)
        load->removeAttr(TesselDialect::getIssuedEarlyAttrName());
      // No marked load of a failing op moves again, so each round keeps at
      // least one op more in place.
      kept.insert(failing.begin(), failing.end());
    }
  }

  /// Moves the loads of weights and constants that open an op's part on
  /// `core` up to just after the tile's last read of DRAM before it (a
  /// load, a multicast, a gather) and the transfers issued with it, marked
  /// `tessel.issued_early`, one part at a time (the pass's description says
  /// why), and back where the core's buffers would not fit. Loads other
  /// tiles read too (not in `readAlone`) may be among the first step's
  /// loads behind compute that leaves their buffers alone (a bias copied
  /// into the accumulator); they move only after a load of an op marked
  /// for sharing, with no store to DRAM after it in that op but after
  /// compute that hides them (`computesBeforeStores`), not past a wait for
  /// other tiles or a fence; where that op stores after it, to the end of
  /// the last op before that read DRAM in earnest, past ops that read and
  /// store little (`onlyLightOpsBetween`). No marked load of the ops in `kept`
  /// moves; where the buffers would not fit right after that read, they go
  /// lower, after the buffers the op before frees. Returns how many loads
  /// moved, and adds the shared ones to `sharedMoves`.
  unsigned hoistLoadsIntoPreviousOpsOf(
      CoreOp core, const llvm::DenseSet<Value> &written,
      const llvm::DenseSet<Operation *> &readAlone,
      const std::set<int64_t> &kept, SmallVectorImpl<SharedMove> &sharedMoves,
      SmallVectorImpl<Operation *> &marked) {
    // A load issued early keeps a DMA channel to itself
    // (tessel-assign-dma-channels): the ops before need another. A tile
    // with DRAM channels of its own has its transfers cut over named DMA
    // channels (tessel-split-transfers), which no load could keep.
    ArchAttr arch = lookupArch(core);
    TileOp tile = core.getTileOp();
    if (arch.getTileDmaChannels() < 2 ||
        arch.getSplitChannels(tile.getRow(), tile.getCol()) > 1)
      return 0;
    Block &block = core.getBody().front();
    // The loads of a part's first step, grouped by the synchronization
    // above them. A load no other tile reads moves only ahead of the
    // part's marked loads that stay, so that each core keeps its op's
    // marked loads in the order tessel-share-loads pairs them by; a shared
    // one may pass them (the caller checks that every core does alike).
    // A shared load that moves fewer bytes than a transfer's fixed cost
    // stays: its handshake would hold its leader inside the op before for
    // little.
    struct OpeningLoads {
      SmallVector<DmaOp> loads;
      bool stopped = false;
    };
    auto isShared = [&](DmaOp dma) {
      return getShareGroup(dma) && !readAlone.contains(dma);
    };
    int64_t fixedBytes = arch.getFixedTransferBytes();
    int64_t setupBytes = arch.getSetupTransferBytes();
    llvm::MapVector<Operation *, OpeningLoads> parts;
    for (auto dma : block.getOps<DmaOp>()) {
      if (!isDramLoad(dma))
        continue;
      Operation *top = getFirstStepTop(dma);
      if (!top)
        continue;
      bool shared = isShared(dma);
      if (!shared && !opensPart(dma, top))
        continue;
      OpeningLoads &part = parts[top];
      IntegerAttr group = getShareGroup(dma);
      // Its buffer is allocated in the part (so nothing the load passes
      // uses it) and not resident across a stream's inputs (loaded once);
      // a load loaded together with its op's later steps may be read for
      // another tile (tessel-share-loads).
      Operation *target = getViewRoot(dma.getTarget()).getDefiningOp();
      bool movable =
          (!group || !kept.count(group.getInt())) &&
          (!shared || getTransferBytes(dma) >= fixedBytes) &&
          readsReadOnlyBuffer(dma, written) &&
          !dma->hasAttr(TesselDialect::getLoadedTogetherAttrName()) &&
          isa_and_nonnull<memref::AllocOp>(target) &&
          target->getBlock() == &block && top->isBeforeInBlock(target) &&
          !target->hasAttr(TesselDialect::getResidentAttrName());
      if (!movable)
        part.stopped |= static_cast<bool>(group);
      else if (shared || !part.stopped)
        part.loads.push_back(dma);
    }
    unsigned count = 0;
    for (auto &[top, part] : parts) {
      SmallVector<DmaOp> &loads = part.loads;
      if (loads.empty())
        continue;
      // The op, where the part's loads are marked: its own loads above the
      // part (moved above its waits) are not the ops before.
      IntegerAttr op;
      for (DmaOp load : loads)
        if ((op = getShareGroup(load)))
          break;
      // The last transfer above the part that reads DRAM.
      Operation *read = top->getPrevNode();
      for (; read; read = read->getPrevNode()) {
        auto dma = dyn_cast<DmaOp>(read);
        auto multicast = dyn_cast<DmaMulticastOp>(read);
        if (dma && op && getShareGroup(dma) == op)
          continue;
        // Shared loads may pass a plain load shorter than a transfer's fixed
        // cost (a batch norm's parameters): it holds its channel too briefly
        // to matter, and they wait for no one's reads but their op's. The
        // plain loads of a part do not (ResNet-18 on tessel-4x4 ran
        // 1,306,045 -> 1,310,176 cycles with them moved so).
        if (dma && isDramLoad(dma) && !getShareGroup(dma) &&
            getTransferBytes(dma) < fixedBytes && llvm::all_of(loads, isShared))
          continue;
        if ((dma && isDramLoad(dma)) ||
            (multicast &&
             isInSpace(multicast.getSource(), MemorySpace::dram)) ||
            isa<DmaGatherOp>(read))
          break;
      }
      // Shared loads follow a load of an op marked for sharing only, where
      // that op stores nothing to DRAM after it or computes long enough
      // before its stores (`anchorOp`, that op).
      auto readDma = dyn_cast_or_null<DmaOp>(read);
      IntegerAttr anchorOp = readDma ? getShareGroup(readDma) : IntegerAttr();
      int64_t sharedBytes = 0;
      for (DmaOp load : loads)
        if (isShared(load))
          sharedBytes += getTransferBytes(load);
      if (anchorOp && !computesBeforeStores(read, top, sharedBytes, arch))
        anchorOp = IntegerAttr();
      // Otherwise a part whose loads are all shared may go to the end of
      // the last op before that read DRAM in earnest, past ops that read
      // and store it little (a layer norm's).
      Operation *opEnd = nullptr;
      if (!anchorOp && llvm::all_of(loads, isShared)) {
        std::tie(opEnd, anchorOp) =
            getEndOfLastDramReader(top, op, fixedBytes);
        int64_t moved = 0;
        for (DmaOp load : loads)
          moved += getTransferBytes(load);
        if (!opEnd || !onlyLightOpsBetween(opEnd, top, moved, setupBytes)) {
          opEnd = nullptr;
          anchorOp = IntegerAttr();
        }
      }
      if (!anchorOp)
        loads.truncate(llvm::find_if(loads, isShared) - loads.begin());
      if (loads.empty())
        continue;
      // The loads go behind the transfers issued with that read (before
      // anything else runs): those are under way by the time they would
      // queue behind the loads on a channel.
      Operation *after = opEnd ? opEnd : read;
      if (!opEnd)
        for (Operation *next = read ? read->getNextNode() : &block.front();
             next != top && (isTransfer(next) || isAddressOp(next) ||
                             isa<memref::DeallocOp>(next));
             next = next->getNextNode())
          if (isTransfer(next))
            after = next;
      // Shared loads may go lower, after each run of buffers freed, short
      // of the synchronization and fences that end the op before.
      SmallVector<Operation *> places{after};
      if (llvm::any_of(loads, isShared))
        for (Operation *op = after->getNextNode();
             op != top && !isa<WaitSemaphoreOp, FenceOp>(op);
             op = op->getNextNode())
          if (isa<memref::DeallocOp>(op) &&
              !isa<memref::DeallocOp>(op->getNextNode()))
            places.push_back(op);
      bool placed = false;
      for (Operation *place : places) {
        if (place && place->getNextNode() == top)
          continue;
        SmallVector<Operation *> order = getOrder(block);
        Operation *at = place;
        for (DmaOp load : loads)
          at = moveWithAddressOps(load, at, block);
        if (sramBuffersFit(core)) {
          placed = true;
          break;
        }
        restoreOrder(block, order);
      }
      if (!placed)
        continue;
      for (DmaOp load : loads) {
        load->setAttr(TesselDialect::getIssuedEarlyAttrName(),
                      UnitAttr::get(load.getContext()));
        marked.push_back(load);
        if (isShared(load))
          sharedMoves.push_back({load, anchorOp.getInt()});
      }
      count += loads.size();
    }
    return count;
  }

  /// The loads of one op's part on a core, as tessel-lower-to-instructions
  /// and hoistLoads left them: the first step's, waited for just before its
  /// compute, and the later steps'.
  struct PartLoads {
    size_t firstStep = 0;
    SmallVector<DmaOp> laterSteps;
    /// The last wait for a load before the part's first compute.
    Operation *firstWait = nullptr;
    /// Whether a later step's load is shared with other tiles.
    bool shared = false;
    bool computed = false;

    /// The steps, counted as if each loaded what the first does (a step's
    /// loads are the same operands' slices; a part whose first step loads
    /// more, as an operand kept for every step, counts fewer).
    size_t getSteps() const {
      return firstStep ? (firstStep + laterSteps.size()) / firstStep : 0;
    }
  };

  /// The op parts of `block`, split at synchronization and fences.
  static SmallVector<PartLoads> collectParts(Block &block) {
    SmallVector<PartLoads> parts(1);
    for (Operation &op : block) {
      PartLoads &part = parts.back();
      auto dma = dyn_cast<DmaOp>(&op);
      auto wait = dyn_cast<WaitOp>(&op);
      if (isa<SignalOp, WaitSemaphoreOp, FenceOp>(op)) {
        if (part.firstStep)
          parts.emplace_back();
      } else if (dma && isLoad(dma)) {
        if (part.firstWait) {
          part.laterSteps.push_back(dma);
          part.shared |= dma->hasAttr(TesselDialect::getShareAttrName());
        } else {
          ++part.firstStep;
        }
      } else if (wait && !part.computed) {
        if (llvm::any_of(wait.getTokens(), [](Value token) {
              auto load = token.getDefiningOp<DmaOp>();
              return load && isLoad(load);
            }))
          part.firstWait = wait;
      } else if (part.firstWait && !isAddressOp(&op) &&
                 !isa<memref::DeallocOp>(op)) {
        part.computed = true;
      }
    }
    return parts;
  }

  /// Moves the loads of the later steps of each op part that shares its
  /// loads with other tiles over at least `minSharedSteps` steps up to just
  /// after the first step's waits, in order: the handshakes of the shared
  /// loads then run once, ahead of the compute, instead of at every step
  /// (the pass's description says why). Returns how many parts moved; the
  /// caller restores the order where the buffers do not fit.
  unsigned loadLaterStepsTogether(Block &block) {
    unsigned count = 0;
    for (PartLoads &part : collectParts(block)) {
      if (!part.shared || part.getSteps() < minSharedSteps)
        continue;
      bool moves = false;
      Operation *last = part.firstWait;
      for (DmaOp load : part.laterSteps) {
        SmallVector<Operation *> moved;
        Operation *after = getEarliestPoint(load, moved, last,
                                            /*anyStep=*/true);
        if (load->getPrevNode() != after) {
          moved.push_back(load);
          for (Operation *op : moved) {
            op->moveAfter(after);
            after = op;
          }
          moves = true;
        }
        last = load;
      }
      // Marked for tessel-share-loads, which gives their credits first:
      // every shared load of the later steps once any moved.
      if (moves)
        for (DmaOp load : part.laterSteps)
          if (load->hasAttr(TesselDialect::getShareAttrName()))
            load->setAttr(TesselDialect::getLoadedTogetherAttrName(),
                          UnitAttr::get(load.getContext()));
      count += moves;
    }
    return count;
  }

  void hoistLoads(Block &block) {
    SmallVector<DmaOp> loads;
    for (auto dma : block.getOps<DmaOp>())
      if (isLoad(dma))
        loads.push_back(dma);
    for (DmaOp load : loads) {
      SmallVector<Operation *> moved;
      Operation *after = getEarliestPoint(load, moved);
      if (load->getPrevNode() == after)
        continue;
      moved.push_back(load);
      moveInOrderAfter(moved, after, block);
      ++numLoadsHoisted;
    }
  }
};

} // namespace
} // namespace mlir::tessel
