//===- TransposesAsViews.cpp - Transposes read in place -------------------===//
//
// A transpose between ops (the heads of attention split out of a
// projection, `q.view(b, t, h, d).transpose(1, 2)`) is data movement only:
// as a linalg op it is mapped, loads its input from DRAM and stores the
// permuted copy back, and its readers load the copy. A DMA reads a strided
// window as well as a contiguous one, so the readers can load their windows
// of the transposed tensor from the untransposed one: the transpose becomes
// a tessel.transpose_view, which costs no op, no buffer and no copy.
//
// Only where the loads stay efficient and every reader can take a view:
// the permutation keeps the innermost dimension, of 64 bytes or more (a
// load of a window that spans it moves runs of contiguous elements that
// long), the source is not a weight, and every user of the transpose reads
// it as the input of a linalg op, directly or through one reshape whose
// groups the permuted strides allow (bufferized, a collapse of dimensions
// that are not contiguous would need a copy, which the chip cannot run).
// The pass runs last in legalize, when the users of each transpose are
// final.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELTRANSPOSESASVIEWS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The shortest run of contiguous bytes a load of the view may move.
constexpr int64_t kMinRowBytes = 64;

/// Whether `use` reads its value as the input of a linalg op.
bool isLinalgInput(OpOperand &use) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return linalgOp && linalgOp.isDpsInput(&use);
}

/// Whether collapsing `groups` of a view of `shape` with `strides` gives a
/// strided view: in each group, every dimension of more than one element
/// steps over the next such one whole. `merges` is set where a group holds
/// more than one such dimension.
bool isCollapsible(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                   ArrayRef<ReassociationIndices> groups, bool &merges) {
  merges = false;
  for (const ReassociationIndices &group : groups) {
    std::optional<int64_t> inner;
    for (int64_t d : llvm::reverse(group)) {
      if (shape[d] == 1)
        continue;
      if (inner) {
        merges = true;
        if (strides[d] != strides[*inner] * shape[*inner])
          return false;
      }
      inner = d;
    }
  }
  return true;
}

struct TransposesAsViews
    : impl::TesselTransposesAsViewsBase<TransposesAsViews> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp transpose) {
      if (canBeView(transpose))
        transposes.push_back(transpose);
    });
    for (linalg::TransposeOp transpose : transposes) {
      OpBuilder builder(transpose);
      auto view = TransposeViewOp::create(
          builder, transpose.getLoc(), transpose.getResult().front().getType(),
          transpose.getInput(), transpose.getPermutationAttr());
      transpose.getResult().front().replaceAllUsesWith(view.getResult());
      transpose.erase();
      ++numTransposesAsViews;
    }
  }

  static bool canBeView(linalg::TransposeOp transpose) {
    if (!transpose.hasPureTensorSemantics())
      return false;
    Value input = transpose.getInput();
    auto source = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    int64_t rank = source.getRank();
    if (rank == 0 || !source.hasStaticShape() ||
        !source.getElementType().isIntOrFloat() ||
        permutation.back() != rank - 1 ||
        source.getDimSize(rank - 1) *
                static_cast<int64_t>(
                    source.getElementType().getIntOrFloatBitWidth() / 8) <
            kMinRowBytes)
      return false;
    // A weight is kept or streamed by its own rules (resident slices,
    // weights stored transposed), which read it at its own shape.
    if (getWeightArgument(input))
      return false;
    // The view's strides where the source is a tensor of its own (an
    // argument or an op's result), dense in row-major order. A view of a
    // view (a slice, a reshape) may have other strides: a collapse that
    // merges dimensions of more than one element is taken only on a dense
    // source.
    bool dense = isa<BlockArgument>(input) ||
                 input.getDefiningOp<linalg::LinalgOp>();
    SmallVector<int64_t> denseStrides(rank, 1), strides;
    for (int64_t d = rank - 2; d >= 0; --d)
      denseStrides[d] = denseStrides[d + 1] * source.getDimSize(d + 1);
    for (int64_t d : permutation)
      strides.push_back(denseStrides[d]);
    Value result = transpose.getResult().front();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(result.getType()).getShape();
    if (result.use_empty())
      return false;
    for (OpOperand &use : result.getUses()) {
      Operation *user = use.getOwner();
      if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(user)) {
        bool merges = false;
        if (!isCollapsible(shape, strides, collapse.getReassociationIndices(),
                           merges) ||
            (merges && !dense) ||
            !llvm::all_of(collapse.getResult().getUses(), isLinalgInput))
          return false;
        continue;
      }
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
        if (!llvm::all_of(expand.getResult().getUses(), isLinalgInput))
          return false;
        continue;
      }
      if (!isLinalgInput(use))
        return false;
    }
    return true;
  }
};

} // namespace
} // namespace mlir::tessel
