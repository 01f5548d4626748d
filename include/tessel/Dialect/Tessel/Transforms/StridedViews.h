//===- StridedViews.h - Which elements an instruction touches ----*- C++ -*-===//
//
// Before tessel-allocate-sram every SRAM buffer of a core is an allocation of
// its own, and the views instructions read and write have static strided
// layouts: which elements of an allocation an instruction touches can be
// read from them exactly. tessel-early-stores and tessel-early-loads cut a
// transfer into the pieces that different instructions write last or read
// first.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_STRIDEDVIEWS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_STRIDEDVIEWS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessel {

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
std::optional<Extent> getExtent(Value view);

/// Whether `op`, an instruction or a transfer, could touch elements of
/// `root` within `extent`.
bool touchesExtent(Operation *op, Value root, const Extent &extent);

/// A view with a static strided layout: its elements' offsets in its
/// allocation.
struct StridedBox {
  int64_t offset;
  SmallVector<int64_t> sizes, strides;
  /// The dimensions of more than one element, largest stride first.
  SmallVector<unsigned> order;

  static std::optional<StridedBox> of(Value view);

  /// Whether each dimension's stride is at least the extent of those with
  /// smaller strides, so that an element has one index (`indexOf`).
  bool nests() const;

  int64_t elements() const;

  void forEachElement(llvm::function_ref<void(int64_t)> fn) const;

  /// The index of `element` in this view, if it is one of its elements;
  /// for a view that nests (`nests`).
  bool indexOf(int64_t element, SmallVectorImpl<int64_t> &index) const;
};

/// How many elements of the instructions' views one transfer may visit to
/// tell which of its indices each touches (a step's slice is far smaller).
constexpr int64_t kMaxElementsVisited = int64_t{1} << 24;

/// For every dimension of a transfer's slice (`box`, a view of allocation
/// `root`), the instruction each of its indices is claimed by: the first
/// of the instructions offered (`claim`) that touches an element at that
/// index. A store offers the instructions before it, last first (each
/// index's last writer); a load those after its wait (each index's first
/// reader).
class IndexClaims {
public:
  IndexClaims(Value root, const StridedBox &box);

  /// Claims for `op` the unclaimed indices whose elements it touches; false
  /// where its views cannot be read, or would take more than
  /// `kMaxElementsVisited` elements in all.
  bool claim(Operation *op);

  /// Whether every index of every dimension of more than one is claimed.
  bool complete() const { return unclaimed == 0; }

  /// Per dimension, the instruction claiming each index (null: none);
  /// empty for a dimension of one index.
  ArrayRef<SmallVector<Operation *>> getClaims() const { return claims; }

private:
  Value root;
  const StridedBox &box;
  SmallVector<SmallVector<Operation *>> claims;
  int64_t unclaimed = 0;
  int64_t budget = kMaxElementsVisited;
};

/// One piece of a transfer cut along one dimension: indices `[begin, end)`,
/// and the instruction it is placed by (the last to write it, or the first
/// to read it).
struct TransferPiece {
  int64_t begin, end;
  Operation *at;
};

/// Consecutive indices of one dimension, of `rowBytes` each, that share
/// their instruction in `at` (null: the transfer's own place, `fallback`)
/// form a piece; a piece under `minPieceBytes` joins its neighbour, placed
/// by `pick` of the two instructions (the later one for a store's last
/// writer, the earlier one for a load's first reader).
SmallVector<TransferPiece>
getTransferPieces(ArrayRef<Operation *> at, Operation *fallback,
                  int64_t rowBytes, int64_t minPieceBytes,
                  llvm::function_ref<Operation *(Operation *, Operation *)> pick);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_STRIDEDVIEWS_H
