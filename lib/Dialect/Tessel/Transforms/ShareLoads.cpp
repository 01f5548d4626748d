//===- ShareLoads.cpp - One DRAM read per slice, multicast to its readers -===//
//
// Tiles of an op split over a rectangle often read the same elements of an
// operand (from DRAM, or from the tile that keeps it on chip,
// tessel-keep-on-chip): a matmul split over rows and columns reads each row
// panel of its left operand on every tile of a grid row, and each column
// panel of its right operand on every tile of a grid column; a convolution
// split over rows and columns of its output reads the rows and columns
// around each tile's block (the halo) on the neighbouring tiles too. Loaded
// tile by tile, those bytes cross the chip's few DRAM channels once per
// tile. This pass has one tile read them and multicast them into every
// reader's own buffer.
//
// Which loads can share is decided per op (the `tessel.share` mark
// tessel-convert-to-device puts on the loads of an op mapped `shared`) and
// per position: the n-th load of the op in each core. Sharing only loads at
// the same position keeps every core's waits in an order that cannot
// deadlock: a tile waits for a credit or a delivery of position n only from
// tiles that reach position n having waited for positions before n alone.
// tessel-check-synchronization still proves it for every program.
//
// Loads of a position that read overlapping windows of one DRAM buffer
// (the same view shape and strides, into buffers of one type) are cut
// into cells: the boxes of the buffer that one set of those loads all
// read. A cell is read once, by one of its readers, and multicast to the
// others (a cell only one load reads is a plain load of that part of its
// window). Equal windows make one cell, the whole window.
//
// A leader waits for its receivers' credits before it multicasts: on its
// core, or, where the core has compute to do before it next waits, on its
// DMA channel (the multicast's `after`), so the core computes on.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/DramWindows.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSHARELOADS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Loads that may share: the DRAM buffer, or the SRAM arena of a slice a
/// tile keeps on chip (tessel-keep-on-chip); the view, as its element type
/// and strides when the window is a box of the buffer (windows of any size
/// compare as boxes), else as its exact type and no strides; and the
/// strides of the SRAM view loaded into, since one multicast writes every
/// target with the same strides (a padded window's part inside the tensor
/// goes to a view of its buffer, at an offset and of a size of its own).
/// Strides are DenseI64ArrayAttrs, uniqued; a kept slice's byte offset in
/// its arena follows the view's strides, so that only loads of one slice
/// share.
using ShareKey = std::tuple<Operation *, Type, Attribute, Attribute>;

/// A marked load, with the key and window it shares by.
struct Reader {
  unsigned core;
  DmaOp load;
  ShareKey key;
  DramWindow window;

  /// The load, to build on (op handles are values: a const reader's is too).
  DmaOp getLoad() const { return load; }
};

/// The reader of the marked load `load` of core `core`; none when its
/// window is not static, or is reached through a byte shift (memref.view)
/// but for a kept slice's (a constant one, into a tile's arena), or when
/// nothing waits for the load (a receiver would have nowhere to wait for
/// its delivery).
std::optional<Reader> getReader(unsigned core, DmaOp load) {
  if (load->use_empty() ||
      !llvm::all_of(load->getUsers(), [](Operation *user) {
        return isa<WaitOp>(user);
      }))
    return std::nullopt;
  Value value = load.getSource();
  auto type = cast<MemRefType>(value.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  auto targetType = cast<MemRefType>(load.getTarget().getType());
  int64_t targetOffset;
  SmallVector<int64_t> targetStrides;
  if (failed(getStridesAndOffset(targetType, targetStrides, targetOffset)))
    return std::nullopt;
  while (Operation *def = value.getDefiningOp()) {
    // The whole buffer: DRAM, or a kept slice at a constant place in
    // another tile's arena (or this tile's own).
    std::optional<int64_t> shift = 0;
    auto slice = dyn_cast<memref::ViewOp>(def);
    if (slice) {
      shift = getConstantIntValue(slice.getByteShift());
      if (!shift || !slice.getSource().getDefiningOp<BufferOp>())
        return std::nullopt;
      def = slice.getSource().getDefiningOp();
    }
    if (slice || isa<DramBufferOp>(def)) {
      auto bufferType = cast<MemRefType>(
          slice ? slice.getType() : def->getResult(0).getType());
      MLIRContext *ctx = def->getContext();
      Attribute targetKey = DenseI64ArrayAttr::get(ctx, targetStrides);
      SmallVector<int64_t> viewKey = strides;
      if (slice)
        viewKey.push_back(*shift);
      if (std::optional<DramWindow> box =
              getBox(bufferType, type.getShape(), strides, offset))
        return Reader{core,
                      load,
                      {def, type.getElementType(),
                       DenseI64ArrayAttr::get(ctx, viewKey), targetKey},
                      std::move(*box)};
      DramWindow exact{{offset}, {offset + 1}, {}};
      exact.bufferDimOf.assign(type.getRank(), -1);
      return Reader{core, load,
                    {def, type,
                     slice ? DenseI64ArrayAttr::get(ctx, {*shift}) : Attribute(),
                     targetKey},
                    std::move(exact)};
    }
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

/// Whether `readers` read a slice a tile keeps on chip (in its arena)
/// rather than DRAM.
bool isKeptSlice(ArrayRef<Reader> readers) {
  return isa<BufferOp>(std::get<0>(readers.front().key));
}

/// The reader (an index into `readers`) on the tile that holds the kept
/// slice they read; none when that tile does not read it too.
std::optional<unsigned> findHolder(ArrayRef<Reader> readers,
                                   ArrayRef<CoreLoads> cores) {
  TileOp holder = cast<BufferOp>(std::get<0>(readers.front().key)).getTileOp();
  for (auto [index, reader] : llvm::enumerate(readers))
    if (CoreOp(cores[reader.core].core).getTileOp() == holder)
      return index;
  return std::nullopt;
}

/// A kept slice is multicast by the tile that holds it (a multicast reads
/// the issuing tile's SRAM), so only where that tile reads it too, whole
/// (every reader reads the same window) and in one instruction.
bool canMulticastKeptSlice(ArrayRef<Reader> readers,
                           ArrayRef<CoreLoads> cores) {
  return readers.size() <= DmaMulticastOp::kMaxTargets &&
         findHolder(readers, cores) &&
         llvm::all_of(readers, [&](const Reader &reader) {
           return reader.window.lo == readers.front().window.lo &&
                  reader.window.hi == readers.front().window.hi;
         });
}

/// The readers of the loads at `position` of `group`, in sets that share
/// elements: one key, windows overlapping one another directly or through
/// others. Sets of one reader are left out, their readers added to
/// `alone`; the order is that of each set's first core.
SmallVector<SmallVector<Reader>> findSharingSets(ArrayRef<CoreLoads> cores,
                                                 int64_t group, size_t position,
                                                 SmallVectorImpl<Reader> &alone) {
  SmallVector<SmallVector<Reader>> byKey;
  DenseMap<ShareKey, size_t> keyIndex;
  for (auto [index, entry] : llvm::enumerate(cores)) {
    auto it = entry.byGroup.find(group);
    if (it == entry.byGroup.end() || position >= it->second.size())
      continue;
    std::optional<Reader> reader = getReader(index, it->second[position]);
    if (!reader)
      continue;
    auto [at, inserted] = keyIndex.try_emplace(reader->key, byKey.size());
    if (inserted)
      byKey.emplace_back();
    byKey[at->second].push_back(std::move(*reader));
  }

  SmallVector<SmallVector<Reader>> sets;
  for (SmallVector<Reader> &readers : byKey) {
    // Equal windows are one; overlapping ones join their sets.
    std::map<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>, unsigned>
        windowIndex;
    SmallVector<unsigned> windowOf, firstReader;
    for (auto [index, reader] : llvm::enumerate(readers)) {
      auto [it, inserted] = windowIndex.try_emplace(
          std::make_pair(reader.window.lo, reader.window.hi),
          firstReader.size());
      if (inserted)
        firstReader.push_back(index);
      windowOf.push_back(it->second);
    }
    llvm::EquivalenceClasses<unsigned> joined;
    for (unsigned a = 0; a < firstReader.size(); ++a) {
      joined.insert(a);
      for (unsigned b = 0; b < a; ++b)
        if (readers[firstReader[a]].window.overlaps(
                readers[firstReader[b]].window))
          joined.unionSets(a, b);
    }
    std::map<unsigned, size_t> setOf;
    size_t first = sets.size();
    for (auto [index, reader] : llvm::enumerate(readers)) {
      unsigned leader = joined.getLeaderValue(windowOf[index]);
      auto [it, inserted] = setOf.try_emplace(leader, sets.size());
      if (inserted)
        sets.emplace_back();
      sets[it->second].push_back(std::move(reader));
    }
    for (SmallVector<Reader> &set : llvm::drop_begin(sets, first))
      if (set.size() == 1)
        alone.push_back(set.front());
    sets.erase(llvm::remove_if(llvm::drop_begin(sets, first),
                               [&](const SmallVector<Reader> &set) {
                                 return set.size() < 2 ||
                                        (isKeptSlice(set) &&
                                         !canMulticastKeptSlice(set, cores));
                               }),
               sets.end());
  }
  return sets;
}

/// A box of a DRAM buffer that a set of readers all read, and which of them
/// (indices into the sharing set, in core order).
struct Cell {
  SmallVector<int64_t> lo, hi;
  SmallVector<unsigned> readers;
};

/// More cells than this in one sharing set (windows spread over several
/// dimensions at once) are not worth their instructions: such a set shares
/// equal windows only.
constexpr size_t kMaxCells = 4096;

/// The cells of a sharing set, in row-major order of the buffer: the grid
/// every window's bounds cut the buffer into, neighbouring slabs that the
/// same readers read all along joined into one. None when there would be
/// more than kMaxCells.
std::optional<SmallVector<Cell>> findCells(ArrayRef<Reader> readers) {
  size_t rank = readers.front().window.lo.size();
  SmallVector<SmallVector<int64_t>> cuts(rank);
  for (const Reader &reader : readers)
    for (size_t b = 0; b < rank; ++b) {
      cuts[b].push_back(reader.window.lo[b]);
      cuts[b].push_back(reader.window.hi[b]);
    }
  SmallVector<size_t> counts, gridStrides(rank, 1);
  size_t total = 1;
  for (SmallVector<int64_t> &dim : cuts) {
    llvm::sort(dim);
    dim.erase(llvm::unique(dim), dim.end());
    counts.push_back(dim.size() - 1);
    total *= counts.back();
    if (total > kMaxCells)
      return std::nullopt;
  }
  for (int64_t b = static_cast<int64_t>(rank) - 2; b >= 0; --b)
    gridStrides[b] = gridStrides[b + 1] * counts[b + 1];
  auto interval = [&](size_t b, int64_t bound) -> size_t {
    return llvm::lower_bound(cuts[b], bound) - cuts[b].begin();
  };

  // Who reads each cell of the grid, as an interned set (0: nobody).
  SmallVector<SmallVector<unsigned>> readersOf(total);
  for (auto [index, reader] : llvm::enumerate(readers)) {
    SmallVector<size_t> begin, end;
    for (size_t b = 0; b < rank; ++b) {
      begin.push_back(interval(b, reader.window.lo[b]));
      end.push_back(interval(b, reader.window.hi[b]));
    }
    SmallVector<size_t> at = begin;
    while (true) {
      size_t cell = 0;
      for (size_t b = 0; b < rank; ++b)
        cell += at[b] * gridStrides[b];
      readersOf[cell].push_back(index);
      size_t b = rank;
      while (b > 0 && ++at[b - 1] == end[b - 1]) {
        at[b - 1] = begin[b - 1];
        --b;
      }
      if (b == 0)
        break;
    }
  }
  std::map<SmallVector<unsigned>, unsigned> setIds = {{{}, 0}};
  SmallVector<unsigned> setOf(total);
  SmallVector<const SmallVector<unsigned> *> setById = {nullptr};
  for (size_t cell = 0; cell < total; ++cell) {
    auto [it, inserted] =
        setIds.try_emplace(std::move(readersOf[cell]), setById.size());
    if (inserted)
      setById.push_back(&it->first);
    setOf[cell] = it->second;
  }

  // Per dimension, where a slab differs from the one before it.
  SmallVector<SmallVector<size_t>> starts(rank);
  for (size_t b = 0; b < rank; ++b) {
    SmallVector<SmallVector<unsigned>> slabs(counts[b]);
    for (size_t cell = 0; cell < total; ++cell)
      slabs[(cell / gridStrides[b]) % counts[b]].push_back(setOf[cell]);
    for (size_t i = 0; i < counts[b]; ++i)
      if (i == 0 || slabs[i] != slabs[i - 1])
        starts[b].push_back(i);
    starts[b].push_back(counts[b]);
  }

  SmallVector<Cell> cells;
  SmallVector<size_t> at(rank, 0);
  while (true) {
    size_t first = 0;
    for (size_t b = 0; b < rank; ++b)
      first += starts[b][at[b]] * gridStrides[b];
    if (unsigned id = setOf[first]) {
      Cell &cell = cells.emplace_back();
      for (size_t b = 0; b < rank; ++b) {
        cell.lo.push_back(cuts[b][starts[b][at[b]]]);
        cell.hi.push_back(cuts[b][starts[b][at[b] + 1]]);
      }
      cell.readers = *setById[id];
    }
    size_t b = rank;
    while (b > 0 && ++at[b - 1] + 1 == starts[b - 1].size()) {
      at[b - 1] = 0;
      --b;
    }
    if (b == 0)
      break;
  }
  return cells;
}

/// The elements of a box.
int64_t countElements(ArrayRef<int64_t> lo, ArrayRef<int64_t> hi) {
  int64_t count = 1;
  for (auto [l, h] : llvm::zip_equal(lo, hi))
    count *= h - l;
  return count;
}

/// The elements loading `cells` reads from DRAM.
int64_t countElements(ArrayRef<Cell> cells) {
  int64_t count = 0;
  for (const Cell &cell : cells)
    count += countElements(cell.lo, cell.hi);
  return count;
}

/// The bytes of one element the readers load.
int64_t getElementBytes(ArrayRef<Reader> readers) {
  auto type = cast<MemRefType>(readers.front().getLoad().getSource().getType());
  return llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// The bytes of DRAM reads that loading `cells` instead of the readers'
/// windows saves.
int64_t bytesSaved(ArrayRef<Reader> readers, ArrayRef<Cell> cells) {
  int64_t read = 0;
  for (const Reader &reader : readers)
    read += countElements(reader.window.lo, reader.window.hi);
  return (read - countElements(cells)) * getElementBytes(readers);
}

/// Cutting overlapping windows pays only when it saves at least this part
/// (1 / kMinSavedFraction) of their reads: a tile that receives part of its
/// window from its neighbours waits for their progress too, which on the
/// zoo's convolutions (bench/spatial.py) cost more than a few percent of
/// the reads saved.
constexpr int64_t kMinSavedFraction = 5;

/// Whether cutting overlapping windows into `cells` pays: every window it
/// cuts costs one or more transfers more, each with its fixed cost (DMA
/// setup and DRAM latency) and a wait on a neighbour's delivery, so the
/// bytes it saves per distinct window must be at least what one transfer
/// moves in that fixed time (`bytesPerTransferCost`). A small window's
/// transfer is mostly latency: sharing its halo would only add transfers.
bool cuttingPays(ArrayRef<Reader> readers, ArrayRef<Cell> cells,
                 int64_t bytesPerTransferCost) {
  std::set<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> windows;
  for (const Reader &reader : readers)
    windows.insert({reader.window.lo, reader.window.hi});
  if (windows.size() < 2)
    return true;
  int64_t read = 0;
  for (const auto &[lo, hi] : windows)
    read += countElements(lo, hi);
  int64_t saved = read - countElements(cells);
  return saved * getElementBytes(readers) >=
             bytesPerTransferCost * static_cast<int64_t>(windows.size()) &&
         saved * kMinSavedFraction >= read;
}

/// The cells of a sharing set, each with at most one instruction's targets
/// (a cell read by more goes in even chunks): findCells' where they pay
/// (cuttingPays), else one per distinct window.
SmallVector<Cell> cutIntoCells(ArrayRef<Reader> readers,
                               int64_t bytesPerTransferCost) {
  SmallVector<Cell> cells;
  std::optional<SmallVector<Cell>> found = findCells(readers);
  if (found && cuttingPays(readers, *found, bytesPerTransferCost)) {
    cells = std::move(*found);
  } else {
    std::map<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>, size_t>
        cellOf;
    for (auto [index, reader] : llvm::enumerate(readers)) {
      auto [it, inserted] = cellOf.try_emplace(
          std::make_pair(reader.window.lo, reader.window.hi), cells.size());
      if (inserted)
        cells.push_back({reader.window.lo, reader.window.hi, {}});
      cells[it->second].readers.push_back(index);
    }
  }
  SmallVector<Cell> chunked;
  for (Cell &cell : cells) {
    size_t size = cell.readers.size();
    size_t chunks = llvm::divideCeil(size, DmaMulticastOp::kMaxTargets);
    size_t chunk = llvm::divideCeil(size, chunks);
    for (size_t begin = 0; begin < size; begin += chunk) {
      size_t end = std::min(size, begin + chunk);
      chunked.push_back({cell.lo, cell.hi,
                         SmallVector<unsigned>(cell.readers.begin() + begin,
                                               cell.readers.begin() + end)});
    }
  }
  return chunked;
}

/// `whole`, a view of `window` (a load's source or target), cut to `cell`.
Value cellView(OpBuilder &builder, Location loc, Value whole,
               const DramWindow &window, const Cell &cell) {
  if (cell.lo == window.lo && cell.hi == window.hi)
    return whole;
  SmallVector<int64_t> offsets, sizes;
  for (int b : window.bufferDimOf) {
    offsets.push_back(b < 0 ? 0 : cell.lo[b] - window.lo[b]);
    sizes.push_back(b < 0 ? 1 : cell.hi[b] - cell.lo[b]);
  }
  SmallVector<int64_t> unitStrides(sizes.size(), 1);
  return memref::SubViewOp::create(builder, loc, whole, offsets, sizes,
                                   unitStrides);
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

/// A tile as (row, column), and a NoC link as the tiles it joins, from
/// and to.
using Tile = std::pair<int64_t, int64_t>;
using Link = std::pair<Tile, Tile>;

/// The links of the XY route from `from` to `to`: along the row first,
/// then the column (docs/simulator.md, *Transfers*).
SmallVector<Link> getXYRoute(Tile from, Tile to) {
  SmallVector<Link> links;
  Tile at = from;
  while (at.second != to.second) {
    Tile next = {at.first, at.second + (to.second > at.second ? 1 : -1)};
    links.push_back({at, next});
    at = next;
  }
  while (at.first != to.first) {
    Tile next = {at.first + (to.first > at.first ? 1 : -1), at.second};
    links.push_back({at, next});
    at = next;
  }
  return links;
}

/// The sharing of one device's loads: its cores, and the semaphores, view
/// clones and leader turns the sets made so far have used.
class Sharing {
public:
  Sharing(MutableArrayRef<CoreLoads> cores, ArchAttr arch,
          int64_t bytesPerTransferCost)
      : cores(cores), semaphores(cores.front().core),
        bytesPerTransferCost(bytesPerTransferCost),
        arch(arch), dmaChannels(arch.getTileDmaChannels()) {}

  /// Per core, how many loads it read for another (pickReadersFor).
  std::map<unsigned, unsigned> readsBy;

  /// The loads rewritten from here on are the next step's: they run at
  /// the same time, so their DRAM reads are spread over the channels anew.
  void beginStep() {
    stepBytes.assign(arch.getDramChannels(), 0);
    leaderBytes.clear();
    linkBytes.clear();
  }

  /// Replaces the loads of `readers` with one transfer per cell, each from
  /// a leader among the cell's readers, or, given the cells' DMA `channels`,
  /// all from the last reader (readFor); returns the multicasts made.
  unsigned rewrite(ArrayRef<Reader> readers, ArrayRef<Cell> cells,
                   ArrayRef<std::optional<unsigned>> channels = {}) {
    // Per reader, the cells it leads, the readers it delivers to and the
    // leaders it receives from (indices into `readers`, ordered).
    SmallVector<SmallVector<std::pair<const Cell *, std::optional<unsigned>>>>
        led(readers.size());
    SmallVector<std::set<unsigned>> deliversTo(readers.size()),
        receivesFrom(readers.size());
    for (auto [index, cell] : llvm::enumerate(cells)) {
      // A cell read for another (readFor) is led by the last reader.
      auto [leader, channel] =
          channels.empty()
              ? pickLeader(readers, cell)
              : std::make_pair(static_cast<unsigned>(readers.size() - 1),
                               channels[index]);
      led[leader].push_back({&cell, channel});
      for (unsigned reader : cell.readers)
        if (reader != leader) {
          deliversTo[leader].insert(reader);
          receivesFrom[reader].insert(leader);
        }
    }

    // Every transfer first: they clone the receivers' views of their loads.
    // Where a load was, its buffer is free: credits to the leaders it
    // receives from go first, so that no two tiles wait on each other's.
    // A leader's multicast takes one credit per receiver, so a receiver
    // gives one per cell of that leader it reads; a leader whose core takes
    // them instead waits for them all before its transfers.
    unsigned multicasts = 0;
    SmallVector<SmallVector<Value>> tokens(readers.size());
    for (auto [index, reader] : llvm::enumerate(readers))
      for (unsigned receiver : deliversTo[index])
        ++deliveriesMade[{readers[receiver].core, reader.core}];
    std::map<std::pair<unsigned, unsigned>, int32_t> creditsOwed;
    for (auto [leader, cellsLed] : llvm::enumerate(led))
      for (auto [cell, channel] : cellsLed)
        for (unsigned reader : cell->readers)
          if (reader != leader)
            ++creditsOwed[{static_cast<unsigned>(leader), reader}];
    for (auto [index, reader] : llvm::enumerate(readers)) {
      Location loc = reader.getLoad().getLoc();
      OpBuilder builder(reader.getLoad());
      bool together =
          reader.getLoad()->hasAttr(TesselDialect::getLoadedTogetherAttrName());
      for (unsigned leader : receivesFrom[index]) {
        auto credit = SignalOp::create(
            builder, loc,
            getSemaphore(credits, readers[leader].core, reader.core, loc),
            creditsOwed[{leader, static_cast<unsigned>(index)}]);
        if (together)
          creditsAhead.push_back(credit);
      }
      bool onDma = dmaTakesCredits(reader.getLoad());
      if (!onDma)
        for (unsigned receiver : deliversTo[index])
          WaitSemaphoreOp::create(
              builder, loc,
              getSemaphore(credits, reader.core, readers[receiver].core, loc),
              creditsOwed[{static_cast<unsigned>(index), receiver}]);
      for (auto [cell, channel] : led[index]) {
        tokens[index].push_back(
            transfer(builder, readers, index, *cell, channel, onDma));
        multicasts += cell->readers.size() > 1;
      }
      for (unsigned receiver : deliversTo[index])
        SignalOp::create(builder, loc,
                         getSemaphore(deliveries, readers[receiver].core,
                                      reader.core, loc),
                         1);
    }
    for (auto [index, reader] : llvm::enumerate(readers)) {
      SmallVector<std::pair<Value, int64_t>> delivered;
      for (unsigned leader : receivesFrom[index])
        delivered.push_back(
            {getSemaphore(deliveries, reader.core, readers[leader].core,
                          reader.getLoad().getLoc()),
             deliveriesMade[{reader.core, readers[leader].core}]});
      awaitInstead(reader.getLoad(), tokens[index], delivered);
    }
    return multicasts;
  }

  /// Moves each credit of a load issued together with other steps' loads
  /// (tessel-schedule, `tessel.loaded_together`) up through the loads issued
  /// before it, above the first wait for a credit among them (a core's or a
  /// multicast's), keeping the credits' order. Its buffer is free there
  /// already: only loads into other live buffers and the handshakes of their
  /// sharing lie in between. A leader then gives every credit of the run
  /// before it waits for its own receivers' (on its core, or on its DMA:
  /// the program must also run were the core to wait for those, which
  /// tessel-check-synchronization checks). Otherwise the leaders of the
  /// run's steps would wait for each other in turn, each for credits the
  /// ones before it give only after their own waits. A signal never blocks,
  /// so giving it earlier cannot deadlock.
  void hoistCredits() {
    llvm::DenseSet<Value> creditSemaphores, deliverySemaphores;
    for (auto &[pair, semaphore] : credits)
      creditSemaphores.insert(semaphore);
    for (auto &[pair, semaphore] : deliveries)
      deliverySemaphores.insert(semaphore);
    auto passes = [&](Operation *op) {
      if (isAddressOp(op) || isa<DmaMulticastOp, VectorFillOp>(op))
        return true;
      if (auto dma = dyn_cast<DmaOp>(op))
        return isInSpace(dma.getTarget(), MemorySpace::sram);
      if (auto wait = dyn_cast<WaitSemaphoreOp>(op))
        return creditSemaphores.contains(wait.getSemaphore());
      if (auto signal = dyn_cast<SignalOp>(op))
        return deliverySemaphores.contains(signal.getSemaphore());
      return false;
    };
    for (SignalOp credit : creditsAhead) {
      // Above the first wait for a credit it passes, if any: elsewhere
      // nothing waits on it.
      Operation *top = credit;
      for (Operation *op = credit->getPrevNode(); op && passes(op);
           op = op->getPrevNode())
        if (auto multicast = dyn_cast<DmaMulticastOp>(op);
            (multicast && !multicast.getCredits().empty()) ||
            isa<WaitSemaphoreOp>(op))
          top = op;
      if (top != credit)
        credit->moveBefore(top);
    }
  }

  /// Makes every receiver wait for its leaders' deliveries in the order the
  /// leaders make them. A delivery semaphore counts the deliveries of one
  /// leader to one receiver, and a receiver waits for each where it waited
  /// for its load, at the load's first use: where it uses a later delivery
  /// first (a load issued early and used late, as a kept slice's read),
  /// waiting for one count would let it through on an earlier delivery's
  /// signal. Each wait takes, instead, the deliveries up to its own that
  /// the waits before it have not taken; one with none left is erased.
  void orderDeliveryWaits() {
    DenseMap<Value, SmallVector<std::pair<WaitSemaphoreOp, int64_t>>> bySemaphore;
    for (auto [wait, delivery] : deliveryWaits)
      bySemaphore[wait.getSemaphore()].push_back({wait, delivery});
    for (auto &[semaphore, waits] : bySemaphore) {
      llvm::stable_sort(waits, [](auto &a, auto &b) {
        return a.first->isBeforeInBlock(b.first);
      });
      int64_t taken = 0;
      for (auto [wait, delivery] : waits) {
        if (delivery <= taken) {
          wait.erase();
          continue;
        }
        wait.setCount(static_cast<int32_t>(delivery - taken));
        taken = delivery;
      }
    }
  }

  /// Pairs of `alone` (the plain loads of one position, each the only
  /// reader of its window) in which the second reads the first's load for
  /// it, through an emptier DRAM channel, on the DMA channel given where
  /// its tile has two. Only loads issued together with other steps'
  /// (tessel-schedule, `tessel.loaded_together`) are weighed: their
  /// handshakes run once, ahead of the compute. A tile reads DRAM through
  /// the channels nearest to it, which on a grid serve unequal numbers of
  /// tiles. Where a channel carries more than its share of these loads'
  /// bytes by half a load or more, one of its loads is read instead by
  /// another reader whose channel stays within half a load of the share
  /// and below the fullest: the one that has read fewest for others in the
  /// pass, then the nearest, then the one whose channel carries least. At
  /// each position a tile reads for one other at most, and is read for
  /// once at most.
  SmallVector<std::tuple<unsigned, unsigned, std::optional<unsigned>>>
  pickReadersFor(ArrayRef<Reader> alone) {
    SmallVector<std::tuple<unsigned, unsigned, std::optional<unsigned>>> pairs;
    SmallVector<double> carried(arch.getDramChannels(), 0.0);
    SmallVector<unsigned> candidates;
    SmallVector<double> bytesOf(alone.size(), 0.0);
    SmallVector<SmallVector<unsigned>> dramsOf(alone.size());
    for (auto [index, reader] : llvm::enumerate(alone)) {
      DmaOp load = reader.getLoad();
      if (!load->hasAttr(TesselDialect::getLoadedTogetherAttrName()) ||
          !isInSpace(load.getSource(), MemorySpace::dram))
        continue;
      dramsOf[index] = getDramChannels(reader);
      bytesOf[index] = static_cast<double>(
          getSizeInBytes(cast<MemRefType>(load.getSource().getType())));
      for (unsigned dram : dramsOf[index])
        carried[dram] += bytesOf[index] / dramsOf[index].size();
      candidates.push_back(index);
    }
    if (candidates.size() < 2)
      return pairs;
    double share = 0;
    for (double bytes : carried)
      share += bytes;
    share /= carried.size();
    auto tileOf = [&](unsigned index) {
      return cores[alone[index].core].core.getTileOp();
    };
    auto distance = [](int64_t a, int64_t b) { return a > b ? a - b : b - a; };
    llvm::DenseSet<unsigned> paired, weighed;
    while (true) {
      unsigned fullest = static_cast<unsigned>(
          llvm::max_element(carried) - carried.begin());
      std::optional<unsigned> next;
      for (unsigned index : candidates)
        if (!weighed.contains(index) && !paired.contains(index) &&
            llvm::is_contained(dramsOf[index], fullest)) {
          next = index;
          break;
        }
      if (!next)
        break;
      weighed.insert(*next);
      double bytes = bytesOf[*next];
      if (carried[fullest] - share < bytes / 2)
        break;
      TileOp tile = tileOf(*next);
      // (loads read for others so far, hops, bytes its channel carries,
      // leader, DMA channel, DRAM channel)
      std::optional<
          std::tuple<unsigned, int64_t, double, unsigned, unsigned, unsigned>>
          best;
      for (unsigned other : candidates) {
        if (other == *next || paired.contains(other))
          continue;
        TileOp at = tileOf(other);
        int64_t hops = distance(at.getRow(), tile.getRow()) +
                       distance(at.getCol(), tile.getCol());
        for (auto [channel, dram] : llvm::enumerate(dramsOf[other])) {
          // Within half a load of the share, and less than the fullest
          // carries now: the move evens the channels.
          if (carried[dram] + bytes > share + bytes / 2 ||
              carried[dram] + bytes >= carried[fullest])
            continue;
          unsigned done = readsBy[alone[other].core];
          if (!best || std::make_tuple(done, hops, carried[dram]) <
                           std::make_tuple(std::get<0>(*best),
                                           std::get<1>(*best),
                                           std::get<2>(*best)))
            best = {done, hops, carried[dram], other,
                    static_cast<unsigned>(channel), dram};
        }
      }
      if (!best)
        continue;
      auto [done, hops, load, leader, channel, dram] = *best;
      ++readsBy[alone[leader].core];
      for (unsigned d : dramsOf[*next])
        carried[d] -= bytes / dramsOf[*next].size();
      carried[dram] += bytes;
      paired.insert(*next);
      paired.insert(leader);
      bool named = dramsOf[leader].size() > 1;
      pairs.push_back({*next, leader,
                       named ? std::optional<unsigned>(channel) : std::nullopt});
    }
    return pairs;
  }

  /// Has `leader` read `reader`'s load for it (pickReadersFor) besides its
  /// own: the two as a set whose cells are their windows, both led by
  /// `leader`, the reader's on `channel`.
  void readFor(const Reader &reader, const Reader &leader,
               std::optional<unsigned> channel) {
    SmallVector<Reader> pair = {reader, leader};
    // Its own first in its DMA queue (after the reader's credit, where its
    // core takes it): its data does not queue behind the reader's. It
    // waits for both where it waited for its own.
    SmallVector<Cell> cells = {{leader.window.lo, leader.window.hi, {1}},
                               {reader.window.lo, reader.window.hi, {0}}};
    rewrite(pair, cells, {std::nullopt, channel});
  }

private:
  /// The reader (an index into `readers`) that reads `cell` for the
  /// others, and the DMA channel it reads it on where that choice matters.
  ///
  /// The leader rotates over a set of tiles from one step to the next,
  /// spreading the reads over their DMA engines; sets of different tiles
  /// start at different places (the n-th set of tiles met at its n-th
  /// tile), so that the leaders of a step lie on a diagonal, as in Cannon's
  /// skew, rather than all in one column whose links would carry every
  /// row's data from DRAM. But a leader reads from the DRAM channel
  /// attached nearest to it, and the leaders that the turns alone pick can
  /// crowd a few channels while others idle (on tessel-4x4 a step's leaders
  /// on the diagonal read from two of its four corners): the turn's leader
  /// gives way to the reader whose DRAM channel, DMA engine and NoC links
  /// carry the fewest bytes at this step, the first in turn among equals.
  /// Where channels are equally near, the DMA channel picks among them
  /// (docs/isa.md) and is chosen too.
  std::pair<unsigned, std::optional<unsigned>>
  pickLeader(ArrayRef<Reader> readers, const Cell &cell) {
    // A kept slice: its holder, which reads no DRAM.
    if (isKeptSlice(readers))
      return {*findHolder(readers, cores), std::nullopt};
    int64_t bytes = countElements(cell.lo, cell.hi) * getElementBytes(readers);
    if (cell.readers.size() == 1) {
      // A plain load; where its DMA channel is not named yet, the first of
      // its nearest DRAM channels stands for the one it will use.
      unsigned reader = cell.readers.front();
      charge(readers[reader], getDramChannels(readers[reader]).front(), bytes);
      return {reader, std::nullopt};
    }
    std::vector<unsigned> tiles;
    for (unsigned reader : cell.readers)
      tiles.push_back(readers[reader].core);
    auto [it, inserted] = rotation.try_emplace(
        std::move(tiles), static_cast<unsigned>(rotation.size()));
    unsigned turn = it->second++;
    size_t count = cell.readers.size();

    // Each reader in turn order, on each DRAM channel it may read from, is
    // weighed by the bytes that channel, its own DMA engine or a link the
    // load would cross (its route from the channel, and where the cell
    // spans rows and columns its tree), whichever has most, already moves
    // at this step (link bytes at the DRAM channel's rate). Another than the
    // turn's leader leads only where that is less: among equals the turn's
    // leader keeps the lead, so the turns still spread it over the tiles.
    // (Asking for a whole cell less, as when only channels and engines
    // counted, left ResNet-18's convolutions slower: docs/spatial.md.) A
    // cell smaller than what a transfer moves in its fixed cost keeps its
    // turn's leader: its time is latency, which the turns spread already.
    //
    // The links count because a link the step's flows crowd slows each of
    // them (docs/simulator.md, *Transfers*), and the routes of two channels
    // meet in the column of a tile equally near both. A cell spread over
    // rows and columns (a convolution's weights, read by the tiles of many
    // pixel blocks) counts its leader's multicast tree too, which differs
    // with the leader's row; a cell read along one row or column (a GEMM's
    // panels) does not: its tree differs only in its links' directions,
    // and counted, it drew the 1024^3 GEMM's panel leaders off the turns'
    // diagonal and slowed it (docs/spatial.md, *Leaders weighed by the
    // links they load*).
    bool balance = bytes >= bytesPerTransferCost;
    bool countsTree = spansRowsAndColumns(readers, cell);
    unsigned leader = cell.readers[turn % count], dram = 0;
    std::optional<unsigned> channel;
    std::optional<int64_t> fewest;
    SmallVector<Link> links;
    for (size_t i = 0; i < (balance ? count : 1); ++i) {
      unsigned reader = cell.readers[(turn + i) % count];
      SmallVector<unsigned> drams = getDramChannels(readers[reader]);
      bool choose = balance && drams.size() > 1;
      SmallVector<Link> tree;
      if (countsTree)
        tree = getTree(readers, cell, reader);
      for (unsigned c = 0; c < (choose ? drams.size() : 1); ++c) {
        // No link is in both: the route's links lead to the leader, the
        // tree's away from it (XY routes are monotone).
        SmallVector<Link> crossed = getDramRoute(readers[reader], drams[c]);
        llvm::append_range(crossed, tree);
        int64_t busiest =
            std::max({stepBytes[drams[c]], leaderBytes[readers[reader].core],
                      getBusiestLinkBytes(crossed)});
        if (fewest && busiest >= *fewest)
          continue;
        fewest = busiest;
        leader = reader;
        dram = drams[c];
        channel = choose ? std::optional<unsigned>(c) : std::nullopt;
        links = std::move(crossed);
      }
    }
    charge(readers[leader], dram, bytes);
    for (const Link &link : links)
      linkBytes[link] += bytes;
    return {leader, channel};
  }

  /// The tile `reader`'s core runs on, as (row, column).
  Tile getTile(const Reader &reader) const {
    TileOp tile = cores[reader.core].core.getTileOp();
    return {tile.getRow(), tile.getCol()};
  }

  /// The links a load by `reader` from DRAM channel `dram` crosses to
  /// reach it: the XY route from the channel's attach tile.
  SmallVector<Link> getDramRoute(const Reader &reader, unsigned dram) const {
    auto [attachRow, attachCol] = arch.getDramAttach()[dram];
    return getXYRoute({attachRow, attachCol}, getTile(reader));
  }

  /// Whether the readers of `cell` lie in more than one row and more than
  /// one column.
  bool spansRowsAndColumns(ArrayRef<Reader> readers, const Cell &cell) const {
    std::set<int64_t> rows, cols;
    for (unsigned reader : cell.readers) {
      Tile tile = getTile(readers[reader]);
      rows.insert(tile.first);
      cols.insert(tile.second);
    }
    return rows.size() > 1 && cols.size() > 1;
  }

  /// The multicast tree of `cell` from `readers[leader]`: the union of the
  /// XY routes from the leader to each reader (docs/simulator.md,
  /// *Multicast*), each link once.
  SmallVector<Link> getTree(ArrayRef<Reader> readers, const Cell &cell,
                            unsigned leader) const {
    Tile at = getTile(readers[leader]);
    std::set<Link> links;
    for (unsigned reader : cell.readers)
      for (const Link &link : getXYRoute(at, getTile(readers[reader])))
        links.insert(link);
    return SmallVector<Link>(links.begin(), links.end());
  }

  /// The most bytes any of `links` carries at this step so far, at the
  /// DRAM channels' rate.
  int64_t getBusiestLinkBytes(ArrayRef<Link> links) const {
    int64_t busiest = 0;
    for (const Link &link : links) {
      auto it = linkBytes.find(link);
      if (it != linkBytes.end())
        busiest = std::max(busiest, it->second);
    }
    return busiest * arch.getDramBytesPerCycle() /
           arch.getNocLinkBytesPerCycle();
  }

  /// The DRAM channels `reader`'s load may read from, the n-th on DMA
  /// channel n (docs/isa.md: of the channels attached nearest to the tile,
  /// the `dma mod count`-th); the one its DMA channel picks where the load
  /// names it.
  SmallVector<unsigned> getDramChannels(const Reader &reader) const {
    TileOp tile = cores[reader.core].core.getTileOp();
    SmallVector<unsigned> nearest =
        arch.getNearestDramChannels(tile.getRow(), tile.getCol());
    if (std::optional<uint32_t> named = reader.getLoad().getChannel())
      return {nearest[*named % nearest.size()]};
    nearest.truncate(std::min<size_t>(nearest.size(), dmaChannels));
    return nearest;
  }

  /// Counts `bytes` that `reader` reads from DRAM channel `dram` at this
  /// step.
  void charge(const Reader &reader, unsigned dram, int64_t bytes) {
    stepBytes[dram] += bytes;
    leaderBytes[reader.core] += bytes;
  }

  /// Whether the leader's DMA, rather than its core, waits for the credits
  /// of the multicasts that replace `load`: where the core computes before
  /// it next waits (for a transfer or another tile; a fill of a window's
  /// padding does not count), so that the credits' wait would hold back
  /// work. Elsewhere the core would wait anyway, and going on would only
  /// issue its next transfers sooner, into the DRAM and links the multicast
  /// needs (the small CNN on tessel-16x16, its first convolution's two
  /// multicasts sharing one DRAM channel: 3,851 -> 3,855 cycles).
  static bool dmaTakesCredits(DmaOp load) {
    for (Operation *op = load->getNextNode(); op; op = op->getNextNode()) {
      if (isa<WaitOp, WaitSemaphoreOp>(op))
        return false;
      if (isa<MatmulOp, VectorUnaryOp, VectorBinaryOp, VectorBinaryImmOp,
              VectorCompareOp, VectorSelectOp, VectorReduceOp>(op))
        return true;
    }
    return false;
  }

  /// The load of `cell` by `readers[leader]` into the buffers of all its
  /// readers: a multicast, which with `creditsOnDma` takes each other
  /// reader's credit (its DMA channel starts it once they have come), or a
  /// load of part of its own window.
  Value transfer(OpBuilder &builder, ArrayRef<Reader> readers, unsigned leader,
                 const Cell &cell, std::optional<unsigned> channel,
                 bool creditsOnDma) {
    const Reader &lead = readers[leader];
    Location loc = lead.getLoad().getLoc();
    // A leader that reads the cell for its one reader (pickReadersFor)
    // reads the reader's window of the buffer, rebuilt in its core.
    bool reads = llvm::is_contained(cell.readers, leader);
    const Reader &owner = reads ? lead : readers[cell.readers.front()];
    Value whole = reads ? lead.getLoad().getSource()
                        : cloneView(owner.getLoad().getSource(),
                                    cores[owner.core].core.getBody(), builder,
                                    viewClones[{lead.core, owner.core}]);
    Value source = cellView(builder, loc, whole, owner.window, cell);
    SmallVector<Value> targets, creditsTaken;
    if (reads)
      targets.push_back(cellView(builder, loc, lead.getLoad().getTarget(),
                                 lead.window, cell));
    for (unsigned index : cell.readers) {
      if (index == leader)
        continue;
      const Reader &receiver = readers[index];
      if (creditsOnDma)
        creditsTaken.push_back(
            getSemaphore(credits, lead.core, receiver.core, loc));
      Value target = cloneView(receiver.getLoad().getTarget(),
                               cores[receiver.core].core.getBody(), builder,
                               viewClones[{lead.core, receiver.core}]);
      targets.push_back(
          cellView(builder, loc, target, receiver.window, cell));
    }
    IntegerAttr channelAttr = lead.getLoad().getChannelAttr();
    if (channel)
      channelAttr = builder.getI32IntegerAttr(*channel);
    Operation *transfer =
        reads && targets.size() == 1
            ? DmaOp::create(builder, loc, source, targets.front(), channelAttr)
                  .getOperation()
            : DmaMulticastOp::create(builder, loc, source, targets,
                                     creditsTaken, channelAttr)
                  .getOperation();
    // A load issued during the ops before its own (tessel-schedule) keeps
    // its DMA channel until it is waited for (tessel-assign-dma-channels).
    StringRef early = TesselDialect::getIssuedEarlyAttrName();
    if (lead.getLoad()->hasAttr(early))
      transfer->setAttr(early, builder.getUnitAttr());
    return transfer->getResult(0);
  }

  /// Where `load` was waited for, waits for `tokens` (the transfers its
  /// core now makes into its buffer) and for the `delivered` semaphores
  /// instead, each up to the numbered delivery of its leader
  /// (orderDeliveryWaits sets the counts); then erases it.
  void awaitInstead(DmaOp load, ArrayRef<Value> tokens,
                    ArrayRef<std::pair<Value, int64_t>> delivered) {
    for (Operation *user : load->getUsers()) {
      OpBuilder at(user);
      for (auto [semaphore, delivery] : delivered)
        deliveryWaits.push_back(
            {WaitSemaphoreOp::create(at, user->getLoc(), semaphore, 1),
             delivery});
    }
    replaceTransfer(load, tokens);
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
  /// Per receiver and leader (cores), the deliveries made so far; each
  /// wait for one, with the delivery's number.
  std::map<std::pair<unsigned, unsigned>, int64_t> deliveriesMade;
  SmallVector<std::pair<WaitSemaphoreOp, int64_t>> deliveryWaits;
  /// The credits of loads issued together with other steps'
  /// (tessel-schedule), in the order they were made.
  SmallVector<SignalOp> creditsAhead;
  /// Per set of tiles, the turn of its next leader.
  std::map<std::vector<unsigned>, unsigned> rotation;
  /// What one transfer moves in the time of its fixed cost.
  int64_t bytesPerTransferCost;
  /// The target, and the DMA channels of a tile.
  ArchAttr arch;
  unsigned dmaChannels;
  /// Per DRAM channel, the bytes this step's leaders read from it so far;
  /// per core, the bytes it leads at this step.
  SmallVector<int64_t> stepBytes;
  std::map<unsigned, int64_t> leaderBytes;
  /// Per NoC link, the bytes this step's leaders route over it so far.
  std::map<Link, int64_t> linkBytes;
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

    // What one transfer moves in the time of its fixed cost.
    ArchAttr arch = device.getArch();
    int64_t bytesPerTransferCost = arch.getFixedTransferBytes();

    Sharing sharing(*cores, arch, bytesPerTransferCost);
    for (auto [group, count] : positions)
      for (size_t position = 0; position < count; ++position) {
        sharing.beginStep();
        SmallVector<Reader> alone;
        for (SmallVector<Reader> &readers :
             findSharingSets(*cores, group, position, alone)) {
          SmallVector<Cell> cells = cutIntoCells(readers, bytesPerTransferCost);
          numSharedLoads += sharing.rewrite(readers, cells);
        }
        for (auto [reader, leader, channel] : sharing.pickReadersFor(alone))
          sharing.readFor(alone[reader], alone[leader], channel);
      }
    sharing.orderDeliveryWaits();
    sharing.hoistCredits();
    for (auto [core, reads] : sharing.readsBy)
      numLoadsReadFor += reads;

    for (CoreLoads &entry : *cores)
      entry.core.walk([&](DmaOp dma) {
        dma->removeAttr(TesselDialect::getShareAttrName());
        dma->removeAttr(TesselDialect::getLoadedTogetherAttrName());
      });
    return success();
  }
};

} // namespace
} // namespace mlir::tessel
