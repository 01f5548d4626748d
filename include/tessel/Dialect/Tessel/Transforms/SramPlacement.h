//===- SramPlacement.h - Where a core's SRAM buffers go -----------*- C++ -*-===//
//
// The placement tessel-allocate-sram makes, available to the passes before
// it that must know whether what they do still fits (tessel-schedule, which
// lengthens buffers' lifetimes).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_SRAMPLACEMENT_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_SRAMPLACEMENT_H

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tessel {

/// An SRAM allocation of a core and the ops it is live across.
struct SramLifetime {
  memref::AllocOp alloc;
  int64_t bytes;
  /// Positions in the core's body of the alloc and of its dealloc (the end
  /// of the body when it has none).
  size_t begin, end;
  /// The lifetimes live at the same time as this one (indices).
  SmallVector<size_t> overlapping;
  int64_t offset = -1;
};

/// The SRAM allocations of `core`'s body, each `alignment`-aligned and with
/// the others it overlaps; or the first that cannot be placed (not
/// statically shaped with an identity layout), in `unplaceable`.
SmallVector<SramLifetime> collectSramLifetimes(CoreOp core, int64_t alignment,
                                               memref::AllocOp &unplaceable);

/// Places every lifetime at the lowest offset clear of the overlapping
/// lifetimes already placed, largest first (ties in program order) or in
/// program order, whichever arena is smaller (ties: largest first); returns
/// the arena's size.
int64_t placeSramLifetimes(MutableArrayRef<SramLifetime> lifetimes);

/// Whether the SRAM buffers of `core`, as its body allocates them now, fit
/// its tile's SRAM when placed as tessel-allocate-sram places them.
bool sramBuffersFit(CoreOp core);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_SRAMPLACEMENT_H
