//===- AllocateSram.cpp - SRAM addresses for each core's buffers ----------===//
//
// Each core's buffers are placed by lifetime, largest first
// (SramPlacement.h, which tessel-schedule consults too). One arena per tile
// keeps the device-wide rule "buffers fit SRAM" exact: a tile has exactly
// one buffer, the arena.
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
