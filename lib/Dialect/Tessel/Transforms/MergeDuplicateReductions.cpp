//===- MergeDuplicateReductions.cpp - Each reduction computed once --------===//
//
// torch-mlir's layer norm computes its mean twice: once through f64 for the
// variance and once for the normalization. Narrowed to f32 and fused, the
// two are the same reduction of the same tensor, but each accumulates into
// a zero fill of its own, so CSE does not find them equal (and CSE would
// also merge the fills, which every accumulating op needs one of). On the
// chip each is a whole pass over the tensor and a barrier. This pass keeps
// the first and reads it for the second; nothing else moves.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELMERGEDUPLICATEREDUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The fill `init` is the result of, where it fills a tensor.empty.
linalg::FillOp getFreshFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return {};
  return fill;
}

/// Whether `a` and `b` fill tensors of one type with the same value (one
/// value, or equal constants).
bool fillsAlike(linalg::FillOp a, linalg::FillOp b) {
  if (!a || !b || a.getResultTypes() != b.getResultTypes())
    return false;
  Value x = a.getInputs()[0], y = b.getInputs()[0];
  Attribute xValue, yValue;
  return x == y || (matchPattern(x, m_Constant(&xValue)) &&
                    matchPattern(y, m_Constant(&yValue)) && xValue == yValue);
}

/// A reduction this pass merges: a generic on tensors with reduction loops
/// and one output, accumulating into a fresh fill.
bool isMergeable(linalg::GenericOp generic) {
  return generic.hasPureTensorSemantics() &&
         generic.getNumReductionLoops() != 0 &&
         generic.getNumDpsInits() == 1 &&
         getFreshFill(generic.getDpsInits()[0]);
}

/// Whether `later` computes what `earlier` does: upstream's operation
/// equivalence (attributes, result types, bodies), with the same inputs and
/// a fill alike as the accumulator.
bool computesTheSame(linalg::GenericOp earlier, linalg::GenericOp later) {
  // The bodies' block arguments and results, matched as they are compared.
  DenseMap<Value, Value> matched;
  auto check = [&](Value a, Value b) {
    return success(a == b || matched.lookup(a) == b ||
                   fillsAlike(getFreshFill(a), getFreshFill(b)));
  };
  auto mark = [&](Value a, Value b) { matched[a] = b; };
  return OperationEquivalence::isEquivalentTo(
      earlier, later, check, mark, OperationEquivalence::IgnoreLocations);
}

struct MergeDuplicateReductions
    : impl::TesselMergeDuplicateReductionsBase<MergeDuplicateReductions> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> seen;
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp generic) {
      if (isMergeable(generic))
        generics.push_back(generic);
    });
    for (linalg::GenericOp generic : generics) {
      auto earlier = llvm::find_if(seen, [&](linalg::GenericOp candidate) {
        return candidate->getBlock() == generic->getBlock() &&
               computesTheSame(candidate, generic);
      });
      if (earlier == seen.end()) {
        seen.push_back(generic);
        continue;
      }
      linalg::FillOp fill = getFreshFill(generic.getDpsInits()[0]);
      Operation *empty = fill.getOutputs()[0].getDefiningOp();
      generic->replaceAllUsesWith(*earlier);
      generic->erase();
      if (fill->use_empty())
        fill->erase();
      if (empty->use_empty())
        empty->erase();
      ++numReductionsMerged;
    }
  }
};

} // namespace
} // namespace mlir::tessel
