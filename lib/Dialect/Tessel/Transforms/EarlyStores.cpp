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
// pass cuts only on a tile with a second DMA channel for each DRAM channel
// it uses, where consecutive pieces' latencies overlap.
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEARLYSTORES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// An inclusive range of elements of an allocation.
struct Extent {
  int64_t first, last;
  bool overlaps(const Extent &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The elements of its allocation that `view` spans, from its strided
/// layout; nullopt where that is not known (another view on the way, such
/// as a byte-shifted `memref.view`, or a dynamic layout), which callers
/// read as all of them.
std::optional<Extent> extentOf(Value view) {
  // Through the views whose strided layouts count from the allocation's
  // first element.
  for (Value v = view; Operation *def = v.getDefiningOp();) {
    if (isa<memref::AllocOp>(def))
      break;
    if (isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::CastOp,
            memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      v = cast<ViewLikeOpInterface>(def).getViewSource();
    else if (auto transpose = dyn_cast<memref::TransposeOp>(def))
      v = transpose.getIn();
    else
      return std::nullopt;
  }
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  Extent extent{offset, offset};
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size == 0)
      return std::nullopt;
    (stride < 0 ? extent.first : extent.last) += (size - 1) * stride;
  }
  return extent;
}

/// Whether `op`, an instruction or a transfer, could touch elements of
/// `root` within `extent`.
bool touches(Operation *op, Value root, const Extent &extent) {
  return llvm::any_of(op->getOperands(), [&](Value v) {
    if (!isa<MemRefType>(v.getType()) || getViewRoot(v) != root)
      return false;
    std::optional<Extent> e = extentOf(v);
    return !e || e->overlaps(extent);
  });
}

/// Whether a store may not move up past `op` at all.
bool isBarrier(Operation *op, Value dramRoot) {
  if (isa<SignalOp, WaitSemaphoreOp, FenceOp, DmaMulticastOp, DmaGatherOp>(
          op) ||
      op->getNumRegions() != 0)
    return true;
  if (auto dma = dyn_cast<DmaOp>(op))
    return getViewRoot(dma.getSource()) == dramRoot ||
           getViewRoot(dma.getTarget()) == dramRoot;
  return false;
}

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

/// One piece of a store: indices `[begin, end)` of the cut dimension, and
/// the instruction after which they are final (the store itself: where
/// the store was).
struct Piece {
  int64_t begin, end;
  Operation *after;
};

/// How many elements of the instructions' views one store may visit to
/// tell which of its indices each writes (a step's slice is far smaller).
constexpr int64_t kMaxElementsVisited = int64_t{1} << 24;

/// A view with a static strided layout: its elements' offsets in its
/// allocation.
struct StridedBox {
  int64_t offset;
  SmallVector<int64_t> sizes, strides;
  /// The dimensions of more than one element, largest stride first.
  SmallVector<unsigned> order;

  static std::optional<StridedBox> of(Value view) {
    auto type = cast<MemRefType>(view.getType());
    StridedBox box;
    if (!extentOf(view) ||
        failed(type.getStridesAndOffset(box.strides, box.offset)))
      return std::nullopt;
    box.sizes.assign(type.getShape().begin(), type.getShape().end());
    for (unsigned d = 0; d < box.sizes.size(); ++d)
      if (box.sizes[d] > 1)
        box.order.push_back(d);
    llvm::stable_sort(box.order, [&](unsigned a, unsigned b) {
      return box.strides[a] > box.strides[b];
    });
    return box;
  }

  /// Whether each dimension's stride is at least the extent of those with
  /// smaller strides, so that an element has one index (:func:`indexOf`).
  bool nests() const {
    int64_t extent = 1;
    for (unsigned d : llvm::reverse(order)) {
      if (strides[d] < extent)
        return false;
      extent = strides[d] * sizes[d];
    }
    return true;
  }

  int64_t elements() const {
    int64_t n = 1;
    for (int64_t size : sizes)
      n *= size;
    return n;
  }

  void forEachElement(llvm::function_ref<void(int64_t)> fn) const {
    SmallVector<int64_t> at(sizes.size(), 0);
    if (elements() == 0)
      return;
    while (true) {
      int64_t element = offset;
      for (auto [i, stride] : llvm::zip(at, strides))
        element += i * stride;
      fn(element);
      int64_t d = static_cast<int64_t>(sizes.size()) - 1;
      for (; d >= 0 && ++at[d] == sizes[d]; --d)
        at[d] = 0;
      if (d < 0)
        return;
    }
  }

  /// The index of `element` in this view, if it is one of its elements;
  /// for a view that nests (:func:`nests`).
  bool indexOf(int64_t element, SmallVectorImpl<int64_t> &index) const {
    index.assign(sizes.size(), 0);
    int64_t rest = element - offset;
    for (unsigned d : order) {
      int64_t i = rest / strides[d];
      if (rest < 0 || i >= sizes[d])
        return false;
      index[d] = i;
      rest -= i * strides[d];
    }
    return rest == 0;
  }
};

/// The pieces of a store whose indices along one dimension of `rowBytes`
/// each are final after `writers` (null: no instruction since the barrier
/// wrote it): consecutive indices final at one instruction form a piece,
/// and a piece under `minPieceBytes` joins its neighbour, final at the
/// later of the two.
SmallVector<Piece> piecesOf(ArrayRef<Operation *> writers, Operation *store,
                            int64_t rowBytes, int64_t minPieceBytes) {
  auto later = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b) ? b : a;
  };
  auto small = [&](const Piece &p) {
    return (p.end - p.begin) * rowBytes < minPieceBytes;
  };
  SmallVector<Piece> pieces;
  for (auto [i, w] : llvm::enumerate(writers)) {
    Operation *after = w ? w : store;
    int64_t at = static_cast<int64_t>(i);
    if (!pieces.empty() &&
        (pieces.back().after == after || small(pieces.back()))) {
      pieces.back().end = at + 1;
      pieces.back().after = later(pieces.back().after, after);
    } else {
      pieces.push_back({at, at + 1, after});
    }
  }
  if (pieces.size() > 1 && small(pieces.back())) {
    Piece last = pieces.pop_back_val();
    pieces.back().end = last.end;
    pieces.back().after = later(pieces.back().after, last.after);
  }
  return pieces;
}

struct EarlyStores : impl::TesselEarlyStoresBase<EarlyStores> {
  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      // A transfer holds its DMA channel through the DRAM latency too; the
      // pieces' latencies overlap only where a second DMA channel reads
      // the same DRAM channels (the stores take the channels in turn,
      // tessel-split-transfers). Elsewhere each piece would add a latency
      // to a tile whose channels may already be the bottleneck.
      TileOp tile = core.getTileOp();
      if (arch.getTileDmaChannels() <
          2 * arch.getSplitChannels(tile.getRow(), tile.getCol()))
        return;
      int64_t rate =
          std::min(arch.getTileDmaBytesPerCycle(), arch.getDramBytesPerCycle());
      int64_t minPieceBytes = 4 * arch.getTileDmaSetupCycles() * rate;
      SmallVector<DmaOp> stores;
      for (Operation &op : core.getBody().front().getOperations())
        if (auto dma = dyn_cast<DmaOp>(op);
            dma && isInSpace(dma.getSource(), MemorySpace::sram) &&
            isInSpace(dma.getTarget(), MemorySpace::dram))
          stores.push_back(dma);
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
    std::optional<Extent> whole = extentOf(source);
    ArrayRef<int64_t> shape = type.getShape();

    // Walk up from the store to a barrier: for every dimension of the
    // slice, the last instruction that writes each of its indices.
    Value dramRoot = getViewRoot(store.getTarget());
    SmallVector<SmallVector<Operation *>> writer;
    int64_t unassigned = 0;
    for (int64_t size : shape) {
      writer.emplace_back(size > 1 ? size : 0, nullptr);
      unassigned += writer.back().size();
    }
    int64_t budget = kMaxElementsVisited;
    SmallVector<int64_t> index;
    for (Operation *op = store->getPrevNode(); op && unassigned;
         op = op->getPrevNode()) {
      if (isBarrier(op, dramRoot) || op == root.getDefiningOp())
        break;
      if (isAddressOp(op) || isa<memref::AllocOp, memref::DeallocOp>(op) ||
          !touches(op, root, *whole))
        continue;
      for (Value operand : op->getOperands()) {
        if (!isa<MemRefType>(operand.getType()) || getViewRoot(operand) != root)
          continue;
        std::optional<StridedBox> touched = StridedBox::of(operand);
        if (!touched || (budget -= touched->elements()) < 0)
          return; // too many elements to tell which indices it writes
        touched->forEachElement([&](int64_t element) {
          if (!box->indexOf(element, index))
            return;
          for (auto [d, i] : llvm::enumerate(index))
            if (!writer[d].empty() && !writer[d][i]) {
              writer[d][i] = op;
              --unassigned;
            }
        });
      }
    }

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
    SmallVector<Piece> pieces;
    unsigned dim = 0;
    for (auto [d, writers] : llvm::enumerate(writer)) {
      if (writers.empty())
        continue;
      int64_t rowBytes = type.getNumElements() / shape[d] *
                         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      SmallVector<Piece> cut =
          piecesOf(writers, store, rowBytes, minPieceBytes);
      if (cut.size() > pieces.size()) {
        pieces = std::move(cut);
        dim = d;
      }
    }
    if (pieces.size() < 2)
      return;

    // The store's views must be computed before the first piece.
    Operation *first = store;
    for (const Piece &piece : pieces)
      if (piece.after != store && piece.after->isBeforeInBlock(first))
        first = piece.after->getNextNode();
    SmallVector<Operation *> hoisted;
    llvm::SmallPtrSet<Operation *, 8> seen;
    if (!addressOpsFrom({source, store.getTarget()}, first, hoisted, seen))
      return;
    for (Operation *op : hoisted)
      op->moveBefore(first);

    SmallVector<Value> tokens;
    llvm::DenseMap<Operation *, Operation *> lastPlaced;
    OpBuilder builder(store);
    for (const Piece &piece : pieces) {
      Operation *&at = lastPlaced[piece.after];
      if (at)
        builder.setInsertionPointAfter(at);
      else if (piece.after == store)
        builder.setInsertionPoint(store);
      else
        builder.setInsertionPointAfter(piece.after);
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
