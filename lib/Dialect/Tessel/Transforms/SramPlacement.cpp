//===- SramPlacement.cpp - Where a core's SRAM buffers go -----------------===//
//
// A core's body is straight-line code, so every SRAM allocation's lifetime
// is known before any is placed: from its memref.alloc to its
// memref.dealloc (or the end of the core). Placement is offline, largest
// first, each at the lowest aligned offset that no allocation live at the
// same time occupies ("greedy by size"). Placing in program order instead
// (first fit) fragments where small temporaries land between large step
// buffers and the next large buffer no longer fits below them, but packs a
// chain of equal buffers tighter: both are tried, the smaller arena kept.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/SramPlacement.h"

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

namespace mlir::tessel {

SmallVector<SramLifetime> collectSramLifetimes(CoreOp core, int64_t alignment,
                                               memref::AllocOp &unplaceable) {
  SmallVector<SramLifetime> lifetimes;
  DenseMap<Value, size_t> indexOf;
  Block &body = core.getBody().front();
  size_t position = 0;
  for (Operation &op : body) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (getMemorySpace(type) == MemorySpace::sram) {
        if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
          unplaceable = alloc;
          return {};
        }
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

/// Places `lifetimes` in `order`, each at the lowest offset that no
/// lifetime placed before it and live at the same time occupies; returns
/// the arena's bytes.
static int64_t placeInOrder(MutableArrayRef<SramLifetime> lifetimes,
                            ArrayRef<size_t> order) {
  for (SramLifetime &lifetime : lifetimes)
    lifetime.offset = -1;
  int64_t arenaBytes = 0;
  SmallVector<std::pair<int64_t, int64_t>> taken;
  for (size_t i : order) {
    SramLifetime &lifetime = lifetimes[i];
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

int64_t placeSramLifetimes(MutableArrayRef<SramLifetime> lifetimes) {
  SmallVector<size_t> inProgramOrder =
      llvm::to_vector(llvm::seq<size_t>(0, lifetimes.size()));
  SmallVector<size_t> bySize = inProgramOrder;
  llvm::stable_sort(bySize, [&](size_t a, size_t b) {
    return lifetimes[a].bytes > lifetimes[b].bytes;
  });
  int64_t sizeArena = placeInOrder(lifetimes, bySize);
  // A chain of equal step buffers (a convolution's outputs, each stored
  // while the next accumulates) can pack tighter in program order.
  SmallVector<int64_t> bySizeOffsets = llvm::map_to_vector(
      lifetimes, [](const SramLifetime &l) { return l.offset; });
  int64_t programArena = placeInOrder(lifetimes, inProgramOrder);
  if (programArena < sizeArena)
    return programArena;
  for (auto [lifetime, offset] : llvm::zip(lifetimes, bySizeOffsets))
    lifetime.offset = offset;
  return sizeArena;
}

bool sramBuffersFit(CoreOp core) {
  ArchAttr arch = lookupArch(core);
  memref::AllocOp unplaceable;
  SmallVector<SramLifetime> lifetimes =
      collectSramLifetimes(core, arch.getTileSramAlignment(), unplaceable);
  return !unplaceable &&
         placeSramLifetimes(lifetimes) <= arch.getTileSramBytes();
}

} // namespace mlir::tessel
