//===- TransposesIntoMatmuls.cpp - Matmuls read transposed operands -------===//
//
// Attention's scores are `q @ k.transpose(-2, -1)`: the keys, split into
// heads by a transpose that keeps their innermost dimension, then
// transposed again across it. The second transpose is an op: mapped, it
// loads the keys, stores the permuted copy through DRAM, and the batch
// matmul loads the copy back. But the MAC array reads its operands through
// strided views in SRAM, a transposed one as well as any
// (tessel-lower-to-instructions), so the matmul can read the keys as they
// are: this pass swaps the transpose's last two dimensions back and swaps
// the operand's two dimensions in the matmul's indexing map instead. What
// is left of the transpose keeps the innermost dimension (the heads'
// split), which tessel-transposes-as-views reads in place, or is none.
//
// Only where the transpose (and a collapse of its leading dimensions
// between it and the matmul) has no other user, and its permutation with
// the last two dimensions swapped keeps the innermost one: elsewhere the
// transpose would stay an op, as costly as before.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELTRANSPOSESINTOMATMULS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// `values` with its last two entries swapped.
template <typename T>
SmallVector<T> withLastTwoSwapped(ArrayRef<T> values) {
  SmallVector<T> swapped(values);
  std::swap(swapped[swapped.size() - 2], swapped.back());
  return swapped;
}

/// Makes `matmul` read its input `operand`, a transpose (through at most
/// one collapse of the transpose's leading dimensions), with the
/// transpose's last two dimensions swapped back and the operand's two
/// swapped in the matmul's indexing map instead, where what is left of the
/// transpose keeps the innermost dimension or is none. Returns whether it
/// folded.
bool foldTranspose(linalg::LinalgOp matmul, OpOperand &operand) {
  // A broadcast operand (a map with fewer results than the op's loops of
  // its kind) has no transposed map the op accepts.
  AffineMap map = matmul.getMatchingIndexingMap(&operand);
  if (map.getNumResults() != matmul.getNumLoops() - 1)
    return false;
  Value value = operand.get();
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (collapse) {
    if (!collapse->hasOneUse())
      return false;
    value = collapse.getSrc();
  }
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics() ||
      !transpose->hasOneUse())
    return false;
  auto inputType = cast<RankedTensorType>(transpose.getInput().getType());
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  int64_t rank = permutation.size();
  if (rank < 2 || !inputType.hasStaticShape())
    return false;
  SmallVector<int64_t> kept = withLastTwoSwapped(permutation);
  if (kept.back() != rank - 1)
    return false;
  // The collapse groups leading dimensions only: the last two stay whole.
  SmallVector<ReassociationIndices> groups;
  if (collapse) {
    groups = collapse.getReassociationIndices();
    if (groups.size() < 2 ||
        groups.back() != ReassociationIndices{rank - 1} ||
        groups[groups.size() - 2] != ReassociationIndices{rank - 2})
      return false;
  }

  OpBuilder builder(transpose);
  Location loc = transpose.getLoc();
  Value input = transpose.getInput();
  Value read = input;
  if (!llvm::equal(kept, llvm::seq<int64_t>(0, rank))) {
    SmallVector<int64_t> shape;
    for (int64_t dim : kept)
      shape.push_back(inputType.getDimSize(dim));
    Value init = tensor::EmptyOp::create(builder, loc, shape,
                                         inputType.getElementType());
    read = linalg::TransposeOp::create(builder, loc, input, init, kept)
               ->getResult(0);
  }
  if (collapse)
    read = tensor::CollapseShapeOp::create(builder, collapse.getLoc(), read,
                                           groups);

  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  maps[operand.getOperandNumber()] =
      AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                     withLastTwoSwapped(map.getResults()), map.getContext());
  operand.set(read);
  matmul->setAttr("indexing_maps", builder.getAffineMapArrayAttr(maps));
  if (collapse)
    collapse.erase();
  Operation *init = transpose.getInit().getDefiningOp();
  transpose.erase();
  if (isa_and_nonnull<tensor::EmptyOp>(init) && init->use_empty())
    init->erase();
  return true;
}

struct TransposesIntoMatmuls
    : impl::TesselTransposesIntoMatmulsBase<TransposesIntoMatmuls> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
          op.hasPureTensorSemantics())
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp matmul : matmuls)
      for (OpOperand *input : matmul.getDpsInputOperands())
        numTransposesFolded += foldTranspose(matmul, *input);
  }
};

} // namespace
} // namespace mlir::tessel
