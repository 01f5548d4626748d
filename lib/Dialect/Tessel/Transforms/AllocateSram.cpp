//===- AllocateSram.cpp - SRAM addresses for each core's buffers ----------===//
//
// A core's body is straight-line code, so every SRAM allocation's lifetime
// is known before any is placed: from its memref.alloc to its
// memref.dealloc (or the end of the core). Placement is offline, largest
// first, each at the lowest aligned offset that no allocation live at the
// same time occupies ("greedy by size"). Placing in program order instead
// (first fit) fragments: small temporaries land between large step buffers
// and the next large buffer no longer fits below them. One arena per tile
// keeps the device-wide rule "buffers fit SRAM" exact: a tile has exactly
// one buffer, the arena.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELALLOCATESRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// An SRAM allocation of a core and the ops it is live across.
struct Lifetime {
  memref::AllocOp alloc;
  int64_t bytes;
  /// Positions in the core's body of the alloc and of its dealloc (the end
  /// of the body when it has none).
  size_t begin, end;
  /// The lifetimes live at the same time as this one (indices).
  SmallVector<size_t> overlapping;
  int64_t offset = -1;
};

/// The SRAM allocations of `core`'s body, each with the others it overlaps.
FailureOr<SmallVector<Lifetime>> collectLifetimes(CoreOp core,
                                                  int64_t alignment) {
  SmallVector<Lifetime> lifetimes;
  DenseMap<Value, size_t> indexOf;
  Block &body = core.getBody().front();
  size_t position = 0;
  for (Operation &op : body) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (getMemorySpace(type) == MemorySpace::sram) {
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          return alloc.emitOpError("must be statically shaped with an "
                                   "identity layout to be placed in SRAM");
        int64_t bytes =
            std::max<int64_t>(llvm::alignTo(getSizeInBytes(type), alignment),
                              alignment);
        indexOf[alloc.getResult()] = lifetimes.size();
        lifetimes.push_back({alloc, bytes, position, SIZE_MAX, {}});
      }
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      auto it = indexOf.find(dealloc.getMemref());
      if (it != indexOf.end())
        lifetimes[it->second].end = position;
    }
    ++position;
  }
  // One sweep in program order: a lifetime overlaps every one still live
  // when it begins.
  SmallVector<size_t> live;
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    llvm::erase_if(live, [&](size_t j) {
      return lifetimes[j].end < lifetimes[i].begin;
    });
    for (size_t j : live) {
      lifetimes[i].overlapping.push_back(j);
      lifetimes[j].overlapping.push_back(i);
    }
    live.push_back(i);
  }
  return lifetimes;
}

/// Places every lifetime, largest first (ties in program order), at the
/// lowest offset clear of the overlapping lifetimes already placed; returns
/// the arena's size.
int64_t placeBySize(MutableArrayRef<Lifetime> lifetimes) {
  SmallVector<size_t> order =
      llvm::to_vector(llvm::seq<size_t>(0, lifetimes.size()));
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    return lifetimes[a].bytes > lifetimes[b].bytes;
  });
  int64_t arenaBytes = 0;
  SmallVector<std::pair<int64_t, int64_t>> taken;
  for (size_t i : order) {
    Lifetime &lifetime = lifetimes[i];
    taken.clear();
    for (size_t j : lifetime.overlapping)
      if (lifetimes[j].offset >= 0)
        taken.push_back({lifetimes[j].offset,
                         lifetimes[j].offset + lifetimes[j].bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + lifetime.bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    lifetime.offset = offset;
    arenaBytes = std::max(arenaBytes, offset + lifetime.bytes);
  }
  return arenaBytes;
}

struct AllocateSram : impl::TesselAllocateSramBase<AllocateSram> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](CoreOp core) {
      return failed(allocate(core)) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult allocate(CoreOp core) {
    ArchAttr arch = lookupArch(core);
    int64_t sramBytes = arch.getTileSramBytes();
    TileOp tile = core.getTileOp();
    FailureOr<SmallVector<Lifetime>> lifetimes =
        collectLifetimes(core, arch.getTileSramAlignment());
    if (failed(lifetimes))
      return failure();
    if (lifetimes->empty())
      return success();
    int64_t arenaBytes = placeBySize(*lifetimes);
    if (arenaBytes > sramBytes) {
      // Name the first allocation, in program order, that ends past the SRAM.
      Lifetime *over = llvm::find_if(*lifetimes, [&](const Lifetime &l) {
        return l.offset + l.bytes > sramBytes;
      });
      return over->alloc.emitOpError()
             << "does not fit in the SRAM of tile (" << tile.getRow() << ", "
             << tile.getCol() << "): the buffers live here need " << arenaBytes
             << " bytes and the SRAM holds " << sramBytes << " bytes";
    }

    // The arena, among the device's buffers before its first core: any core
    // may address it (tessel-share-loads has one tile deliver into another's
    // buffers).
    OpBuilder builder(*core->getBlock()->getOps<CoreOp>().begin());
    auto arenaType = MemRefType::get(
        {arenaBytes}, builder.getI8Type(), MemRefLayoutAttrInterface(),
        MemorySpaceAttr::get(builder.getContext(), MemorySpace::sram));
    std::string name = "sram_" + std::to_string(tile.getRow()) + "_" +
                       std::to_string(tile.getCol());
    auto arena = BufferOp::create(builder, core.getLoc(), arenaType, name,
                                  tile.getResult(), builder.getI64IntegerAttr(0));

    // One constant per distinct offset, at the top of the core.
    IRRewriter rewriter(builder);
    Block &body = core.getBody().front();
    DenseMap<int64_t, Value> shifts;
    for (Lifetime &lifetime : *lifetimes) {
      memref::AllocOp alloc = lifetime.alloc;
      Value &shift = shifts[lifetime.offset];
      if (!shift) {
        rewriter.setInsertionPointToStart(&body);
        shift = arith::ConstantIndexOp::create(rewriter, core.getLoc(),
                                               lifetime.offset);
      }
      rewriter.setInsertionPoint(alloc);
      Value view = memref::ViewOp::create(rewriter, alloc.getLoc(),
                                          alloc.getType(), arena.getResult(),
                                          shift, ValueRange{});
      rewriter.replaceOp(alloc, view);
    }
    for (Operation &op : llvm::make_early_inc_range(body))
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        if (dealloc.getMemref().getDefiningOp<memref::ViewOp>())
          rewriter.eraseOp(dealloc);
    return success();
  }
};

} // namespace
} // namespace mlir::tessel
