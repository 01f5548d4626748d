//===- FoldWeightTransposes.cpp - Store weights in the layout ops read ----===//
//
// `nn.Linear` keeps its weight as (out, in) and imports as a transpose of
// the weight followed by a matmul, so every run of the program transposes
// every linear layer's weight on the chip, through DRAM. Weights are known
// before the program runs: the transpose can be done once, when the weight
// is written into DRAM. This pass makes a weight argument whose every use is
// the same transpose the transposed weight itself, and records the
// permutation on the argument (`tessel.permutation`), which becomes the
// DRAM buffer's `permuted` and which the emitter applies to the weight's
// data.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDWEIGHTTRANSPOSES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The transposes that are every use of `arg`, all with one permutation,
/// or none.
SmallVector<linalg::TransposeOp> getOnlyTransposes(BlockArgument arg) {
  SmallVector<linalg::TransposeOp> transposes;
  for (OpOperand &use : arg.getUses()) {
    auto transpose = dyn_cast<linalg::TransposeOp>(use.getOwner());
    if (!transpose || !transpose.hasPureTensorSemantics() ||
        use.get() != transpose.getInput() ||
        (!transposes.empty() && transpose.getPermutation() !=
                                    transposes.front().getPermutation()))
      return {};
    transposes.push_back(transpose);
  }
  return transposes;
}

struct FoldWeightTransposes
    : impl::TesselFoldWeightTransposesBase<FoldWeightTransposes> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    bool changed = false;
    for (BlockArgument arg : func.getArguments()) {
      unsigned index = arg.getArgNumber();
      if (!isWeightArgument(func, index) ||
          func.getArgAttr(index, "tessel.permutation"))
        continue;
      SmallVector<linalg::TransposeOp> transposes = getOnlyTransposes(arg);
      if (transposes.empty())
        continue;
      ArrayRef<int64_t> permutation = transposes.front().getPermutation();
      func.setArgAttr(index, "tessel.permutation",
                      DenseI64ArrayAttr::get(ctx, permutation));
      arg.setType(transposes.front().getResult().front().getType());
      for (linalg::TransposeOp transpose : transposes) {
        transpose.getResult().front().replaceAllUsesWith(arg);
        transpose.erase();
      }
      ++numWeightsTransposed;
      changed = true;
    }
    if (changed)
      func.setFunctionType(FunctionType::get(
          ctx, func.getBody().getArgumentTypes(), func.getResultTypes()));
  }
};

} // namespace
} // namespace mlir::tessel
