//===- KeepOnChip.cpp - Tensors between ops stay in SRAM ------------------===//
//
// A scratch DRAM buffer marked `tessel.on_chip` (its writer is mapped
// `on_chip`; tessel-convert-to-device) is not used as DRAM. Each slice its
// writer stores stays in the SRAM buffer it was computed in, with no store;
// each load of a window of the buffer reads the slices that cover it where
// they are: from its own tile's SRAM (a local copy) or over the NoC from the
// tile that holds them. A tile frees the slices it holds at its release
// fence for the buffer, which tessel-convert-to-device placed where every op
// that reads the buffer is done on every tile.
//
// Cores are separate regions, so a slice is read through a tessel.buffer on
// its holder without an address (`@<buffer>.held<N>`), on the holder too;
// the slice's allocation carries `tessel.held_as` with that name, and
// tessel-allocate-sram replaces the buffer's uses with views of the holder's
// arena where it places the allocation. Reading it so, every read of a kept
// slice is one tessel-schedule issues a step ahead, as a load.
//
// All or nothing per buffer: one whose accesses are not all transfers of
// windows (subviews with constant offsets and unit strides, through
// reshapes that only add or remove dimensions of one element, as a batch
// matmul's `12x128x64` of a `1x12x128x64` result), or whose windows the
// stored slices do not cover exactly, stays in DRAM, with a warning that
// says why.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELKEEPONCHIP
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// A view dimension that walks no dimension of the buffer: one of a single
/// element that a reshape added.
constexpr int64_t kNoDim = -1;

/// A box of a buffer, in the buffer's coordinates, and for each dimension of
/// the view that names it, the buffer dimension it walks (kNoDim for none).
struct Window {
  SmallVector<int64_t> lo, size;
  SmallVector<int64_t> dims;

  int64_t volume() const {
    int64_t product = 1;
    for (int64_t extent : size)
      product *= extent;
    return product;
  }
};

/// For each dimension of the wider of a reshape's two shapes, the dimension
/// of the narrower one it is, where the reshape only adds or removes
/// dimensions of one element (`1x12x128xf32` as `12x128xf32`): a group's
/// one dimension of more than one element (or its first, where all have
/// one: any of them walks one element, at offset 0) is the narrow
/// dimension, the others are kNoDim. Failure where a
/// group holds two dimensions of more than one element: the reshape merges
/// or splits them, and a box of one shape is no box of the other.
FailureOr<SmallVector<int64_t>>
pairUnitReshape(ArrayRef<int64_t> wide,
                ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> narrowDim(wide.size(), kNoDim);
  for (auto [narrow, group] : llvm::enumerate(groups)) {
    int64_t chosen = group.front();
    unsigned larger = 0;
    for (int64_t dim : group)
      if (wide[dim] != 1) {
        chosen = dim;
        ++larger;
      }
    if (larger > 1)
      return failure();
    narrowDim[chosen] = narrow;
  }
  return narrowDim;
}

/// The window of `root` that `view` is, through subviews with constant
/// offsets and unit strides and reshapes that only add or remove dimensions
/// of one element; failure for any other view.
FailureOr<Window> getWindow(Value view, Value root) {
  if (view == root) {
    auto type = cast<MemRefType>(root.getType());
    Window whole;
    whole.lo.assign(type.getRank(), 0);
    whole.size = llvm::to_vector(type.getShape());
    for (unsigned dim = 0; dim < type.getRank(); ++dim)
      whole.dims.push_back(dim);
    return whole;
  }
  // A rank-0 side has no dimension to pair: the two ends of a transfer
  // cut from it would differ in rank.
  if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>()) {
    if (expand.getSrcType().getRank() == 0)
      return failure();
    FailureOr<Window> outer = getWindow(expand.getSrc(), root);
    FailureOr<SmallVector<int64_t>> narrowDim = pairUnitReshape(
        expand.getResultType().getShape(), expand.getReassociationIndices());
    if (failed(outer) || failed(narrowDim))
      return failure();
    Window window{outer->lo, outer->size, {}};
    for (int64_t narrow : *narrowDim)
      window.dims.push_back(narrow == kNoDim ? kNoDim : outer->dims[narrow]);
    return window;
  }
  if (auto collapse = view.getDefiningOp<memref::CollapseShapeOp>()) {
    if (collapse.getResultType().getRank() == 0)
      return failure();
    FailureOr<Window> outer = getWindow(collapse.getSrc(), root);
    FailureOr<SmallVector<int64_t>> narrowDim =
        pairUnitReshape(collapse.getSrcType().getShape(),
                        collapse.getReassociationIndices());
    if (failed(outer) || failed(narrowDim))
      return failure();
    Window window{outer->lo, outer->size, {}};
    window.dims.assign(collapse.getResultType().getRank(), kNoDim);
    for (auto [wide, narrow] : llvm::enumerate(*narrowDim))
      if (narrow != kNoDim)
        window.dims[narrow] = outer->dims[wide];
    return window;
  }
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return failure();
  FailureOr<Window> outer = getWindow(subview.getSource(), root);
  if (failed(outer))
    return failure();
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  Window window{outer->lo, outer->size, {}};
  for (auto [k, offset, size, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides())) {
    std::optional<int64_t> o = getConstantIntValue(offset);
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> st = getConstantIntValue(stride);
    if (!o || !s || !st || *st != 1)
      return failure();
    int64_t dim = outer->dims[k];
    if (dim == kNoDim && (*o != 0 || *s != 1))
      return failure();
    if (dim != kNoDim) {
      window.lo[dim] += *o;
      window.size[dim] = *s;
    }
    if (!dropped.test(k))
      window.dims.push_back(dim);
  }
  return window;
}

/// The intersection of two windows' boxes; none where they are disjoint.
std::optional<Window> intersect(const Window &a, const Window &b) {
  Window box;
  for (size_t dim = 0; dim < a.lo.size(); ++dim) {
    int64_t lo = std::max(a.lo[dim], b.lo[dim]);
    int64_t hi = std::min(a.lo[dim] + a.size[dim], b.lo[dim] + b.size[dim]);
    if (hi <= lo)
      return std::nullopt;
    box.lo.push_back(lo);
    box.size.push_back(hi - lo);
  }
  return box;
}

/// A slice the writer stored: where it is computed, and the window it holds.
struct Slice {
  DmaOp store;
  CoreOp core;
  memref::AllocOp alloc;
  Window window;
  /// How other tiles name it, made when one first reads it.
  BufferOp heldAs;
};

/// A load of a window of the buffer.
struct Read {
  DmaOp load;
  CoreOp core;
  Window window;
};

/// `view` (a view of `window`, whose view dimensions walk `window.dims`)
/// cut down to `box`, a box inside `window`, with the box's dimensions of
/// more than one element as its shape (the last dimension where none has
/// more): both ends of a transfer cut from the same box have one shape. A
/// view dimension that walks no buffer dimension (kNoDim) is cut at 0, one
/// element.
Value cutToBox(OpBuilder &builder, Location loc, Value view,
               const Window &window, const Window &box) {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t dim : window.dims) {
    bool walks = dim != kNoDim;
    offsets.push_back(
        builder.getIndexAttr(walks ? box.lo[dim] - window.lo[dim] : 0));
    sizes.push_back(builder.getIndexAttr(walks ? box.size[dim] : 1));
    strides.push_back(builder.getIndexAttr(1));
  }
  auto type = cast<MemRefType>(view.getType());
  if (type.getRank() == 0)
    return view; // one element: the box is all of it
  SmallVector<int64_t> shape;
  for (int64_t extent : box.size)
    if (extent > 1)
      shape.push_back(extent);
  if (shape.empty())
    shape.push_back(1);
  auto cut = memref::SubViewOp::inferRankReducedResultType(
      shape, type, offsets, sizes, strides);
  return memref::SubViewOp::create(builder, loc, cast<MemRefType>(cut), view,
                                   offsets, sizes, strides);
}

/// Clones into `builder`'s block what computes `value` in another core
/// (views and constants), `map` giving what is already available; values
/// of the device (buffers) every core sees as they are.
Value cloneInto(OpBuilder &builder, Value value, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!def || !def->getParentOfType<CoreOp>())
    return value;
  for (Value operand : def->getOperands())
    cloneInto(builder, operand, map);
  Operation *clone = builder.clone(*def, map);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

struct KeepOnChip : impl::TesselKeepOnChipBase<KeepOnChip> {
  void runOnOperation() override {
    SmallVector<DramBufferOp> buffers;
    getOperation().walk([&](DramBufferOp buffer) {
      if (buffer->hasAttr(TesselDialect::getOnChipAttrName()))
        buffers.push_back(buffer);
    });
    for (DramBufferOp buffer : buffers)
      keep(buffer);
  }

  /// Every transfer of a window of `buffer`, sorted into the writer's
  /// stores and the loads; failure, with the reason, for any other use.
  LogicalResult collect(DramBufferOp buffer, SmallVectorImpl<Slice> &slices,
                        SmallVectorImpl<Read> &reads, std::string &why) {
    Value root = buffer.getResult();
    SmallVector<Value> worklist = {root};
    while (!worklist.empty()) {
      Value view = worklist.pop_back_val();
      for (Operation *user : view.getUsers()) {
        if (isa<memref::SubViewOp, memref::ExpandShapeOp,
                memref::CollapseShapeOp>(user)) {
          worklist.push_back(user->getResult(0));
          continue;
        }
        auto dma = dyn_cast<DmaOp>(user);
        if (!dma) {
          why = "'" + user->getName().getStringRef().str() +
                "' uses it (only transfers of subviews with constant offsets "
                "and unit strides, and of reshapes that add or remove "
                "dimensions of one element, are kept on chip)";
          return failure();
        }
        auto core = dma->getParentOfType<CoreOp>();
        bool stores = dma.getTarget() == view;
        FailureOr<Window> window =
            getWindow(stores ? dma.getTarget() : dma.getSource(), root);
        if (failed(window)) {
          why = "a transfer reads or writes it through a view that is not a "
                "subview with constant offsets and unit strides, nor a reshape "
                "that only adds or removes dimensions of one element";
          return failure();
        }
        if (!stores) {
          reads.push_back({dma, core, *window});
          continue;
        }
        auto alloc = getViewRoot(dma.getSource()).getDefiningOp<memref::AllocOp>();
        if (!alloc || !isComputedLast(dma, alloc)) {
          why = "a slice is stored from other than an SRAM buffer its tile "
                "computed and uses no further";
          return failure();
        }
        slices.push_back({dma, core, alloc, *window, nullptr});
      }
    }
    return success();
  }

  /// Whether nothing after `store` (but views and the deallocation) uses
  /// `alloc`, which `store` stores: the slice then holds what was stored.
  static bool isComputedLast(DmaOp store, memref::AllocOp alloc) {
    for (Operation *op = store->getNextNode(); op; op = op->getNextNode()) {
      if (isa<ViewLikeOpInterface, memref::TransposeOp, memref::DeallocOp>(op))
        continue;
      if (llvm::any_of(op->getOperands(), [&](Value operand) {
            return isa<MemRefType>(operand.getType()) &&
                   getViewRoot(operand) == alloc.getResult();
          }))
        return false;
    }
    return true;
  }

  /// For each read, the slices it reads, in order; failure where they do
  /// not cover its window exactly.
  static LogicalResult cover(ArrayRef<Slice> slices, ArrayRef<Read> reads,
                             SmallVectorImpl<SmallVector<size_t>> &covers,
                             std::string &why) {
    // Disjoint slices make the volume test below exact.
    for (size_t a = 0; a < slices.size(); ++a)
      for (size_t b = a + 1; b < slices.size(); ++b)
        if (intersect(slices[a].window, slices[b].window)) {
          why = "its stored slices overlap";
          return failure();
        }
    for (const Read &read : reads) {
      SmallVector<size_t> &cover = covers.emplace_back();
      int64_t covered = 0;
      for (auto [index, slice] : llvm::enumerate(slices))
        if (std::optional<Window> box = intersect(slice.window, read.window)) {
          cover.push_back(index);
          covered += box->volume();
        }
      if (covered != read.window.volume()) {
        why = "a load reads elements no slice stores";
        return failure();
      }
    }
    return success();
  }

  void keep(DramBufferOp buffer) {
    SmallVector<Slice> slices;
    SmallVector<Read> reads;
    SmallVector<SmallVector<size_t>> covers;
    std::string why;
    if (failed(collect(buffer, slices, reads, why)) ||
        failed(cover(slices, reads, covers, why))) {
      buffer.emitWarning() << "stays in DRAM: " << why;
      dropMarks(buffer);
      return;
    }

    for (Slice &slice : slices)
      if (!findRelease(slice.core, buffer)) {
        slice.core.emitOpError()
            << "holds slices of on-chip buffer @" << buffer.getSymName()
            << " but has no tessel.fence marked to release them; run "
               "tessel-convert-to-device, which places one";
        return signalPassFailure();
      }
    for (auto [read, cover] : llvm::zip(reads, covers))
      rewriteRead(buffer, read, cover, slices);
    // Each slice that is read stays where it was computed until its tile's
    // release; one no op reads is freed where it was.
    for (Slice &slice : slices) {
      replaceTransfer(slice.store, {});
      ++numSlicesKept;
      if (!slice.heldAs)
        continue;
      Value held = slice.alloc.getResult();
      for (Operation *user : llvm::make_early_inc_range(held.getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      Operation *release = findRelease(slice.core, buffer);
      OpBuilder builder(release->getBlock(), ++release->getIterator());
      memref::DeallocOp::create(builder, slice.alloc.getLoc(), held);
      slice.alloc->setAttr(
          TesselDialect::getHeldAsAttrName(),
          FlatSymbolRefAttr::get(slice.heldAs.getSymNameAttr()));
    }
    dropMarks(buffer);
    eraseUnusedViews(buffer.getResult());
    if (buffer->use_empty())
      buffer.erase();
    ++numBuffersKept;
  }

  /// Erases the views of `view` (and their views) that nothing uses.
  static void eraseUnusedViews(Value view) {
    for (Operation *user : llvm::make_early_inc_range(view.getUsers())) {
      if (!isa<memref::SubViewOp, memref::ExpandShapeOp,
               memref::CollapseShapeOp>(user))
        continue;
      eraseUnusedViews(user->getResult(0));
      if (user->use_empty())
        user->erase();
    }
  }

  /// The fence where `core`'s tile frees what it holds of `buffer`.
  static Operation *findRelease(CoreOp core, DramBufferOp buffer) {
    for (auto fence : core.getBody().front().getOps<FenceOp>())
      if (auto name = fence->getAttrOfType<FlatSymbolRefAttr>(
              TesselDialect::getReleaseAttrName()))
        if (name.getValue() == buffer.getSymName())
          return fence;
    return nullptr;
  }

  /// `read` reads each slice of `cover` where it is, into its part of the
  /// read's target, instead of loading the window from DRAM.
  void rewriteRead(DramBufferOp buffer, Read read,
                   ArrayRef<size_t> cover, MutableArrayRef<Slice> slices) {
    OpBuilder builder(read.load);
    Location loc = read.load.getLoc();
    SmallVector<Value> tokens;
    for (size_t index : cover) {
      Slice &slice = slices[index];
      Window box = *intersect(slice.window, read.window);
      // Named by a buffer on the holder's tile, with the views the holder
      // stores it through; so too on the holder itself, where the buffer
      // is the slice's own allocation (tessel-allocate-sram), so that the
      // schedule issues every read of a kept slice ahead like a load.
      if (!slice.heldAs) {
        OpBuilder declare(*buffer->getBlock()->getOps<CoreOp>().begin());
        std::string name =
            (buffer.getSymName() + ".held" + Twine(numHeldNames++)).str();
        slice.heldAs = BufferOp::create(declare, slice.alloc.getLoc(),
                                        slice.alloc.getType(), name,
                                        slice.core.getTile(),
                                        /*address=*/nullptr);
      }
      IRMapping map;
      map.map(slice.alloc.getResult(), slice.heldAs.getResult());
      Value source = cloneInto(builder, slice.store.getSource(), map);
      Value from = cutToBox(builder, loc, source, slice.window, box);
      Value to = cutToBox(builder, loc, read.load.getTarget(), read.window, box);
      auto dma = DmaOp::create(builder, loc, from, to, /*channel=*/nullptr);
      // Tiles that read a slice alike may still share it: its holder
      // multicasts it (tessel-share-loads).
      if (Attribute group = read.load->getAttr(TesselDialect::getShareAttrName()))
        dma->setAttr(TesselDialect::getShareAttrName(), group);
      tokens.push_back(dma.getToken());
      ++numReads;
    }
    replaceTransfer(read.load, tokens);
  }

  /// The buffer, and the release fences of it, lose their marks.
  static void dropMarks(DramBufferOp buffer) {
    buffer->removeAttr(TesselDialect::getOnChipAttrName());
    buffer->getParentOp()->walk([&](FenceOp fence) {
      auto name = fence->getAttrOfType<FlatSymbolRefAttr>(
          TesselDialect::getReleaseAttrName());
      if (name && name.getValue() == buffer.getSymName())
        fence->removeAttr(TesselDialect::getReleaseAttrName());
    });
  }

  unsigned numHeldNames = 0;
};

} // namespace
} // namespace mlir::tessel
