//===- DramWindows.cpp - The elements of a DRAM buffer a load reads ------===//

#include "tessel/Dialect/Tessel/Transforms/DramWindows.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tessel {

std::optional<DramWindow> getBox(MemRefType bufferType,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> strides, int64_t offset) {
  if (!bufferType.getLayout().isIdentity() || bufferType.getRank() == 0)
    return std::nullopt;
  ArrayRef<int64_t> bufferShape = bufferType.getShape();
  SmallVector<int64_t> bufferStrides(bufferShape.size(), 1);
  for (int64_t b = static_cast<int64_t>(bufferShape.size()) - 2; b >= 0; --b)
    bufferStrides[b] = bufferStrides[b + 1] * bufferShape[b + 1];

  DramWindow window;
  window.bufferDimOf.assign(shape.size(), -1);
  SmallVector<bool> taken(bufferShape.size(), false);
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    int found = -1;
    for (size_t b = 0; b < bufferShape.size(); ++b)
      if (!taken[b] && bufferShape[b] > 1 && bufferStrides[b] == strides[d]) {
        found = static_cast<int>(b);
        break;
      }
    if (found < 0)
      return std::nullopt;
    taken[found] = true;
    window.bufferDimOf[d] = found;
  }
  // The offset in the buffer's coordinates (row-major: the last stride is
  // one).
  int64_t rest = offset;
  for (int64_t stride : bufferStrides) {
    window.lo.push_back(rest / stride);
    rest %= stride;
  }
  if (window.lo.front() >= bufferShape.front())
    return std::nullopt;
  window.hi = llvm::map_to_vector(window.lo, [](int64_t lo) { return lo + 1; });
  for (auto [d, b] : llvm::enumerate(window.bufferDimOf)) {
    if (b < 0)
      continue;
    window.hi[b] = window.lo[b] + shape[d];
    if (window.hi[b] > bufferShape[b])
      return std::nullopt;
  }
  return window;
}

std::optional<DramWindow> getDramBox(Value view) {
  auto type = cast<MemRefType>(view.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || !type.hasStaticShape())
    return std::nullopt;
  // A byte view's offsets are its own, in its own element type.
  for (Value v = view; Operation *def = v.getDefiningOp();) {
    if (isa<memref::ViewOp>(def))
      return std::nullopt;
    if (auto transpose = dyn_cast<memref::TransposeOp>(def)) {
      v = transpose.getIn();
      continue;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    v = viewLike.getViewSource();
  }
  Value root = getViewRoot(view);
  if (!root.getDefiningOp<DramBufferOp>())
    return std::nullopt;
  return getBox(cast<MemRefType>(root.getType()), type.getShape(), strides,
                offset);
}

} // namespace mlir::tessel
