//===- FoldOperandExtensions.cpp - Narrow products on the MAC array ------===//
//
// torch-mlir imports a bf16 (or f16) `nn.Linear` as extensions of its input
// and weight to f32, an f32 matmul and a truncation of the result: PyTorch's
// own bf16 matmul accumulates in f32. The MAC array multiplies bf16 and f16
// inputs into an f32 accumulator in exactly that way (docs/isa.md,
// *Numerics*: the product of two bf16 or f16 values is exact in f32), so this
// pass folds the extensions into the matmul. It then reads the narrow
// operands: half the bytes from DRAM and through the SRAM port, and no f32
// copies of the weights and activations. The bits do not change.
//
// An int8 matmul from ONNX's QDQ format arrives the same way: both operands
// dequantized to f32 (`(q - zp) * scale`), the activation per tensor, the
// weight per output channel with zero points 0, and an f32 matmul. The MAC
// array multiplies the i8 values into an i32 accumulator, exactly; since
//   sum_k (a - za) b = sum_k a b - za sum_k b,
// each output channel's sum of the weight (known, the weight a constant)
// times the activation's zero point is subtracted from the accumulator, and
// the scales applied after: (acc - za sum[n]) * sa * sb[n], in f32. That
// rounds once where the f32 matmul rounded at every product and sum, so the
// result differs from the dequantized f32 product in its last bits.
//
// PyTorch's PT2E flow (torch.export, then torchao's convert_pt2e) gives the
// same product in another form: the activation dequantized by a chain of
// ops (to f32, minus the zero point, times the scale), fused here into one
// so that it reads as ONNX's; the weight a function argument, not a
// constant, its scales [N, 1]. Such a weight's column sums are not known
// here: the product becomes a `linalg.quantized_matmul` with the
// activation's zero point, which tessel-decompose-quantized-matmuls splits
// into the i8 product and the column sums on the vector unit.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/IntegerSums.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDOPERANDEXTENSIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The bf16 or f16 tensor `value` extends to f32 elementwise (a
/// linalg.generic of identity maps whose body is one `arith.extf`), or null.
Value getExtendedNarrowTensor(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto extend = yield.getOperand(0).getDefiningOp<arith::ExtFOp>();
  if (!extend || &body.front() != extend.getOperation() ||
      extend.getIn() != body.getArgument(0) || !extend.getType().isF32())
    return {};
  Type narrow = extend.getIn().getType();
  if (!narrow.isBF16() && !narrow.isF16())
    return {};
  return generic.getDpsInputs()[0];
}

/// Makes `op`, a matmul or batch matmul both of whose operands are
/// extensions of one narrow type, read the narrow tensors; its accumulator
/// stays f32. Returns whether it did.
template <typename MatmulOp>
bool foldExtensions(MatmulOp op, IRRewriter &rewriter) {
  if (!op.hasPureTensorSemantics())
    return false;
  Value lhs = getExtendedNarrowTensor(op.getInputs()[0]);
  Value rhs = getExtendedNarrowTensor(op.getInputs()[1]);
  if (!lhs || !rhs ||
      getElementTypeOrSelf(lhs.getType()) != getElementTypeOrSelf(rhs.getType()))
    return false;
  // The maps and the cast are kept as they are; the body is rebuilt for the
  // new operand types.
  SmallVector<NamedAttribute> attributes;
  for (StringRef name : {"indexing_maps", "cast"})
    if (Attribute attribute = op->getAttr(name))
      attributes.emplace_back(rewriter.getStringAttr(name), attribute);
  llvm::append_range(attributes, op->getDiscardableAttrs());
  llvm::SmallSetVector<Operation *, 2> extensions;
  extensions.insert(op.getInputs()[0].getDefiningOp());
  extensions.insert(op.getInputs()[1].getDefiningOp());
  rewriter.setInsertionPoint(op);
  rewriter.replaceOpWithNewOp<MatmulOp>(op, op->getResultTypes(),
                                        ValueRange{lhs, rhs}, op.getOutputs(),
                                        attributes);
  // An extension nothing else reads is not made at all.
  for (Operation *extension : extensions)
    if (extension->use_empty())
      rewriter.eraseOp(extension);
  return true;
}

/// An i8 tensor dequantized per tensor: `(q - zeroPoint) * scale` with
/// constants, as ONNX's DequantizeLinear imports (tessel-simplify-math
/// computes the difference in i32) or PT2E's (the difference in f32).
struct PerTensorDequantization {
  Value quantized;
  int64_t zeroPoint;
  Value scale; // an f32 constant
};

/// An i8 weight dequantized per output channel with zero points 0:
/// `q * scale[n]`, stored [N, K] (then transposed) or [K, N].
struct PerChannelWeight {
  Value stored;                   // i8
  DenseIntElementsAttr quantized; // its values where it is a constant
  bool outputChannelsFirst;       // [N, K]
  Value scale;                    // [N] or [N, 1] / [1, N], f32
};

/// The generic defining `value` if it is all-parallel on tensors with one
/// identity-indexed output; else null (its inputs' maps are the caller's to
/// check).
linalg::GenericOp getElementwise(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)).isIdentity())
    return {};
  return generic;
}

/// Whether `value` is the integer constant `expected`, a scalar or a splat.
bool isIntegerSplat(Value value, int64_t expected) {
  if (std::optional<int64_t> scalar = getConstantIntValue(value))
    return *scalar == expected;
  DenseIntElementsAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.isSplat() &&
         attr.getSplatValue<APInt>().getSExtValue() == expected;
}

/// Matches the body `yield (sitofp (extsi(q) [- zp])) * scale` or
/// `yield (sitofp(q) [- zp]) * scale` (the zero point subtracted in f32),
/// where q is block argument 0; returns (zero point value or null, scale
/// value).
std::optional<std::pair<Value, Value>> matchDequantizationBody(Block &body) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto multiply = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!multiply || !multiply.getType().isF32())
    return std::nullopt;
  Value converted = multiply.getLhs(), zeroPoint;
  if (auto subtract = converted.getDefiningOp<arith::SubFOp>()) {
    converted = subtract.getLhs();
    zeroPoint = subtract.getRhs();
  }
  auto convert = converted.getDefiningOp<arith::SIToFPOp>();
  if (!convert)
    return std::nullopt;
  Value integer = convert.getIn();
  if (zeroPoint)
    return integer == body.getArgument(0) && integer.getType().isInteger(8)
               ? std::optional(std::make_pair(zeroPoint, multiply.getRhs()))
               : std::nullopt;
  if (auto subtract = integer.getDefiningOp<arith::SubIOp>()) {
    integer = subtract.getLhs();
    zeroPoint = subtract.getRhs();
  }
  // The i8 value, extended first or converted as it is.
  if (auto extend = integer.getDefiningOp<arith::ExtSIOp>())
    integer = extend.getIn();
  if (integer != body.getArgument(0) || !integer.getType().isInteger(8))
    return std::nullopt;
  return std::make_pair(zeroPoint, multiply.getRhs());
}

/// The 2-D tensor that `value`, [1, K, N], broadcasts (a generic that only
/// yields its input, read at (d1, d2)), or null.
Value getBroadcastSource(Value value) {
  linalg::GenericOp generic = getElementwise(value);
  if (!generic || generic.getNumLoops() != 3 || generic.getNumDpsInputs() != 1 ||
      cast<RankedTensorType>(value.getType()).getDimSize(0) != 1)
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  MLIRContext *ctx = generic.getContext();
  AffineMap read = AffineMap::get(
      3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  if (&body.front() != yield.getOperation() ||
      yield.getOperand(0) != body.getArgument(0) ||
      generic.getMatchingIndexingMap(generic.getDpsInputOperand(0)) != read)
    return {};
  return generic.getDpsInputs()[0];
}

/// Fuses the chain of elementwise ops that dequantizes an i8 tensor into
/// `value` (PT2E's: to f32, minus the zero point, times the scale, each an
/// op of its own) into one op, so that it reads as ONNX's DequantizeLinear.
/// Each op of the chain has one input, read at its own indices, and is read
/// by the next alone; nothing is fused unless the chain starts at an i8
/// tensor. Returns the fused op's result, or `value` as it was.
Value fuseDequantizationChain(Value value, IRRewriter &rewriter) {
  constexpr int kLongestChain = 4;
  SmallVector<linalg::GenericOp> chain; // consumer first
  for (Value at = value;;) {
    linalg::GenericOp generic = getElementwise(at);
    if (!generic || generic.getNumDpsInputs() != 1 ||
        !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0)).isIdentity() ||
        static_cast<int>(chain.size()) == kLongestChain ||
        (!chain.empty() && !at.hasOneUse()))
      return value;
    chain.push_back(generic);
    at = generic.getDpsInputs()[0];
    if (getElementTypeOrSelf(at.getType()).isInteger(8))
      break;
  }
  Operation *consumer = chain.front();
  for (size_t producer = 1; producer < chain.size(); ++producer) {
    OpOperand *operand = cast<linalg::GenericOp>(consumer).getDpsInputOperand(0);
    if (!linalg::areElementwiseOpsFusable(operand))
      return consumer->getResult(0);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused))
      return consumer->getResult(0);
    rewriter.replaceOp(consumer, fused->replacements.lookup(consumer->getResult(0)));
    rewriter.eraseOp(chain[producer]);
    consumer = fused->fusedOp;
  }
  return consumer->getResult(0);
}

/// `value` as a per-tensor dequantization of an i8 tensor, or none.
std::optional<PerTensorDequantization> getPerTensorDequantization(Value value) {
  linalg::GenericOp generic = getElementwise(value);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0)).isIdentity())
    return std::nullopt;
  auto parts = matchDequantizationBody(generic.getRegion().front());
  if (!parts)
    return std::nullopt;
  auto [zeroPoint, scale] = *parts;
  std::optional<int64_t> zp =
      !zeroPoint ? std::optional<int64_t>(0)
      : zeroPoint.getType().isF32() ? getSmallIntegralConstant(zeroPoint)
                                    : getConstantIntValue(zeroPoint);
  // The scale, a constant from outside the body, is read by the op that
  // replaces it.
  Operation *scaleDef = scale.getDefiningOp();
  if (!zp || !scaleDef || generic->isAncestor(scaleDef) ||
      !matchPattern(scale, m_Constant()))
    return std::nullopt;
  return PerTensorDequantization{generic.getDpsInputs()[0], *zp, scale};
}

/// Whether `map` reads one value per output channel, the loop `channel`:
/// (d_channel), or that broadcast along the other loops ((d0, 0, 0, 0) for
/// the first of four).
bool readsPerChannel(AffineMap map, unsigned channel) {
  MLIRContext *ctx = map.getContext();
  AffineExpr at = getAffineDimExpr(channel, ctx), zero = getAffineConstantExpr(0, ctx);
  if (map.getResults() == ArrayRef<AffineExpr>{at})
    return true;
  if (map.getNumResults() != map.getNumDims())
    return false;
  for (auto [loop, result] : llvm::enumerate(map.getResults()))
    if (result != (loop == channel ? at : zero))
      return false;
  return true;
}

/// `value` as an i8 tensor dequantized per channel along the loop `channel`
/// with zero points 0 (a scale per channel), of `loops` loops; or none.
std::optional<PerChannelWeight> getPerChannelDequantization(Value value,
                                                            unsigned loops,
                                                            unsigned channel) {
  linalg::GenericOp generic = getElementwise(value);
  if (!generic || generic.getNumLoops() != loops)
    return std::nullopt;
  auto parts = matchDequantizationBody(generic.getRegion().front());
  if (!parts)
    return std::nullopt;
  auto [zeroPoint, scale] = *parts;
  Block &body = generic.getRegion().front();
  DenseIntElementsAttr quantized;
  Value stored, scaleTensor;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (arg.getArgNumber() == 0) {
      if (!map.isIdentity())
        return std::nullopt;
      stored = input->get();
      matchPattern(stored, m_Constant(&quantized));
    } else if (arg == scale && readsPerChannel(map, channel)) {
      scaleTensor = input->get();
    } else if (zeroPoint && readsPerChannel(map, channel) &&
               isIntegerSplat(input->get(), 0)) {
      // The zero points, all 0: read as an extension of the input.
      auto extend = zeroPoint.getDefiningOp<arith::ExtSIOp>();
      if (!extend || extend.getIn() != arg)
        return std::nullopt;
      zeroPoint = Value();
    } else {
      return std::nullopt;
    }
  }
  if (!stored || !scaleTensor || (zeroPoint && !isIntegerSplat(zeroPoint, 0)))
    return std::nullopt;
  return PerChannelWeight{stored, quantized, channel == 0, scaleTensor};
}

/// `value`, the rhs [K, N] of a matmul, as an i8 weight dequantized per
/// output channel: [K, N] with a scale per column (ONNX's MatMul), or the
/// transpose of [N, K] with a scale per row (Gemm, PT2E's linear), or none.
std::optional<PerChannelWeight> getPerChannelWeight(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (transpose && transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  return transpose ? getPerChannelDequantization(transpose.getInput(), 2, 0)
                   : getPerChannelDequantization(value, 2, 1);
}

/// `scales`, one per channel ([N], or [N, 1, ...] broadcast), as [N].
Value getChannelScales(Value scales, IRRewriter &rewriter, Location loc) {
  auto type = cast<RankedTensorType>(scales.getType());
  if (type.getRank() == 1)
    return scales;
  ReassociationIndices all(type.getRank());
  std::iota(all.begin(), all.end(), 0);
  return tensor::CollapseShapeOp::create(rewriter, loc, scales,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The f32 result of `product`, an i32 sum of i8 products taken without the
/// activation's zero point and the scales: (product - zeroPoint *
/// sums[c]) * scale * channelScales[c] (+ bias[c]), `c` the result's
/// dimension `channel`; `sums` (i32 [C], precomputed as corrections where
/// `zeroPoint` is 1) and `bias` ([C], f32) optional.
Value buildRescale(IRRewriter &rewriter, Location loc, Value product,
                   unsigned channel, Value sums, int64_t zeroPoint, Value scale,
                   Value channelScales, Value bias) {
  auto type = cast<RankedTensorType>(product.getType());
  unsigned rank = type.getRank();
  Type f32 = rewriter.getF32Type();
  MLIRContext *ctx = rewriter.getContext();
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  AffineMap perChannel = AffineMap::get(rank, 0, getAffineDimExpr(channel, ctx));
  SmallVector<Value> inputs = {product};
  if (sums)
    inputs.push_back(sums);
  inputs.push_back(channelScales);
  if (bias)
    inputs.push_back(bias);
  SmallVector<AffineMap> maps(inputs.size(), perChannel);
  maps.front() = identity;
  maps.push_back(identity);
  Value zeroPointValue;
  if (sums && zeroPoint != 1)
    zeroPointValue = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(zeroPoint));
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{type.clone(f32)}, inputs,
             ValueRange{tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32)
                            .getResult()},
             maps, SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange args) {
               unsigned next = 1;
               Value sum = args[0];
               if (sums) {
                 Value correction = args[next++];
                 if (zeroPointValue)
                   correction = arith::MulIOp::create(b, loc, correction, zeroPointValue);
                 sum = arith::SubIOp::create(b, loc, sum, correction);
               }
               Value value = arith::SIToFPOp::create(b, loc, f32, sum);
               value = arith::MulFOp::create(b, loc, value, scale);
               value = arith::MulFOp::create(b, loc, value, args[next++]);
               if (bias)
                 value = arith::AddFOp::create(b, loc, value, args[next++]);
               linalg::YieldOp::create(b, loc, value);
             })
      .getResult(0);
}

/// Makes `matmul` (f32, of a per-tensor dequantized activation and a
/// per-channel dequantized weight; a batch matmul of one batch whose weight
/// is broadcast, as ONNX's MatMul of a 3-D activation imports) multiply the
/// i8 values: see the file comment. Returns whether it did.
template <typename MatmulOp>
bool foldDequantizations(MatmulOp matmul, IRRewriter &rewriter) {
  if (!matmul.hasPureTensorSemantics() || matmul.hasUserDefinedMaps())
    return false;
  bool batched = std::is_same_v<MatmulOp, linalg::BatchMatmulOp>;
  Value rhsValue = matmul.getInputs()[1];
  if (batched && !(rhsValue = getBroadcastSource(rhsValue)))
    return false;
  std::optional<PerChannelWeight> rhs = getPerChannelWeight(rhsValue);
  // The accumulator must start at zero: the scales apply to the whole sum.
  auto fill = matmul.getOutputs()[0].template getDefiningOp<linalg::FillOp>();
  FloatAttr start;
  if (!rhs || !fill || !matchPattern(fill.getInputs()[0], m_Constant(&start)) ||
      !start.getValue().isPosZero())
    return false;
  auto resultType = cast<RankedTensorType>(matmul.getResultTypes()[0]);
  unsigned rank = resultType.getRank();
  int64_t n = resultType.getDimSize(rank - 1);
  int64_t k = cast<RankedTensorType>(matmul.getInputs()[0].getType()).getDimSize(rank - 1);
  // Sums of k products of i8 values (at most 2^14 each), and the zero
  // point's correction, stay within i32.
  if (!resultType.hasStaticShape() || ShapedType::isDynamic(k) ||
      k > (int64_t{1} << 16))
    return false;
  // Only then is a chain dequantizing the activation fused; the activation
  // may be dequantized before its leading dimensions are merged (PT2E's
  // linear of a 3-D activation).
  auto collapse = matmul.getInputs()[0].template getDefiningOp<tensor::CollapseShapeOp>();
  std::optional<PerTensorDequantization> lhs = getPerTensorDequantization(
      fuseDequantizationChain(collapse ? collapse.getSrc() : matmul.getInputs()[0],
                              rewriter));
  if (!lhs)
    return false;
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  if (collapse)
    lhs->quantized = tensor::CollapseShapeOp::create(
        rewriter, loc, lhs->quantized, collapse.getReassociationIndices());
  Type i32 = rewriter.getI32Type();
  // [K, N], or [1, K, N] for the batch matmul.
  SmallVector<int64_t> weightShape(rank - 2, 1);
  weightShape.append({k, n});
  auto weightType = RankedTensorType::get(weightShape, rewriter.getI8Type());
  // The i32 accumulator, zero, made after the weight.
  Value zero, accumulator;
  auto makeAccumulator = [&] {
    zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
    accumulator = linalg::FillOp::create(
                      rewriter, loc, zero,
                      tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), i32)
                          .getResult())
                      .getResult(0);
  };
  Value weight = rhs->stored, product, corrections;
  if (rhs->quantized) {
    // The weight as [K, N] (transposed here where stored [N, K]), and its
    // output channels' sums times the activation's zero point:
    // za * sum_k b[k][n].
    SmallVector<int8_t> transposedWeight(rhs->outputChannelsFirst ? k * n : 0);
    SmallVector<int32_t> correction(n, 0);
    auto values = rhs->quantized.getValues<APInt>();
    for (int64_t channel = 0; channel < n; ++channel) {
      int64_t sum = 0;
      for (int64_t col = 0; col < k; ++col) {
        int64_t at = rhs->outputChannelsFirst ? channel * k + col : col * n + channel;
        int64_t value = values[at].getSExtValue();
        if (rhs->outputChannelsFirst)
          transposedWeight[col * n + channel] = static_cast<int8_t>(value);
        sum += value;
      }
      correction[channel] = static_cast<int32_t>(lhs->zeroPoint * sum);
    }
    if (rhs->outputChannelsFirst)
      weight = arith::ConstantOp::create(
          rewriter, loc,
          DenseIntElementsAttr::get(weightType, ArrayRef<int8_t>(transposedWeight)));
    else if (batched)
      weight = arith::ConstantOp::create(rewriter, loc,
                                         rhs->quantized.reshape(weightType));
    makeAccumulator();
    product = MatmulOp::create(rewriter, loc, TypeRange{accumulator.getType()},
                               ValueRange{lhs->quantized, weight},
                               ValueRange{accumulator})
                  .getResult(0);
    corrections = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(RankedTensorType::get({n}, i32),
                                  ArrayRef<int32_t>(correction)));
  } else {
    // A weight whose values are not known here: transposed and reshaped by
    // ops, its column sums (where the activation's zero point is not 0) left
    // to tessel-decompose-quantized-matmuls.
    if (rhs->outputChannelsFirst)
      weight = linalg::TransposeOp::create(
                   rewriter, loc, weight,
                   tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{k, n},
                                           rewriter.getI8Type()),
                   ArrayRef<int64_t>{1, 0})
                   .getResult()[0];
    if (batched)
      weight = tensor::ExpandShapeOp::create(
          rewriter, loc, weightType, weight,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    makeAccumulator();
    SmallVector<Value> operands = {lhs->quantized, weight};
    if (lhs->zeroPoint == 0)
      product = MatmulOp::create(rewriter, loc, TypeRange{accumulator.getType()},
                                 operands, ValueRange{accumulator})
                    .getResult(0);
    else {
      Value zeroPoints[] = {
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getI32IntegerAttr(lhs->zeroPoint)),
          zero};
      SmallVector<Value> inputs = operands;
      llvm::append_range(inputs, zeroPoints);
      product = (batched ? linalg::QuantizedBatchMatmulOp::create(
                               rewriter, loc, TypeRange{accumulator.getType()},
                               inputs, ValueRange{accumulator})
                               .getResult(0)
                         : linalg::QuantizedMatmulOp::create(
                               rewriter, loc, TypeRange{accumulator.getType()},
                               inputs, ValueRange{accumulator})
                               .getResult(0));
    }
  }
  Value channelScales = getChannelScales(rhs->scale, rewriter, loc);
  Value rescaled = buildRescale(rewriter, loc, product, rank - 1, corrections,
                                /*zeroPoint=*/1, lhs->scale, channelScales, Value());
  // What read the f32 operands goes where nothing else reads it.
  SmallVector<Operation *> dead = {matmul.getInputs()[0].getDefiningOp(),
                                   matmul.getInputs()[1].getDefiningOp()};
  if (batched)
    dead.push_back(rhsValue.getDefiningOp());
  if (auto transpose = dyn_cast<linalg::TransposeOp>(dead.back()))
    dead.push_back(transpose.getInput().getDefiningOp());
  if (collapse)
    dead.push_back(collapse.getSrc().getDefiningOp());
  dead.push_back(fill);
  rewriter.replaceOp(matmul, rescaled);
  for (Operation *op : dead)
    if (op->use_empty())
      rewriter.eraseOp(op);
  return true;
}

/// Makes `conv` (NCHW/FCHW, f32, of a per-tensor dequantized activation,
/// padded by a view with 0 or not, and a filter dequantized per output
/// channel; its accumulator zero or a bias broadcast over the batch and
/// pixels) multiply the i8 values into an i32 accumulator. The activation
/// is padded with its zero point instead (the i8 value that dequantizes to
/// 0), so every window holds C x KH x KW values less the zero point and
///   sum (a - za) w = sum a w - za sum_{c, kh, kw} w[f]
/// per output channel f, the filter's sums known here where it is a
/// constant and reduced on the vector unit where not; then the scales and
/// the bias apply, in f32. Returns whether it did.
bool foldDequantizations(linalg::Conv2DNchwFchwOp conv, IRRewriter &rewriter) {
  if (!conv.hasPureTensorSemantics())
    return false;
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  std::optional<PerChannelWeight> filter =
      getPerChannelDequantization(conv.getInputs()[1], 4, 0);
  if (!filter || !resultType.hasStaticShape())
    return false;
  // The accumulator's start: zero, or the bias per output channel.
  Operation *init = conv.getOutputs()[0].getDefiningOp();
  Value bias;
  FloatAttr start;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(init)) {
    if (!matchPattern(fill.getInputs()[0], m_Constant(&start)) ||
        !start.getValue().isPosZero())
      return false;
  } else if (auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(init)) {
    if (broadcast.getDimensions() != ArrayRef<int64_t>{0, 2, 3})
      return false;
    bias = broadcast.getInput();
  } else {
    return false;
  }
  auto pad = conv.getInputs()[0].getDefiningOp<PadViewOp>();
  if (pad && !pad.getValue().isZero())
    return false;
  auto filterType = cast<RankedTensorType>(filter->stored.getType());
  if (!filterType.hasStaticShape())
    return false;
  int64_t channels = filterType.getDimSize(0);
  int64_t window = filterType.getNumElements() / channels;
  // Sums of `window` products of i8 values stay within i32.
  if (window > (int64_t{1} << 16))
    return false;
  // Only then is a chain dequantizing the input fused.
  std::optional<PerTensorDequantization> input = getPerTensorDequantization(
      fuseDequantizationChain(pad ? pad.getSource() : conv.getInputs()[0], rewriter));
  if (!input)
    return false;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value activation = input->quantized;
  if (pad)
    activation = PadViewOp::create(
        rewriter, loc,
        cast<RankedTensorType>(pad.getType()).clone(rewriter.getI8Type()), activation,
        pad.getLowAttr(), pad.getHighAttr(),
        rewriter.getF32FloatAttr(static_cast<float>(input->zeroPoint)));
  SmallVector<NamedAttribute> attributes;
  for (StringRef name : {"strides", "dilations"})
    if (Attribute attribute = conv->getAttr(name))
      attributes.emplace_back(rewriter.getStringAttr(name), attribute);
  llvm::append_range(attributes, conv->getDiscardableAttrs());
  Value product =
      linalg::Conv2DNchwFchwOp::create(
          rewriter, loc, TypeRange{resultType.clone(rewriter.getI32Type())},
          ValueRange{activation, filter->stored},
          ValueRange{buildI32Zeros(rewriter, loc, resultType.getShape())}, attributes)
          .getResult(0);
  // The filter's sums per output channel, times the zero point.
  Value sums;
  int64_t zeroPoint = input->zeroPoint;
  if (filter->quantized && zeroPoint != 0) {
    SmallVector<int32_t> corrections(channels, 0);
    auto values = filter->quantized.getValues<APInt>();
    for (int64_t at = 0; at < channels * window; ++at)
      corrections[at / window] += static_cast<int32_t>(values[at].getSExtValue());
    for (int32_t &correction : corrections)
      correction = static_cast<int32_t>(zeroPoint * correction);
    sums = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(RankedTensorType::get({channels}, rewriter.getI32Type()),
                                  ArrayRef<int32_t>(corrections)));
    zeroPoint = 1;
  } else if (zeroPoint != 0) {
    Value rows = tensor::CollapseShapeOp::create(
        rewriter, loc, filter->stored, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    sums = buildSumsOverK(rewriter, loc, rows, /*columns=*/false);
  }
  Value rescaled =
      buildRescale(rewriter, loc, product, 1, sums, zeroPoint, input->scale,
                   getChannelScales(filter->scale, rewriter, loc), bias);
  SmallVector<Operation *> dead = {conv.getInputs()[0].getDefiningOp(),
                                   conv.getInputs()[1].getDefiningOp(), init};
  if (pad)
    dead.push_back(pad.getSource().getDefiningOp());
  rewriter.replaceOp(conv, rescaled);
  for (Operation *op : dead)
    if (op && op->use_empty())
      rewriter.eraseOp(op);
  return true;
}

struct FoldOperandExtensions
    : impl::TesselFoldOperandExtensionsBase<FoldOperandExtensions> {
  void runOnOperation() override {
    SmallVector<Operation *> matmuls;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp>(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : matmuls) {
      bool folded = TypeSwitch<Operation *, bool>(op)
                        .Case([&](linalg::MatmulOp matmul) {
                          return foldExtensions(matmul, rewriter) ||
                                 foldDequantizations(matmul, rewriter);
                        })
                        .Case([&](linalg::BatchMatmulOp matmul) {
                          return foldExtensions(matmul, rewriter) ||
                                 foldDequantizations(matmul, rewriter);
                        })
                        .Case([&](linalg::Conv2DNchwFchwOp conv) {
                          return foldDequantizations(conv, rewriter);
                        });
      numMatmulsFolded += folded;
    }
  }
};

} // namespace
} // namespace mlir::tessel
