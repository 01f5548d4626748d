//===- AllocateSram.cpp - SRAM addresses for each core's buffers ----------===//
//
// A core's SRAM allocations live for a few instructions each (one step's
// operands, a vector temporary), so one arena per tile with first-fit reuse
// keeps every program within its tile's SRAM, and keeps the device-wide rule
// "buffers fit SRAM" exact: a tile has exactly one buffer, the arena.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include <set>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELALLOCATESRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// First-fit placement of byte ranges, freed in any order.
class FirstFit {
public:
  explicit FirstFit(int64_t alignment) : alignment(alignment) {}

  int64_t allocate(int64_t size) {
    size = std::max<int64_t>(llvm::alignTo(size, alignment), alignment);
    int64_t offset = 0;
    for (auto [begin, end] : live) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, static_cast<int64_t>(llvm::alignTo(end, alignment)));
    }
    live.insert({offset, offset + size});
    highWater = std::max(highWater, offset + size);
    return offset;
  }

  void free(int64_t offset) {
    auto it = llvm::find_if(live, [&](auto r) { return r.first == offset; });
    assert(it != live.end() && "freeing an unallocated range");
    live.erase(it);
  }

  int64_t getHighWater() const { return highWater; }

private:
  int64_t alignment;
  std::set<std::pair<int64_t, int64_t>> live;
  int64_t highWater = 0;
};

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
    FirstFit placer(arch.getTileSramAlignment());
    DenseMap<Value, int64_t> offsets;
    SmallVector<std::pair<memref::AllocOp, int64_t>> placed;
    for (Operation &op : core.getBody().front()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        MemRefType type = alloc.getType();
        if (getMemorySpace(type) != MemorySpace::sram)
          continue;
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          return alloc.emitOpError("must be statically shaped with an "
                                   "identity layout to be placed in SRAM");
        int64_t offset = placer.allocate(getSizeInBytes(type));
        if (placer.getHighWater() > sramBytes)
          return alloc.emitOpError()
                 << "does not fit in the SRAM of tile (" << tile.getRow()
                 << ", " << tile.getCol() << "): the buffers live here need "
                 << placer.getHighWater() << " bytes and the SRAM holds "
                 << sramBytes << " bytes";
        offsets[alloc.getResult()] = offset;
        placed.emplace_back(alloc, offset);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        auto it = offsets.find(dealloc.getMemref());
        if (it != offsets.end())
          placer.free(it->second);
      }
    }
    if (placed.empty())
      return success();

    // The arena, declared just before the core, among the device's buffers.
    OpBuilder builder(core);
    auto arenaType = MemRefType::get(
        {placer.getHighWater()}, builder.getI8Type(), MemRefLayoutAttrInterface(),
        MemorySpaceAttr::get(builder.getContext(), MemorySpace::sram));
    std::string name = "sram_" + std::to_string(tile.getRow()) + "_" +
                       std::to_string(tile.getCol());
    auto arena = BufferOp::create(builder, core.getLoc(), arenaType, name,
                                  tile.getResult(), builder.getI64IntegerAttr(0));

    IRRewriter rewriter(builder);
    for (auto [alloc, offset] : placed) {
      rewriter.setInsertionPoint(alloc);
      Value shift = arith::ConstantIndexOp::create(rewriter, alloc.getLoc(), offset);
      Value view = memref::ViewOp::create(rewriter, alloc.getLoc(),
                                          alloc.getType(), arena.getResult(),
                                          shift, ValueRange{});
      rewriter.replaceOp(alloc, view);
    }
    for (Operation &op : llvm::make_early_inc_range(core.getBody().front()))
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        if (dealloc.getMemref().getDefiningOp<memref::ViewOp>())
          rewriter.eraseOp(dealloc);
    return success();
  }
};

} // namespace
} // namespace mlir::tessel
