//===- ExtractsAsOperands.cpp - Lookups at loop indices as operands -------===//
//
// torch-mlir lowers an embedding lookup to a linalg.generic whose body reads
// the table with tensor.extract at indices it computes. When the indices are
// the op's own loop indices, the lookup is no lookup at all but an ordinary
// read: Whisper's and BERT's position embeddings index the table with
// `arange(sequence)`, which tessel-fold-constant-tensors has made a
// constant tensor `[0, 1, 2, ...]`. This pass
//
// - replaces an integer operand that is such a progression (a constant
//   tensor varying along one dimension as `start + step * i`) by the loop
//   index that it reads, computed in the body (`linalg.index`), and
// - turns a tensor.extract whose indices are each one loop index of the op
//   (distinct loops, through index casts) into an input of the op read with
//   the corresponding indexing map, so that the mapper, partitioning and the
//   lowering see an op they know.
//
// Lookups at data-dependent indices (token embeddings) are gathers and stay.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEXTRACTSASOPERANDS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// `start + step * i` along the one dimension of a constant integer tensor
/// that varies (`dim`), if it is such a progression.
struct Progression {
  int64_t dim, start, step;
};

std::optional<Progression> getProgression(Value value) {
  DenseIntElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = cast<RankedTensorType>(attr.getType());
  SmallVector<int64_t> varying;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (size > 1)
      varying.push_back(dim);
  if (varying.size() != 1)
    return std::nullopt;
  SmallVector<APInt> values(attr.getValues<APInt>());
  int64_t start = values[0].getSExtValue();
  int64_t step = values.size() > 1 ? values[1].getSExtValue() - start : 0;
  for (auto [i, v] : llvm::enumerate(values))
    if (v.getSExtValue() != start + step * static_cast<int64_t>(i))
      return std::nullopt;
  return Progression{varying.front(), start, step};
}

/// The loop whose index `value` is (through index casts), if it is one.
std::optional<unsigned> getLoopIndex(Value value) {
  while (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  if (auto index = value.getDefiningOp<linalg::IndexOp>())
    return index.getDim();
  return std::nullopt;
}

/// Replaces the block arguments of `generic` that read integer
/// progressions with the loop index they read; returns their inputs, which
/// nothing reads any more.
SmallVector<unsigned> foldProgressions(linalg::GenericOp generic) {
  SmallVector<unsigned> folded;
  Block &body = generic.getRegion().front();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    std::optional<Progression> progression = getProgression(input->get());
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (!progression || arg.use_empty() || !arg.getType().isSignlessInteger())
      continue;
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(progression->dim));
    if (!dim)
      continue;
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    Location loc = generic.getLoc();
    Value index = linalg::IndexOp::create(builder, loc, dim.getPosition());
    Value scaled = arith::AddIOp::create(
        builder, loc,
        arith::MulIOp::create(
            builder, loc, index,
            arith::ConstantIndexOp::create(builder, loc, progression->step)),
        arith::ConstantIndexOp::create(builder, loc, progression->start));
    arg.replaceAllUsesWith(
        arith::IndexCastOp::create(builder, loc, arg.getType(), scaled));
    folded.push_back(input->getOperandNumber());
  }
  return folded;
}

/// The loops the indices of `extract` are, if each is a distinct loop index
/// of its op (after folding `i * 1 + 0`, which foldProgressions leaves).
std::optional<SmallVector<unsigned>> getExtractLoops(tensor::ExtractOp extract) {
  SmallVector<unsigned> loops;
  for (Value index : extract.getIndices()) {
    // index * 1 + 0, as a progression of step 1 from 0 reads.
    while (auto cast = index.getDefiningOp<arith::IndexCastOp>())
      index = cast.getIn();
    if (auto add = index.getDefiningOp<arith::AddIOp>())
      if (matchPattern(add.getRhs(), m_Zero()))
        index = add.getLhs();
    if (auto mul = index.getDefiningOp<arith::MulIOp>())
      if (matchPattern(mul.getRhs(), m_One()))
        index = mul.getLhs();
    std::optional<unsigned> loop = getLoopIndex(index);
    if (!loop || llvm::is_contained(loops, *loop))
      return std::nullopt;
    loops.push_back(*loop);
  }
  return loops;
}

/// `generic` without the inputs `unread` (which its body no longer reads)
/// and with each tensor.extract of a tensor defined outside it at distinct
/// loop indices read as an input instead.
void rebuild(linalg::GenericOp generic, ArrayRef<unsigned> unread) {
  SmallVector<tensor::ExtractOp> extracts;
  SmallVector<SmallVector<unsigned>> loopsOf;
  generic.getRegion().walk([&](tensor::ExtractOp extract) {
    if (generic.getRegion().isAncestor(extract.getTensor().getParentRegion()))
      return;
    if (std::optional<SmallVector<unsigned>> loops = getExtractLoops(extract)) {
      extracts.push_back(extract);
      loopsOf.push_back(*loops);
    }
  });
  if (extracts.empty() && unread.empty())
    return;

  MLIRContext *ctx = generic.getContext();
  unsigned numLoops = generic.getNumLoops();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (llvm::is_contained(unread, input->getOperandNumber()))
      continue;
    inputs.push_back(input->get());
    maps.push_back(generic.getMatchingIndexingMap(input));
  }
  for (auto [extract, loops] : llvm::zip(extracts, loopsOf)) {
    inputs.push_back(extract.getTensor());
    SmallVector<AffineExpr> results;
    for (unsigned loop : loops)
      results.push_back(getAffineDimExpr(loop, ctx));
    maps.push_back(AffineMap::get(numLoops, 0, results, ctx));
  }
  for (OpOperand &init : generic.getDpsInitsMutable())
    maps.push_back(generic.getMatchingIndexingMap(&init));

  OpBuilder builder(generic);
  auto rebuilt = linalg::GenericOp::create(
      builder, generic.getLoc(), generic.getResultTypes(), inputs,
      generic.getDpsInits(), maps, generic.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
  rebuilt.getRegion().takeBody(generic.getRegion());
  Block &body = rebuilt.getRegion().front();
  for (unsigned input : llvm::reverse(unread))
    body.eraseArgument(input);
  // The new inputs' arguments go after the old inputs', before the inits'.
  unsigned at = generic.getNumDpsInputs() - unread.size();
  for (auto [i, extract] : llvm::enumerate(extracts)) {
    BlockArgument arg =
        body.insertArgument(at + i, extract.getType(), extract.getLoc());
    extract.replaceAllUsesWith(arg);
    extract.erase();
  }
  generic.replaceAllUsesWith(rebuilt.getResults());
  generic.erase();
}

struct ExtractsAsOperands
    : impl::TesselExtractsAsOperandsBase<ExtractsAsOperands> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        generics.push_back(op);
    });
    for (linalg::GenericOp generic : generics)
      rebuild(generic, foldProgressions(generic));
  }
};

} // namespace
} // namespace mlir::tessel
