//===- FuseElementwise.cpp - Elementwise chains as one op -----------------===//
//
// Upstream's elementwise fusion also propagates reshapes through ops, which
// rewrites a matmul after a flatten into a multi-dimensional contraction.
// Tessel keeps matmuls as matmuls (the MAC array's op) and fuses only
// elementwise producers into elementwise consumers, and into the reductions
// the vector unit computes that read them at their own indices or broadcast
// along reduced loops (a layer norm's squared deviations into their sum):
// the reduction's lowering evaluates the producer's body before it reduces,
// so that tensor never goes to DRAM. A producer read by a reduction
// and others fuses into each where all can take it and it reads, besides
// one whole tensor, only values per row (softmax's exponentials: computed
// twice, never stored; a causal mask read again by each would cost more
// than it saves). A producer that looks
// integers up (not booleans) stays an op of its own: its consumer reads them
// as indices, and fused, an index looked up in one table would pick the row
// of another in the same body, a gather of a gather that one dma_gather
// cannot do (BERT's token types: token_type_ids[position_ids]). Arithmetic
// on indices does fuse: an ONNX Gather's wrap of negative ids then lies in
// the gather's body, where the lowering reads it as the gather's wrap; where
// a reshape of the indices lies between them (ONNX's Gather of ids [1, 8]
// reads them flat), the lookup takes the indices' shape so that they meet.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFUSEELEMENTWISE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isElementwise(linalgOp);
}

/// A reduction the vector unit computes (a generic with reduction loops
/// into one output, not a named contraction): its body may start with
/// elementwise work, which the lowering evaluates before it reduces.
bool isVectorReduction(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumReductionLoops() != 0 &&
         generic.getNumDpsInits() == 1;
}

/// Whether `producer` reads at most one tensor of its result's size, so that
/// the reduction it fuses into reads no more than it did: a layer norm's
/// deviations (x and its mean), not a residual add (two whole tensors),
/// which run better as the epilogue of the convolution before them.
bool readsOneWholeTensor(Operation *producer) {
  auto generic = cast<linalg::LinalgOp>(producer);
  return llvm::count_if(generic.getDpsInputOperands(), [&](OpOperand *input) {
           return generic.getMatchingIndexingMap(input).isPermutation();
         }) <= 1;
}

/// Whether every input of `producer` is either a whole tensor or holds one
/// value per row (the innermost loop left out: a softmax's maxima), so
/// that computing it again in each reader reads little more: not a mask or
/// a scale over the columns, read again by every reader.
bool readsWholeTensorsOrRows(Operation *producer) {
  auto generic = cast<linalg::LinalgOp>(producer);
  if (generic.getNumLoops() == 0)
    return true;
  unsigned innermost = generic.getNumLoops() - 1;
  return llvm::all_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    return map.isPermutation() || !map.isFunctionOfDim(innermost);
  });
}

/// Whether the reduction owning input `use` reads it at its own indices or
/// broadcast along loops it reduces only (a layer norm's mean, once per
/// row): computed in the reduction, the producer is computed again at most
/// once per element reduced, not along a loop the reduction keeps (a
/// contraction `sum_k f(a[i, k]) * b[k, j]` would compute `f` once per `j`).
bool readsAlongReducedLoopsOnly(OpOperand &use) {
  auto reduction = cast<linalg::GenericOp>(use.getOwner());
  if (!reduction.isDpsInput(&use))
    return false;
  AffineMap map = reduction.getMatchingIndexingMap(&use);
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return false;
  for (auto [loop, iterator] :
       llvm::enumerate(reduction.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel &&
        !map.isFunctionOfDim(loop))
      return false;
  return true;
}

bool looksUp(Operation *op) {
  bool lookup = false;
  op->walk([&](tensor::ExtractOp) { lookup = true; });
  return lookup;
}

/// Whether `type` holds integers that may be indices (not booleans).
bool holdsIndices(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIntOrIndex() && !element.isInteger(1);
}

bool looksUpIndices(Operation *op) {
  return looksUp(op) && llvm::any_of(op->getResultTypes(), holdsIndices);
}

/// Index arithmetic: an elementwise op computing integers (not booleans)
/// without looking anything up.
bool computesIndices(Operation *op) {
  return isElementwise(op) && !looksUpIndices(op) &&
         llvm::all_of(op->getResultTypes(), holdsIndices);
}

struct FuseElementwise : impl::TesselFuseElementwiseBase<FuseElementwise> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // A lookup that reads computed indices through a collapsing reshape
    // takes the indices' own shape.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *fused) {
          auto collapse = fused->get().getDefiningOp<tensor::CollapseShapeOp>();
          Operation *producer =
              collapse ? collapse.getSrc().getDefiningOp() : nullptr;
          return producer && computesIndices(producer) &&
                 looksUp(fused->getOwner());
        });
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          if (!isElementwise(producer) || looksUpIndices(producer))
            return false;
          auto takesIt = [&](OpOperand &use) {
            Operation *consumer = use.getOwner();
            if (isElementwise(consumer))
              return true;
            return isVectorReduction(consumer) && !looksUp(producer) &&
                   readsOneWholeTensor(producer) &&
                   readsAlongReducedLoopsOnly(use);
          };
          // A producer with several readers fuses into each only where one
          // of them is a reduction and every one takes it, so that it goes:
          // softmax's exp(x - max) into its sum and into the division by
          // it, computed twice on the vector unit instead of stored and
          // read twice.
          auto uses = producer->getUses();
          bool goes =
              producer->hasOneUse() ||
              (llvm::all_of(uses,
                            [&](OpOperand &use) {
                              return linalg::areElementwiseOpsFusable(&use) &&
                                     takesIt(use);
                            }) &&
               llvm::any_of(producer->getUsers(), isVectorReduction) &&
               readsWholeTensorsOrRows(producer));
          return goes && takesIt(*fused);
        });
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
