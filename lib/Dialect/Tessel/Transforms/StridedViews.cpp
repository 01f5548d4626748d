//===- StridedViews.cpp - Which elements an instruction touches -----------===//

#include "tessel/Dialect/Tessel/Transforms/StridedViews.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tessel;

std::optional<Extent> mlir::tessel::getExtent(Value view) {
  // Through the views whose strided layouts count from the allocation's
  // first element.
  for (Value v = view; Operation *def = v.getDefiningOp();) {
    if (isa<memref::AllocOp>(def))
      break;
    if (isa<memref::SubViewOp, memref::ReinterpretCastOp, StridedViewOp,
            memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(
            def))
      v = cast<ViewLikeOpInterface>(def).getViewSource();
    else if (auto transpose = dyn_cast<memref::TransposeOp>(def))
      v = transpose.getIn();
    else
      return std::nullopt;
  }
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  Extent extent{offset, offset};
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size == 0)
      return std::nullopt;
    (stride < 0 ? extent.first : extent.last) += (size - 1) * stride;
  }
  return extent;
}

bool mlir::tessel::touchesExtent(Operation *op, Value root,
                                 const Extent &extent) {
  return llvm::any_of(op->getOperands(), [&](Value v) {
    if (!isa<MemRefType>(v.getType()) || getViewRoot(v) != root)
      return false;
    std::optional<Extent> e = getExtent(v);
    return !e || e->overlaps(extent);
  });
}

std::optional<StridedBox> StridedBox::of(Value view) {
  auto type = cast<MemRefType>(view.getType());
  StridedBox box;
  if (!getExtent(view) ||
      failed(getStridesAndOffset(type, box.strides, box.offset)))
    return std::nullopt;
  box.sizes.assign(type.getShape().begin(), type.getShape().end());
  for (unsigned d = 0; d < box.sizes.size(); ++d)
    if (box.sizes[d] > 1)
      box.order.push_back(d);
  llvm::stable_sort(box.order, [&](unsigned a, unsigned b) {
    return box.strides[a] > box.strides[b];
  });
  return box;
}

bool StridedBox::nests() const {
  int64_t extent = 1;
  for (unsigned d : llvm::reverse(order)) {
    if (strides[d] < extent)
      return false;
    extent = strides[d] * sizes[d];
  }
  return true;
}

int64_t StridedBox::elements() const {
  int64_t n = 1;
  for (int64_t size : sizes)
    n *= size;
  return n;
}

void StridedBox::forEachElement(llvm::function_ref<void(int64_t)> fn) const {
  SmallVector<int64_t> at(sizes.size(), 0);
  if (elements() == 0)
    return;
  while (true) {
    int64_t element = offset;
    for (auto [i, stride] : llvm::zip(at, strides))
      element += i * stride;
    fn(element);
    int64_t d = static_cast<int64_t>(sizes.size()) - 1;
    for (; d >= 0 && ++at[d] == sizes[d]; --d)
      at[d] = 0;
    if (d < 0)
      return;
  }
}

bool StridedBox::indexOf(int64_t element,
                         SmallVectorImpl<int64_t> &index) const {
  index.assign(sizes.size(), 0);
  int64_t rest = element - offset;
  for (unsigned d : order) {
    int64_t i = rest / strides[d];
    if (rest < 0 || i >= sizes[d])
      return false;
    index[d] = i;
    rest -= i * strides[d];
  }
  return rest == 0;
}

IndexClaims::IndexClaims(Value root, const StridedBox &box)
    : root(root), box(box) {
  for (int64_t size : box.sizes) {
    claims.emplace_back(size > 1 ? size : 0, nullptr);
    unclaimed += claims.back().size();
  }
}

/// The indices of `box` that `touched` covers, per dimension of `box` a
/// range `[begin, begin + count)`, where `touched` is a box inside `box`
/// along its dimensions (a subview of it): each of its dimensions of more
/// than one element steps along one of `box`'s, within its bounds. Then
/// its elements are exactly the indices in those ranges, and need not be
/// visited one by one. Nullopt for any other view.
static std::optional<SmallVector<std::pair<int64_t, int64_t>>>
getAlignedRanges(const StridedBox &box, const StridedBox &touched) {
  if (!box.nests() || touched.elements() == 0)
    return std::nullopt;
  SmallVector<int64_t> start;
  if (!box.indexOf(touched.offset, start))
    return std::nullopt;
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t begin : start)
    ranges.push_back({begin, 1});
  for (auto [size, stride] : llvm::zip(touched.sizes, touched.strides)) {
    if (size == 1)
      continue;
    const unsigned *along = llvm::find_if(box.order, [&](unsigned d) {
      return box.strides[d] == stride && ranges[d].second == 1;
    });
    if (along == box.order.end() ||
        ranges[*along].first + size > box.sizes[*along])
      return std::nullopt;
    ranges[*along].second = size;
  }
  return ranges;
}

bool IndexClaims::claim(Operation *op) {
  SmallVector<int64_t> index;
  for (Value operand : op->getOperands()) {
    if (!isa<MemRefType>(operand.getType()) || getViewRoot(operand) != root)
      continue;
    std::optional<StridedBox> touched = StridedBox::of(operand);
    if (!touched || (budget -= touched->elements()) < 0)
      return false;
    if (auto ranges = getAlignedRanges(box, *touched)) {
      for (auto [d, range] : llvm::enumerate(*ranges)) {
        if (claims[d].empty())
          continue;
        for (int64_t i = range.first; i < range.first + range.second; ++i)
          if (!claims[d][i]) {
            claims[d][i] = op;
            --unclaimed;
          }
      }
      continue;
    }
    touched->forEachElement([&](int64_t element) {
      if (!box.indexOf(element, index))
        return;
      for (auto [d, i] : llvm::enumerate(index))
        if (!claims[d].empty() && !claims[d][i]) {
          claims[d][i] = op;
          --unclaimed;
        }
    });
  }
  return true;
}

SmallVector<TransferPiece> mlir::tessel::getTransferPieces(
    ArrayRef<Operation *> at, Operation *fallback, int64_t rowBytes,
    int64_t minPieceBytes,
    llvm::function_ref<Operation *(Operation *, Operation *)> pick) {
  auto small = [&](const TransferPiece &p) {
    return (p.end - p.begin) * rowBytes < minPieceBytes;
  };
  SmallVector<TransferPiece> pieces;
  for (auto [i, op] : llvm::enumerate(at)) {
    Operation *by = op ? op : fallback;
    int64_t index = static_cast<int64_t>(i);
    if (!pieces.empty() &&
        (pieces.back().at == by || small(pieces.back()))) {
      pieces.back().end = index + 1;
      pieces.back().at = pick(pieces.back().at, by);
    } else {
      pieces.push_back({index, index + 1, by});
    }
  }
  if (pieces.size() > 1 && small(pieces.back())) {
    TransferPiece last = pieces.pop_back_val();
    pieces.back().end = last.end;
    pieces.back().at = pick(pieces.back().at, last.at);
  }
  return pieces;
}
