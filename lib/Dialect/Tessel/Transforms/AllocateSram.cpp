//===- AllocateSram.cpp - SRAM addresses for each core's buffers ----------===//
//
// Each core's buffers are placed by lifetime, largest first
// (SramPlacement.h, which tessel-schedule consults too). One arena per tile
// keeps the device-wide rule "buffers fit SRAM" exact: a tile has exactly
// one buffer, the arena.
//
// A slice another tile reads (tessel-keep-on-chip) is named there by a
// tessel.buffer without an address, which its allocation names in
// `tessel.held_as`: once the allocation has its place, the buffer's uses
// become views of the holder's arena at that place.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/SramPlacement.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELALLOCATESRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Where an allocation that other tiles read was placed.
struct Placed {
  BufferOp arena;
  int64_t offset;
};

struct AllocateSram : impl::TesselAllocateSramBase<AllocateSram> {
  void runOnOperation() override {
    held.clear();
    WalkResult result = getOperation().walk([&](CoreOp core) {
      return failed(allocate(core)) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted() || failed(resolveHeldBuffers()))
      signalPassFailure();
  }

  /// Each tessel.buffer without an address becomes, in every core that
  /// uses it, a view of its holder's arena where its allocation was placed.
  LogicalResult resolveHeldBuffers() {
    SmallVector<BufferOp> unplaced;
    getOperation().walk([&](BufferOp buffer) {
      if (!buffer.getAddress())
        unplaced.push_back(buffer);
    });
    for (BufferOp buffer : unplaced) {
      auto it = held.find(buffer.getSymName());
      if (it == held.end())
        return buffer.emitOpError()
               << "has no address and no SRAM allocation names it in '"
               << TesselDialect::getHeldAsAttrName()
               << "'; it is a slice tessel-keep-on-chip keeps, placed with "
                  "its allocation";
      Placed place = it->second;
      // One view per core that reads it, at the top of the core.
      DenseMap<Operation *, Value> views;
      for (OpOperand &use : llvm::make_early_inc_range(buffer->getUses())) {
        auto core = use.getOwner()->getParentOfType<CoreOp>();
        Value &view = views[core];
        if (!view) {
          OpBuilder builder =
              OpBuilder::atBlockBegin(&core.getBody().front());
          Value shift = arith::ConstantIndexOp::create(
              builder, buffer.getLoc(), place.offset);
          view = memref::ViewOp::create(builder, buffer.getLoc(),
                                        buffer.getType(),
                                        place.arena.getResult(), shift,
                                        ValueRange{});
        }
        use.set(view);
      }
      buffer.erase();
    }
    return success();
  }

  /// The allocations other tiles read, by the name they read them by.
  llvm::StringMap<Placed> held;

  LogicalResult allocate(CoreOp core) {
    ArchAttr arch = lookupArch(core);
    int64_t sramBytes = arch.getTileSramBytes();
    TileOp tile = core.getTileOp();
    memref::AllocOp unplaceable;
    SmallVector<SramLifetime> lifetimes =
        collectSramLifetimes(core, arch.getTileSramAlignment(), unplaceable);
    if (unplaceable)
      return unplaceable.emitOpError("must be statically shaped with an "
                                     "identity layout to be placed in SRAM");
    if (lifetimes.empty())
      return success();
    int64_t arenaBytes = placeSramLifetimes(lifetimes);
    if (arenaBytes > sramBytes) {
      // Name the first allocation, in program order, that ends past the SRAM.
      SramLifetime *over = llvm::find_if(lifetimes, [&](const SramLifetime &l) {
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
    for (SramLifetime &lifetime : lifetimes) {
      memref::AllocOp alloc = lifetime.alloc;
      Value &shift = shifts[lifetime.offset];
      if (!shift) {
        rewriter.setInsertionPointToStart(&body);
        shift = arith::ConstantIndexOp::create(rewriter, core.getLoc(),
                                               lifetime.offset);
      }
      if (auto name = alloc->getAttrOfType<FlatSymbolRefAttr>(
              TesselDialect::getHeldAsAttrName()))
        held[name.getValue()] = {arena, lifetime.offset};
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
