//===- CheckSynchronization.cpp - No emitted program can deadlock ---------===//
//
// Cores are straight-line and synchronize only through semaphores: a signal
// adds to a semaphore, and only the semaphore's own tile waits on it and
// takes from it. Running a core further never stops another from running
// (signals only add, and what a wait takes no other core could take), so
// running every core as far as it can, until none can move, decides whether
// the program can deadlock, whatever the timing: if a core is left waiting,
// it waits forever on every execution. (Token waits cannot deadlock: each
// waits for a transfer its own core started earlier.)
//
// A tessel.dma_multicast's credits are taken by its DMA channel while the
// core goes on; they are run here as the core's own waits before the
// transfer, which the ISA asks every program to survive (docs/isa.md): the
// emulators run them so, and the channel's wait only lets the core further.
//
// A transfer into another tile's SRAM (a tessel.dma, or a target of a
// tessel.dma_multicast) must be followed by a signal to that tile: it is
// the only way the tile can learn that the data has arrived, so without one
// the tile would read its buffer unsynchronized.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCHECKSYNCHRONIZATION
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// One signal or wait of a core: a tessel.signal, a tessel.wait_semaphore,
/// or credit #`credit` of a tessel.dma_multicast (a wait for 1).
struct SyncEvent {
  Operation *op;
  Value semaphore;
  int64_t count;
  bool isSignal;
  std::optional<unsigned> credit = std::nullopt;
};

/// A core's synchronization events, in order, and how far it has run.
struct CoreRun {
  CoreOp core;
  SmallVector<SyncEvent> events;
  size_t next = 0;

  bool done() const { return next == events.size(); }
};

std::string describeTile(TileOp tile) {
  return "(" + std::to_string(tile.getRow()) + ", " +
         std::to_string(tile.getCol()) + ")";
}

struct CheckSynchronization
    : impl::TesselCheckSynchronizationBase<CheckSynchronization> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](DeviceOp device) {
      return failed(check(device)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// Every transfer of `core` into another tile's SRAM is followed by a
  /// signal to a semaphore of that tile.
  LogicalResult checkDeliveries(CoreOp core) {
    TileOp own = core.getTileOp();
    DenseMap<Operation *, Operation *> lastSignal;
    Block &body = core.getBody().front();
    for (Operation &op : body)
      if (auto signal = dyn_cast<SignalOp>(op))
        if (auto semaphore = signal.getSemaphore().getDefiningOp<SemaphoreOp>())
          lastSignal[semaphore.getTileOp()] = &op;
    for (Operation &op : body) {
      SmallVector<Value> targets;
      if (auto dma = dyn_cast<DmaOp>(op))
        targets.push_back(dma.getTarget());
      else if (auto multicast = dyn_cast<DmaMulticastOp>(op))
        llvm::append_range(targets, multicast.getTargets());
      for (Value target : targets) {
        BufferOp buffer = getSramBuffer(target);
        TileOp tile = buffer ? buffer.getTileOp() : TileOp();
        if (!tile || tile == own)
          continue;
        Operation *signal = lastSignal.lookup(tile);
        if (signal && op.isBeforeInBlock(signal))
          continue;
        ++numUnsignalledDeliveries;
        return op.emitOpError()
               << "delivers into the SRAM of tile " << describeTile(tile)
               << " but the core of tile " << describeTile(own)
               << " signals no semaphore of that tile afterwards, so it "
                  "cannot know when the data has arrived; signal it after "
                  "the transfer";
      }
    }
    return success();
  }

  LogicalResult check(DeviceOp device) {
    for (CoreOp core : device.getBody().front().getOps<CoreOp>())
      if (failed(checkDeliveries(core)))
        return failure();
    DenseMap<Value, int64_t> value;
    SmallVector<CoreRun> runs;
    for (Operation &op : device.getBody().front()) {
      if (auto semaphore = dyn_cast<SemaphoreOp>(op))
        value[semaphore.getResult()] = semaphore.getInit();
      if (auto core = dyn_cast<CoreOp>(op)) {
        CoreRun run{core, {}};
        core.walk([&](Operation *nested) {
          if (auto signal = dyn_cast<SignalOp>(nested))
            run.events.push_back(
                {nested, signal.getSemaphore(), signal.getCount(), true});
          else if (auto wait = dyn_cast<WaitSemaphoreOp>(nested))
            run.events.push_back(
                {nested, wait.getSemaphore(), wait.getCount(), false});
          else if (auto multicast = dyn_cast<DmaMulticastOp>(nested))
            for (auto [index, credit] :
                 llvm::enumerate(multicast.getCredits()))
              run.events.push_back({nested, credit, 1, false,
                                    static_cast<unsigned>(index)});
        });
        runs.push_back(std::move(run));
      }
    }

    // Run every core until it waits for more than its semaphore holds;
    // repeat while any core moved.
    bool moved = true;
    while (moved) {
      moved = false;
      for (CoreRun &run : runs) {
        while (!run.done()) {
          const SyncEvent &event = run.events[run.next];
          int64_t &held = value[event.semaphore];
          if (event.isSignal) {
            held += event.count;
          } else {
            if (held < event.count)
              break;
            held -= event.count;
          }
          ++run.next;
          moved = true;
        }
      }
    }

    // Report every core left waiting, with what its semaphore holds.
    bool deadlocked = false;
    for (CoreRun &run : runs) {
      if (run.done())
        continue;
      const SyncEvent &wait = run.events[run.next];
      InFlightDiagnostic diag = wait.op->emitOpError() << "would wait forever: ";
      if (wait.credit)
        diag << "the DMA engine of tile " << describeTile(run.core.getTileOp())
             << " waits for credit #" << *wait.credit << ", ";
      else
        diag << "the core of tile " << describeTile(run.core.getTileOp())
             << " waits ";
      diag << "for " << wait.count << " on its semaphore, which can only reach "
          << value[wait.semaphore]
          << " (every signal the other cores can send has arrived); the "
             "program would deadlock";
      for (CoreRun &other : runs)
        if (&other != &run && !other.done())
          diag.attachNote(other.events[other.next].op->getLoc())
              << "tile " << describeTile(other.core.getTileOp())
              << " is stuck here too";
      deadlocked = true;
      ++numDeadlocks;
      break; // one error per device; the notes name the other cores
    }
    return failure(deadlocked);
  }
};

} // namespace
} // namespace mlir::tessel
