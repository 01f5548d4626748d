//===- ShareLoads.cpp - One DRAM read per slice, multicast to its readers -===//
//
// Tiles of an op split over a rectangle often read the same slice of an
// operand: a matmul split over rows and columns reads each row panel of its
// left operand on every tile of a grid row, and each column panel of its
// right operand on every tile of a grid column. Loaded tile by tile, those
// bytes cross the chip's few DRAM channels once per tile. This pass has one
// tile read them and multicast them into every reader's own buffer.
//
// Which loads are the same is decided per op (the `tessel.share` mark
// tessel-convert-to-device puts on the loads of an op mapped `shared`) and
// per position: the n-th load of the op in each core. Sharing only loads at
// the same position keeps every core's waits in an order that cannot
// deadlock: a tile waits for a credit or a delivery of position n only from
// tiles that reach position n having waited for positions before n alone.
// tessel-check-synchronization still proves it for every program.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <map>
#include <optional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSHARELOADS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// What a load reads, the same however a core spells it: the DRAM buffer
/// and the strided window of it (a view's type carries its offset and
/// strides from the buffer's start); and the type of the buffer it loads
/// into, since one multicast writes every target with the same strides.
using LoadKey = std::tuple<Operation *, Type, Type>;

/// The key of `load`; none when the window is not static or is reached
/// through a byte shift (memref.view), which the type does not show, or
/// when nothing waits for the load (a receiver would have nowhere to wait
/// for its delivery).
std::optional<LoadKey> getLoadKey(DmaOp load) {
  if (load->use_empty() ||
      !llvm::all_of(load->getUsers(), [](Operation *user) {
        return isa<WaitOp>(user);
      }))
    return std::nullopt;
  Value value = load.getSource();
  auto type = cast<MemRefType>(value.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  while (Operation *def = value.getDefiningOp()) {
    if (isa<DramBufferOp>(def))
      return LoadKey{def, type, load.getTarget().getType()};
    if (isa<memref::ViewOp>(def))
      return std::nullopt;
    if (auto transpose = dyn_cast<memref::TransposeOp>(def)) {
      value = transpose.getIn();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return std::nullopt;
    value = view.getViewSource();
  }
  return std::nullopt;
}

/// One core and its marked loads, per op in program order.
struct CoreLoads {
  CoreOp core;
  std::map<int64_t, SmallVector<DmaOp>> byGroup;
};

/// Loads of one position of one op that read the same slice, by core.
struct ShareSet {
  SmallVector<unsigned> cores;
  SmallVector<DmaOp> loads;
};

/// The cores of `device` with their marked loads; failure (reported) when a
/// marked load's buffer has no SRAM address yet.
FailureOr<SmallVector<CoreLoads>> collectLoads(DeviceOp device) {
  SmallVector<CoreLoads> cores;
  for (CoreOp core : device.getBody().front().getOps<CoreOp>()) {
    CoreLoads &entry = cores.emplace_back();
    entry.core = core;
    WalkResult placed = core.walk([&](DmaOp dma) {
      auto group =
          dma->getAttrOfType<IntegerAttr>(TesselDialect::getShareAttrName());
      if (!group)
        return WalkResult::advance();
      if (!getSramBuffer(dma.getTarget())) {
        dma.emitOpError()
            << "loads into a buffer that has no SRAM address yet; run "
               "tessel-allocate-sram before tessel-share-loads, so that "
               "another tile can deliver into it";
        return WalkResult::interrupt();
      }
      entry.byGroup[group.getInt()].push_back(dma);
      return WalkResult::advance();
    });
    if (placed.wasInterrupted())
      return failure();
  }
  return cores;
}

/// The loads at `position` of `group` that more than one core makes, by
/// what they read, in the order of the first core reading it. A set larger
/// than one instruction carries goes in even chunks, each with its own
/// leader.
SmallVector<ShareSet> findSets(ArrayRef<CoreLoads> cores, int64_t group,
                               size_t position) {
  SmallVector<ShareSet> buckets;
  DenseMap<LoadKey, size_t> bucketOf;
  for (auto [index, entry] : llvm::enumerate(cores)) {
    auto it = entry.byGroup.find(group);
    if (it == entry.byGroup.end() || position >= it->second.size())
      continue;
    DmaOp load = it->second[position];
    std::optional<LoadKey> key = getLoadKey(load);
    if (!key)
      continue;
    auto [at, inserted] = bucketOf.try_emplace(*key, buckets.size());
    if (inserted)
      buckets.emplace_back();
    buckets[at->second].cores.push_back(index);
    buckets[at->second].loads.push_back(load);
  }
  SmallVector<ShareSet> sets;
  for (ShareSet &set : buckets) {
    size_t size = set.cores.size();
    size_t chunks = llvm::divideCeil(size, DmaMulticastOp::kMaxTargets);
    size_t chunk = llvm::divideCeil(size, chunks);
    for (size_t begin = 0; begin < size; begin += chunk) {
      size_t end = std::min(size, begin + chunk);
      if (end - begin < 2)
        continue;
      ShareSet &part = sets.emplace_back();
      part.cores.assign(set.cores.begin() + begin, set.cores.begin() + end);
      part.loads.assign(set.loads.begin() + begin, set.loads.begin() + end);
    }
  }
  return sets;
}

/// `value`, a view of another tile's arena defined in that tile's core
/// (`from`), rebuilt at `builder`'s point in the leader's core. The arena
/// itself is declared before every core (tessel-allocate-sram).
Value cloneView(Value value, Region &from, OpBuilder &builder,
                IRMapping &clones) {
  if (Value clone = clones.lookupOrNull(value))
    return clone;
  Operation *def = value.getDefiningOp();
  if (!def || !from.isAncestor(def->getParentRegion()))
    return value;
  for (Value operand : def->getOperands())
    cloneView(operand, from, builder, clones);
  builder.clone(*def, clones);
  return clones.lookup(value);
}

/// The sharing of one device's loads: its cores, and the semaphores, view
/// clones and leader turns the sets made so far have used.
class Sharing {
public:
  explicit Sharing(MutableArrayRef<CoreLoads> cores)
      : cores(cores), semaphores(cores.front().core) {}

  /// Replaces the loads of `set` with one multicast from a leader.
  void rewrite(ShareSet &set) {
    // Rotate the leader over the set's tiles from one step to the next,
    // spreading the reads over their DMA engines and DRAM channels; sets of
    // different tiles start at different places (the n-th set of tiles met
    // at its n-th tile), so that the leaders of a step lie on a diagonal, as
    // in Cannon's skew, rather than all in one column whose links would
    // carry every row's data from DRAM.
    auto [it, inserted] = rotation.try_emplace(
        std::vector<unsigned>(set.cores.begin(), set.cores.end()),
        static_cast<unsigned>(rotation.size()));
    size_t leaderAt = it->second++ % set.cores.size();
    unsigned leader = set.cores[leaderAt];
    DmaOp leaderLoad = set.loads[leaderAt];
    Location loc = leaderLoad.getLoc();

    OpBuilder builder(leaderLoad);
    SmallVector<Value> targets = {leaderLoad.getTarget()};
    for (auto [receiver, load] : llvm::zip(set.cores, set.loads)) {
      if (receiver == leader)
        continue;
      WaitSemaphoreOp::create(builder, loc,
                              getSemaphore(credits, leader, receiver, loc), 1);
      targets.push_back(cloneView(load.getTarget(),
                                  cores[receiver].core.getBody(), builder,
                                  viewClones[{leader, receiver}]));
    }
    auto multicast =
        DmaMulticastOp::create(builder, loc, leaderLoad.getSource(), targets,
                               leaderLoad.getChannelAttr());
    for (unsigned receiver : set.cores)
      if (receiver != leader)
        SignalOp::create(builder, loc,
                         getSemaphore(deliveries, receiver, leader, loc), 1);
    leaderLoad.getToken().replaceAllUsesWith(multicast.getToken());
    leaderLoad.erase();

    for (auto [receiver, load] : llvm::zip(set.cores, set.loads))
      if (receiver != leader)
        receive(load, getSemaphore(credits, leader, receiver, loc),
                getSemaphore(deliveries, receiver, leader, loc));
  }

private:
  /// A receiver's `load` becomes a credit where it was (the buffer is free
  /// from there) and a wait for the delivery where it was waited for.
  static void receive(DmaOp load, Value credit, Value delivered) {
    OpBuilder at(load);
    SignalOp::create(at, load.getLoc(), credit, 1);
    for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
      auto wait = cast<WaitOp>(user);
      at.setInsertionPoint(wait);
      WaitSemaphoreOp::create(at, wait.getLoc(), delivered, 1);
      SmallVector<Value> others;
      for (Value token : wait.getTokens())
        if (token != load.getToken())
          others.push_back(token);
      if (others.empty())
        wait.erase();
      else
        wait.getTokensMutable().assign(others);
    }
    load.erase();
  }

  /// The semaphore on `owner`'s tile that `peer` signals, one per ordered
  /// pair and purpose.
  Value getSemaphore(std::map<std::pair<unsigned, unsigned>, Value> &table,
                     unsigned owner, unsigned peer, Location loc) {
    Value &semaphore = table[{owner, peer}];
    if (!semaphore)
      semaphore = SemaphoreOp::create(semaphores, loc,
                                      cores[owner].core.getTileOp(), 0);
    return semaphore;
  }

  MutableArrayRef<CoreLoads> cores;
  /// Declares semaphores before the device's first core.
  OpBuilder semaphores;
  /// credits[{leader, receiver}]: on the leader's tile, the receiver's
  /// buffer is free. deliveries[{receiver, leader}]: on the receiver's tile,
  /// the leader's data has arrived.
  std::map<std::pair<unsigned, unsigned>, Value> credits, deliveries;
  /// Per leader and receiver, the receiver's views rebuilt in the leader's
  /// core so far.
  std::map<std::pair<unsigned, unsigned>, IRMapping> viewClones;
  /// Per set of tiles, the turn of its next leader.
  std::map<std::vector<unsigned>, unsigned> rotation;
};

struct ShareLoads : impl::TesselShareLoadsBase<ShareLoads> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](DeviceOp device) {
      return failed(share(device)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult share(DeviceOp device) {
    FailureOr<SmallVector<CoreLoads>> cores = collectLoads(device);
    if (failed(cores))
      return failure();
    if (cores->empty())
      return success();
    // Per op, how many loads its busiest core makes.
    std::map<int64_t, size_t> positions;
    for (CoreLoads &entry : *cores)
      for (auto &[group, loads] : entry.byGroup)
        positions[group] = std::max(positions[group], loads.size());

    Sharing sharing(*cores);
    for (auto [group, count] : positions)
      for (size_t position = 0; position < count; ++position)
        for (ShareSet &set : findSets(*cores, group, position)) {
          sharing.rewrite(set);
          ++numSharedLoads;
          numLoadsSaved += set.cores.size() - 1;
        }

    for (CoreLoads &entry : *cores)
      entry.core.walk([&](DmaOp dma) {
        dma->removeAttr(TesselDialect::getShareAttrName());
      });
    return success();
  }
};

} // namespace
} // namespace mlir::tessel
