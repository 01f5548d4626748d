//===- ExtractsAsOperands.cpp - Lookups at loop indices as operands -------===//
//
// torch-mlir lowers an embedding lookup to a linalg.generic whose body reads
// the table with tensor.extract at indices it computes. When the indices are
// the op's own loop indices, the lookup is no lookup at all but an ordinary
// read: Whisper's and BERT's position embeddings index the table with
// `arange(sequence)`, which tessel-fold-constant-tensors has made a
// constant operand `[0, 1, 2, ...]`, read along one loop. A tensor.extract
// whose indices are each a distinct loop index of the op (`linalg.index`, or
// an element of such an operand, through index casts) becomes an input of
// the op read with the corresponding indexing map, so that the mapper,
// partitioning and the lowering see an op they know.
//
// A lookup at constant indices that read a tensor element after element
// in order (GroupNorm's statistics spread over channels) is a reshape of
// it, and becomes one. Lookups at data-dependent indices (token
// embeddings) are gathers and stay.
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

/// The values of a constant i64 tensor, inline or a resource blob.
std::optional<SmallVector<int64_t>> getConstantIndices(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr))
    return llvm::map_to_vector(dense.getValues<APInt>(),
                               [](const APInt &v) { return v.getSExtValue(); });
  if (auto resource = dyn_cast<DenseI64ResourceElementsAttr>(attr))
    if (std::optional<ArrayRef<int64_t>> values = resource.tryGetAsArrayRef())
      return SmallVector<int64_t>(*values);
  return std::nullopt;
}

/// The loop along which input `input` of `generic` is `arange`: a constant
/// integer tensor `[0, 1, 2, ...]` along its one dimension of extent above
/// 1, read along a loop of the op.
std::optional<unsigned> getArangeLoop(linalg::GenericOp generic,
                                      OpOperand *input) {
  std::optional<SmallVector<int64_t>> values = getConstantIndices(input->get());
  auto type = dyn_cast<RankedTensorType>(input->get().getType());
  if (!values || !type)
    return std::nullopt;
  SmallVector<int64_t> varying;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (size > 1)
      varying.push_back(dim);
  if (varying.size() != 1)
    return std::nullopt;
  for (auto [i, v] : llvm::enumerate(*values))
    if (v != static_cast<int64_t>(i))
      return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(
      generic.getMatchingIndexingMap(input).getResult(varying.front()));
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

/// The loop whose index `value` is, through index casts: a `linalg.index`,
/// or an element of an `arange` input (getArangeLoop).
std::optional<unsigned> getLoopIndex(linalg::GenericOp generic, Value value) {
  while (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  if (auto index = value.getDefiningOp<linalg::IndexOp>())
    return index.getDim();
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &generic.getRegion().front() ||
      arg.getArgNumber() >= generic.getNumDpsInputs())
    return std::nullopt;
  return getArangeLoop(generic, generic.getDpsInputOperand(arg.getArgNumber()));
}

/// The loops the indices of `extract` are, if each is a distinct loop index
/// of its op whose extent stays inside the tensor's dimension.
std::optional<SmallVector<unsigned>> getExtractLoops(linalg::GenericOp generic,
                                                     tensor::ExtractOp extract) {
  SmallVector<unsigned> loops;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  ArrayRef<int64_t> shape = extract.getTensor().getType().getShape();
  for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
    std::optional<unsigned> loop = getLoopIndex(generic, index);
    if (!loop || llvm::is_contained(loops, *loop) ||
        ShapedType::isDynamic(ranges[*loop]) ||
        ShapedType::isDynamic(shape[dim]) || ranges[*loop] > shape[dim])
      return std::nullopt;
    loops.push_back(*loop);
  }
  return loops;
}

/// Whether every use of `value` is, through index casts, an index of one
/// of `extracts`.
bool onlyIndexes(Value value, ArrayRef<tensor::ExtractOp> extracts) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    if (auto cast = dyn_cast<arith::IndexCastOp>(user))
      return onlyIndexes(cast.getOut(), extracts);
    return llvm::is_contained(extracts, user);
  });
}

/// Erases `value`'s index casts that nothing uses any more.
void eraseDeadCasts(Value value) {
  for (Operation *user : llvm::make_early_inc_range(value.getUsers()))
    if (auto cast = dyn_cast<arith::IndexCastOp>(user)) {
      eraseDeadCasts(cast.getOut());
      if (cast.use_empty())
        cast.erase();
    }
}

/// `generic` with each tensor.extract of a tensor defined outside it at
/// distinct loop indices read as an input instead, and without the arange
/// inputs that served only as those indices.
void extractsAsInputs(linalg::GenericOp generic) {
  SmallVector<tensor::ExtractOp> extracts;
  SmallVector<SmallVector<unsigned>> loopsOf;
  generic.getRegion().walk([&](tensor::ExtractOp extract) {
    if (generic.getRegion().isAncestor(extract.getTensor().getParentRegion()))
      return;
    if (std::optional<SmallVector<unsigned>> loops =
            getExtractLoops(generic, extract)) {
      extracts.push_back(extract);
      loopsOf.push_back(*loops);
    }
  });
  if (extracts.empty())
    return;
  SmallVector<unsigned> unread;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (!arg.use_empty() && getArangeLoop(generic, input) &&
        onlyIndexes(arg, extracts))
      unread.push_back(input->getOperandNumber());
  }

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
  OpBuilder builder(generic);
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  for (auto [extract, loops] : llvm::zip(extracts, loopsOf)) {
    // A table longer than the loop that reads it (32 positions, 8 tokens)
    // is read in its leading part.
    Value table = extract.getTensor();
    auto type = cast<RankedTensorType>(table.getType());
    SmallVector<int64_t> read = llvm::map_to_vector(
        loops, [&](unsigned loop) { return ranges[loop]; });
    if (type.getShape() != ArrayRef<int64_t>(read)) {
      SmallVector<OpFoldResult> offsets(read.size(), builder.getIndexAttr(0)),
          strides(read.size(), builder.getIndexAttr(1)), sizes;
      for (int64_t size : read)
        sizes.push_back(builder.getIndexAttr(size));
      table = tensor::ExtractSliceOp::create(builder, extract.getLoc(), table,
                                             offsets, sizes, strides);
    }
    inputs.push_back(table);
    SmallVector<AffineExpr> results;
    for (unsigned loop : loops)
      results.push_back(getAffineDimExpr(loop, ctx));
    maps.push_back(AffineMap::get(numLoops, 0, results, ctx));
  }
  for (OpOperand &init : generic.getDpsInitsMutable())
    maps.push_back(generic.getMatchingIndexingMap(&init));

  auto rebuilt = linalg::GenericOp::create(
      builder, generic.getLoc(), generic.getResultTypes(), inputs,
      generic.getDpsInits(), maps, generic.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
  rebuilt.getRegion().takeBody(generic.getRegion());
  Block &body = rebuilt.getRegion().front();
  // The new inputs' arguments go after the old inputs', before the inits'.
  unsigned at = generic.getNumDpsInputs();
  for (auto [i, extract] : llvm::enumerate(extracts)) {
    BlockArgument arg =
        body.insertArgument(at + i, extract.getType(), extract.getLoc());
    extract.replaceAllUsesWith(arg);
    extract.erase();
  }
  for (unsigned input : llvm::reverse(unread)) {
    eraseDeadCasts(body.getArgument(input));
    body.eraseArgument(input);
  }
  generic.replaceAllUsesWith(rebuilt.getResults());
  generic.erase();
}

/// The block argument an extract index reads, through an index cast and
/// the wrap of negative indices (`v < 0 ? v + size : v`) torch-mlir puts
/// before it.
BlockArgument getIndexArgument(Value index) {
  while (auto cast = index.getDefiningOp<arith::IndexCastOp>())
    index = cast.getIn();
  if (auto select = index.getDefiningOp<arith::SelectOp>()) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (cmp && cmp.getPredicate() == arith::CmpIPredicate::slt &&
        cmp.getLhs() == select.getFalseValue() &&
        matchPattern(cmp.getRhs(), m_Zero()))
      index = select.getFalseValue();
  }
  return dyn_cast<BlockArgument>(index);
}

/// A generic that only looks a tensor up at constant indices which read it
/// in order, element after element, is a reshape of it: GroupNorm's
/// per-group statistics spread over the channels import so. Replaced by
/// collapsing the tensor and expanding it to the result's shape.
bool gatherInOrderAsReshape(linalg::GenericOp generic) {
  // Every operand read element by element in loop order: the identity, or
  // a constant 0 in place of a loop of extent 1.
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  auto inLoopOrder = [&](AffineMap map) {
    if (map.getNumResults() != ranges.size())
      return false;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (!(dim && dim.getPosition() == i) &&
          !(constant && constant.getValue() == 0 && ranges[i] == 1))
        return false;
    }
    return true;
  };
  if (generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
      !llvm::all_of(generic.getIndexingMapsArray(), inLoopOrder))
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto extract = yield.getOperand(0).getDefiningOp<tensor::ExtractOp>();
  auto resultType = dyn_cast<RankedTensorType>(generic.getResultTypes()[0]);
  if (!extract || !resultType || !resultType.hasStaticShape() ||
      generic.getRegion().isAncestor(extract.getTensor().getParentRegion()))
    return false;
  auto sourceType = cast<RankedTensorType>(extract.getTensor().getType());
  if (!sourceType.hasStaticShape() || sourceType.getRank() == 0 ||
      sourceType.getNumElements() != resultType.getNumElements())
    return false;
  // The source's element each output element reads, row-major.
  SmallVector<int64_t> linear(resultType.getNumElements(), 0);
  for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
    BlockArgument arg = getIndexArgument(index);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= generic.getNumDpsInputs())
      return false;
    std::optional<SmallVector<int64_t>> values =
        getConstantIndices(generic.getDpsInputs()[arg.getArgNumber()]);
    if (!values || values->size() != linear.size())
      return false;
    for (auto [k, v] : llvm::enumerate(*values)) {
      if (v < 0 || v >= sourceType.getDimSize(dim))
        return false;
      linear[k] = linear[k] * sourceType.getDimSize(dim) + v;
    }
  }
  for (auto [k, v] : llvm::enumerate(linear))
    if (v != static_cast<int64_t>(k))
      return false;

  OpBuilder builder(generic);
  Location loc = generic.getLoc();
  Value flat = extract.getTensor();
  if (sourceType.getRank() > 1) {
    ReassociationIndices all(llvm::to_vector(llvm::seq<int64_t>(0, sourceType.getRank())));
    flat = tensor::CollapseShapeOp::create(builder, loc, flat,
                                           SmallVector<ReassociationIndices>{all});
  }
  Value reshaped = flat;
  if (resultType.getRank() != 1) {
    ReassociationIndices all(llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank())));
    reshaped = tensor::ExpandShapeOp::create(builder, loc, resultType, flat,
                                             SmallVector<ReassociationIndices>{all});
  }
  generic.getResult(0).replaceAllUsesWith(reshaped);
  generic.erase();
  return true;
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
      if (!gatherInOrderAsReshape(generic))
        extractsAsInputs(generic);
  }
};

} // namespace
} // namespace mlir::tessel
