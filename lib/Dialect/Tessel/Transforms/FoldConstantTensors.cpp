//===- FoldConstantTensors.cpp - Constant tensor computations, evaluated --===//
//
// A causal mask arrives as index arithmetic over i64 and i1 tensors, which
// the chip cannot compute and need not: it depends on no input. Each element
// is evaluated with the body ops' own folders (the same arithmetic the
// canonicalizer would apply to scalars), so the result is exactly what the
// body means, with no second interpreter of arith semantics to keep in step.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/FoldOnConstants.h"
#include "tessel/Dialect/Tessel/Transforms/ApplyPatterns.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDCONSTANTTENSORS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Generics larger than this stay as they are: folding evaluates every
/// element through the folders, and a constant that large belongs in the
/// model's weights.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 20;

DenseElementsAttr getConstantTensor(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return nullptr;
  return attr;
}

/// Replaces a parallel generic over constants (or over nothing but its
/// iteration indices) by the constant it computes.
struct FoldConstantGeneric : OpRewritePattern<linalg::GenericOp> {
  FoldConstantGeneric(MLIRContext *ctx, llvm::Statistic &folded)
      : OpRewritePattern(ctx), folded(folded) {}

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (!generic.hasPureTensorSemantics() ||
        generic.getNumReductionLoops() != 0)
      return rewriter.notifyMatchFailure(generic, "not a parallel tensor op");
    SmallVector<int64_t> bounds = generic.getStaticLoopRanges();
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(generic, "dynamic bounds");
    int64_t count = 1;
    for (int64_t bound : bounds)
      count *= bound;
    if (count > kMaxFoldedElements)
      return rewriter.notifyMatchFailure(generic, "too large to fold");

    Block &body = generic.getRegion().front();
    // Every operand the body reads must be a constant; an init the body
    // does not read (a tensor.empty) may be anything.
    SmallVector<DenseElementsAttr> constants;
    for (OpOperand &operand : generic->getOpOperands()) {
      BlockArgument arg = generic.getMatchingBlockArgument(&operand);
      DenseElementsAttr attr = getConstantTensor(operand.get());
      if (!attr && !arg.use_empty())
        return rewriter.notifyMatchFailure(generic, "reads a non-constant");
      constants.push_back(attr);
    }
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (AffineMap map : ArrayRef(maps).drop_front(generic.getNumDpsInputs()))
      if (!map.isIdentity())
        return rewriter.notifyMatchFailure(generic, "non-identity output");
    // Values the body captures from outside must be constants too.
    DenseMap<Value, Attribute> captured;
    WalkResult walk = body.walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        if (operand.getParentBlock() == &body)
          continue;
        Attribute attr;
        if (!matchPattern(operand, m_Constant(&attr)))
          return WalkResult::interrupt();
        captured[operand] = attr;
      }
      return op->getNumRegions() == 0 ? WalkResult::advance()
                                      : WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return rewriter.notifyMatchFailure(generic, "body is not foldable");

    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    SmallVector<SmallVector<Attribute>> results(generic->getNumResults());
    for (auto &elements : results)
      elements.reserve(count);
    Builder builder(generic.getContext());
    SmallVector<int64_t> loopStrides = computeStrides(bounds);
    SmallVector<SmallVector<int64_t>> constantStrides;
    for (DenseElementsAttr attr : constants)
      constantStrides.push_back(
          attr ? computeStrides(attr.getType().getShape())
               : SmallVector<int64_t>());
    // Every body value is written before it is read in each element's
    // evaluation, so one map serves all elements.
    DenseMap<Value, Attribute> values = std::move(captured);
    for (int64_t flat = 0; flat < count; ++flat) {
      SmallVector<int64_t> point = delinearize(flat, loopStrides);
      for (auto [index, attr] : llvm::enumerate(constants))
        if (attr)
          values[body.getArgument(index)] =
              attr.getValues<Attribute>()[linearize(
                  maps[index].compose(point), constantStrides[index])];
      for (Operation &op : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          values[index.getResult()] =
              builder.getIndexAttr(point[index.getDim()]);
          continue;
        }
        if (failed(foldOnConstants(&op, values)))
          return rewriter.notifyMatchFailure(&op, "does not fold");
      }
      for (auto [elements, yielded] :
           llvm::zip(results, yield.getOperands())) {
        Attribute attr = values.lookup(yielded);
        if (!attr)
          return rewriter.notifyMatchFailure(generic, "yields a non-constant");
        elements.push_back(attr);
      }
    }

    SmallVector<Value> replacements;
    for (auto [result, elements] : llvm::zip(generic->getResults(), results)) {
      auto type = cast<RankedTensorType>(result.getType());
      auto value = DenseElementsAttr::get(type, elements);
      replacements.push_back(
          arith::ConstantOp::create(rewriter, generic.getLoc(), type, value));
    }
    rewriter.replaceOp(generic, replacements);
    ++folded;
    return success();
  }

  llvm::Statistic &folded;
};

/// Stores an i1 constant that a generic reads as 0.0 / 1.0 in f32, and
/// recovers the boolean in the body with `cmpf une`.
struct WidenMaskOperand : OpRewritePattern<linalg::GenericOp> {
  WidenMaskOperand(MLIRContext *ctx, llvm::Statistic &widened)
      : OpRewritePattern(ctx), widened(widened) {}

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    // A generic over constants only is FoldConstantGeneric's, and folds to
    // a constant of its own type; one computing booleans or integers from
    // inputs is not the chip's to run either way.
    if (llvm::any_of(generic->getResultTypes(),
                     [](Type type) {
                       return !isa<FloatType>(getElementTypeOrSelf(type));
                     }) ||
        llvm::all_of(generic.getDpsInputOperands(), [](OpOperand *operand) {
          return getConstantTensor(operand->get()) != nullptr;
        }))
      return rewriter.notifyMatchFailure(generic, "folds whole");
    for (OpOperand *operand : generic.getDpsInputOperands()) {
      DenseElementsAttr mask = getConstantTensor(operand->get());
      if (!mask || !mask.getElementType().isInteger(1))
        continue;
      auto type = cast<RankedTensorType>(mask.getType());
      Type f32 = rewriter.getF32Type();
      auto floatType = type.clone(f32);
      DenseElementsAttr floats = mask.mapValues(
          f32, [](const APInt &bit) {
            return APFloat(bit.isZero() ? 0.0f : 1.0f).bitcastToAPInt();
          });
      Location loc = operand->get().getLoc();
      Value widenedMask =
          arith::ConstantOp::create(rewriter, loc, floatType, floats);
      BlockArgument arg = generic.getMatchingBlockArgument(operand);
      rewriter.modifyOpInPlace(generic, [&] {
        operand->set(widenedMask);
        arg.setType(f32);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(arg.getOwner());
        Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                               rewriter.getF32FloatAttr(0.0f));
        Value bit = arith::CmpFOp::create(
            rewriter, loc, arith::CmpFPredicate::UNE, arg, zero);
        arg.replaceAllUsesExcept(bit, bit.getDefiningOp());
      });
      ++widened;
      return success();
    }
    return rewriter.notifyMatchFailure(generic, "reads no i1 constant");
  }

  llvm::Statistic &widened;
};

/// A `dense_resource` constant whose blob the module holds, as the `dense`
/// constant of the same bytes. Booleans are left: a resource stores a byte
/// per i1, a dense attribute a bit.
struct InlineResourceConstant : OpRewritePattern<arith::ConstantOp> {
  InlineResourceConstant(MLIRContext *ctx, llvm::Statistic &inlined)
      : OpRewritePattern(ctx), inlined(inlined) {}

  LogicalResult matchAndRewrite(arith::ConstantOp constant,
                                PatternRewriter &rewriter) const override {
    auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
    if (!resource)
      return rewriter.notifyMatchFailure(constant, "not a resource");
    ShapedType type = resource.getType();
    if (type.getElementTypeBitWidth() % 8 != 0)
      return rewriter.notifyMatchFailure(constant, "sub-byte elements");
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return rewriter.notifyMatchFailure(constant, "blob not loaded");
    ArrayRef<char> data = blob->getData();
    if (static_cast<int64_t>(data.size()) !=
        type.getNumElements() * (type.getElementTypeBitWidth() / 8))
      return rewriter.notifyMatchFailure(constant, "blob size mismatch");
    auto dense = DenseElementsAttr::getFromRawBuffer(type, data);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(constant, dense);
    ++inlined;
    return success();
  }

  llvm::Statistic &inlined;
};

struct FoldConstantTensors
    : impl::TesselFoldConstantTensorsBase<FoldConstantTensors> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FoldConstantGeneric>(ctx, numGenericsFolded);
    patterns.add<WidenMaskOperand>(ctx, numMasksWidened);
    patterns.add<InlineResourceConstant>(ctx, numResourcesInlined);
    // Reshapes of constants fold to constants in the greedy driver.
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsOrReport(getOperation(), std::move(patterns),
                                     getArgument())))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
