//===- DramWindows.h - The elements of a DRAM buffer a load reads -*- C++ -*-===//
//
// Which elements of its DRAM buffer a view reads, as a box of the buffer:
// tessel-share-loads shares the loads whose boxes are equal or overlap, and
// tessel-schedule moves into earlier ops the weight loads whose box no
// other tile's load of their op overlaps.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_DRAMWINDOWS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_DRAMWINDOWS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessel {

/// The elements of its DRAM buffer a load reads: per dimension of the
/// buffer, `[lo, hi)` (tessel-share-loads also gives a view that is not a
/// box of its buffer a window of its own; see there).
struct DramWindow {
  SmallVector<int64_t> lo, hi;
  /// Per dimension of the view, the buffer's dimension it runs along; -1
  /// for a dimension of size 1 (or for every dimension when not a box).
  SmallVector<int> bufferDimOf;

  bool overlaps(const DramWindow &other) const {
    for (auto [lo, hi, otherLo, otherHi] :
         llvm::zip_equal(lo, hi, other.lo, other.hi))
      if (hi <= otherLo || otherHi <= lo)
        return false;
    return true;
  }
};

/// The box of `bufferType` (identity layout) that a view of `shape`,
/// `strides` and `offset` covers, or none when the view's dimensions are
/// not dimensions of the buffer (a strided step, a reshaped view).
std::optional<DramWindow> getBox(MemRefType bufferType,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> strides, int64_t offset);

/// The box of its DRAM buffer that `view` (a view of a `tessel.dram_buffer`
/// with static strides and offset, through no `memref.view`) covers, or
/// none where it is not a box.
std::optional<DramWindow> getDramBox(Value view);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_DRAMWINDOWS_H
