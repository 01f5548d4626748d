//===- LowerToInstructions.cpp - Core bodies to tessel instructions -------===//
//
// Inside each core, the copies between DRAM and SRAM become DMA transfers and
// the linalg ops on SRAM buffers become the instructions the MAC array and
// vector unit execute, in the order the ISA's numerics are defined for.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <functional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWERTOINSTRUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

Attribute sramSpace(MLIRContext *ctx) {
  return MemorySpaceAttr::get(ctx, MemorySpace::sram);
}

/// A static SRAM buffer for an intermediate value of a vector lowering.
Value allocateTemporary(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elementType) {
  auto type = MemRefType::get(shape, elementType,
                              MemRefLayoutAttrInterface(),
                              sramSpace(b.getContext()));
  return memref::AllocOp::create(b, loc, type);
}

/// A view of `buffer` (whose layout is static): element (i0, ..) is element
/// `offset + sum(i_k * strides[k])` of the underlying memory, counted in
/// elements as the buffer's own strided layout counts them.
Value stridedView(OpBuilder &b, Location loc, Value buffer, int64_t offset,
                  ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto type = cast<MemRefType>(buffer.getType());
  auto layout = StridedLayoutAttr::get(b.getContext(), offset, strides);
  auto viewType = MemRefType::get(sizes, type.getElementType(), layout,
                                  type.getMemorySpace());
  SmallVector<OpFoldResult> sizeAttrs, strideAttrs;
  for (int64_t size : sizes)
    sizeAttrs.push_back(b.getIndexAttr(size));
  for (int64_t stride : strides)
    strideAttrs.push_back(b.getIndexAttr(stride));
  return memref::ReinterpretCastOp::create(b, loc, viewType, buffer,
                                           b.getIndexAttr(offset), sizeAttrs,
                                           strideAttrs);
}

/// A view of `buffer` indexed by the op's loops through `map`: each result is
/// a loop (a projected permutation, possibly dropping loops) or the constant
/// 0 of a unit dimension (a kept-dims reduction's output). Dropped loops get
/// stride 0, so the vector unit reads a broadcast without materializing it.
FailureOr<Value> getLoopView(OpBuilder &b, Location loc, Value buffer,
                             AffineMap map, ArrayRef<int64_t> loopSizes) {
  auto type = cast<MemRefType>(buffer.getType());
  if (map.isIdentity())
    return buffer;
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> viewStrides(loopSizes.size(), 0);
  llvm::SmallBitVector seen(loopSizes.size());
  for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      if (constant.getValue() != 0 || type.getDimSize(dim) != 1)
        return failure();
      continue;
    }
    auto loop = dyn_cast<AffineDimExpr>(expr);
    if (!loop || seen.test(loop.getPosition()))
      return failure();
    seen.set(loop.getPosition());
    viewStrides[loop.getPosition()] = strides[dim];
  }
  return stridedView(b, loc, buffer, offset, loopSizes, viewStrides);
}

/// The value of a float constant, looking through float casts of it (the
/// f64 constants torch-mlir truncates inside bodies, which do not fold when
/// the truncation is inexact): converted to the cast's type, as the cast
/// would round it.
std::optional<APFloat> getConstantFloat(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    if (auto attr = dyn_cast<FloatAttr>(constant.getValue()))
      return attr.getValue();
    return std::nullopt;
  }
  Operation *def = value.getDefiningOp();
  if (!def || !isa<arith::TruncFOp, arith::ExtFOp>(def))
    return std::nullopt;
  std::optional<APFloat> source = getConstantFloat(def->getOperand(0));
  if (!source)
    return std::nullopt;
  bool losesInfo;
  source->convert(cast<FloatType>(value.getType()).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &losesInfo);
  return source;
}

/// The f32 immediate a fill or an operand `value` becomes: a float
/// constant (as getConstantFloat reads it), or an f32 that converts to an
/// integer constant exactly. The ISA converts immediates to integer types
/// as `cast` does (docs/isa.md), saturating, so the extremes of a type (a
/// minimum's identity) are immediates too: 2^63 gives the i64 maximum.
std::optional<APFloat> getImmediate(Value value) {
  if (std::optional<APFloat> constant = getConstantFloat(value))
    return constant;
  auto type = dyn_cast<IntegerType>(value.getType());
  std::optional<int64_t> integer = getConstantIntValue(value);
  if (!type || type.getWidth() == 1 || type.getWidth() > 64 || !integer)
    return std::nullopt;
  APFloat immediate(APFloat::IEEEsingle());
  immediate.convertFromAPInt(APInt(64, *integer, /*isSigned=*/true),
                             /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
  // Integral: every f32 of magnitude 2^24 or more is.
  double rounded = immediate.convertToDouble();
  double limit = std::ldexp(1.0, type.getWidth() - 1);
  int64_t converted =
      rounded >= limit    ? APInt::getSignedMaxValue(type.getWidth()).getSExtValue()
      : rounded < -limit ? APInt::getSignedMinValue(type.getWidth()).getSExtValue()
                          : static_cast<int64_t>(rounded);
  if (converted != *integer)
    return std::nullopt;
  return immediate;
}

/// Whether `value` is a float holding an integer: rounded, floored or
/// converted from an integer.
bool isIntegral(Value value) {
  return isa_and_nonnull<math::RoundEvenOp, math::RoundOp, math::FloorOp,
                         math::CeilOp, math::TruncOp, arith::SIToFPOp>(
      value.getDefiningOp());
}

/// Why an operand is not an immediate, for an integer constant out of an
/// f32's exact range.
void explainInexactInteger(InFlightDiagnostic &diag, Value value) {
  if (std::optional<int64_t> integer = getConstantIntValue(value))
    if (isa<IntegerType>(value.getType()))
      diag << ": the integer constant " << *integer
           << " is not the conversion of an f32, and the vector unit's "
              "fills and immediates are f32 values";
}

/// An index as an affine function of an op's loops:
/// `sum(loops[k] * coefficients[k]) + constant`.
struct LoopLinear {
  SmallVector<int64_t> coefficients;
  int64_t constant = 0;
};

/// Whether `value` is `x < 0` (`cmpi slt, x, 0`), or `x != 0 && x < 0`.
bool isNegativeTest(Value value, Value x) {
  auto isLessThanZero = [&](Value v) {
    auto compare = v.getDefiningOp<arith::CmpIOp>();
    return compare && compare.getPredicate() == arith::CmpIPredicate::slt &&
           compare.getLhs() == x && isZeroInteger(compare.getRhs());
  };
  if (isLessThanZero(value))
    return true;
  auto both = value.getDefiningOp<arith::AndIOp>();
  if (!both)
    return false;
  auto isNonZero = [&](Value v) {
    auto compare = v.getDefiningOp<arith::CmpIOp>();
    return compare && compare.getPredicate() == arith::CmpIPredicate::ne &&
           compare.getLhs() == x && isZeroInteger(compare.getRhs());
  };
  return (isLessThanZero(both.getLhs()) && isNonZero(both.getRhs())) ||
         (isNonZero(both.getLhs()) && isLessThanZero(both.getRhs()));
}

/// `x` when `value` is Python's wrap of a negative index into a dimension
/// of `size`: `select(x < 0, x + size, x)` as torch-mlir writes `x[ids]`
/// and ONNX's Gather, or the same of `x mod size` of an operand of the op
/// (`take_along_dim`), which is the wrap for every index in `[-size, size)`
/// (the others are errors in PyTorch, and in the gather). The modulo of a
/// computed index (`embedding(ids * 2 % n)`) is no such wrap: the vector
/// unit computes it.
Value getWrappedIndex(Value value, int64_t size) {
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select)
    return Value();
  Value x = select.getFalseValue();
  auto add = select.getTrueValue().getDefiningOp<arith::AddIOp>();
  if (!add || !isNegativeTest(select.getCondition(), x) ||
      !llvm::is_contained(add->getOperands(), x))
    return Value();
  Value other = add.getLhs() == x ? add.getRhs() : add.getLhs();
  if (getConstantIntValue(other) != size)
    return Value();
  if (auto remainder = x.getDefiningOp<arith::RemSIOp>()) {
    if (getConstantIntValue(remainder.getRhs()) != size ||
        !isa<BlockArgument>(remainder.getLhs()))
      return Value();
    return remainder.getLhs();
  }
  return x;
}

/// `expr` with its dims and symbols replaced by `operands` (dims first), when
/// every step is a sum or a product by a constant.
std::optional<LoopLinear> evaluateAffine(AffineExpr expr,
                                         ArrayRef<LoopLinear> operands,
                                         unsigned numDims, unsigned loops) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    LoopLinear result{SmallVector<int64_t>(loops, 0), constant.getValue()};
    return result;
  }
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return operands[dim.getPosition()];
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return operands[numDims + symbol.getPosition()];
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::nullopt;
  std::optional<LoopLinear> lhs =
      evaluateAffine(binary.getLHS(), operands, numDims, loops);
  std::optional<LoopLinear> rhs =
      evaluateAffine(binary.getRHS(), operands, numDims, loops);
  if (!lhs || !rhs)
    return std::nullopt;
  auto isConstant = [](const LoopLinear &value) {
    return llvm::all_of(value.coefficients, [](int64_t c) { return c == 0; });
  };
  if (expr.getKind() == AffineExprKind::Add) {
    for (auto [a, b] : llvm::zip(lhs->coefficients, rhs->coefficients))
      a += b;
    lhs->constant += rhs->constant;
    return lhs;
  }
  if (expr.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  if (isConstant(*lhs))
    std::swap(lhs, rhs);
  if (!isConstant(*rhs))
    return std::nullopt;
  for (int64_t &a : lhs->coefficients)
    a *= rhs->constant;
  lhs->constant *= rhs->constant;
  return lhs;
}

/// `value`, an index computed in the body of a linalg op with `loops`
/// loops, as a function of the loops: constants, `linalg.index`, and sums
/// and constant multiples of them (`affine.apply`, `arith.addi`,
/// `arith.muli`), as tiling and torch-mlir write them.
std::optional<LoopLinear> getLoopLinear(Value value, unsigned loops) {
  LoopLinear result{SmallVector<int64_t>(loops, 0), 0};
  if (std::optional<int64_t> constant = getConstantIntValue(value)) {
    result.constant = *constant;
    return result;
  }
  Operation *def = value.getDefiningOp();
  if (auto index = dyn_cast_or_null<linalg::IndexOp>(def)) {
    result.coefficients[index.getDim()] = 1;
    return result;
  }
  if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def)) {
    SmallVector<LoopLinear> operands;
    for (Value operand : apply.getMapOperands()) {
      std::optional<LoopLinear> linear = getLoopLinear(operand, loops);
      if (!linear)
        return std::nullopt;
      operands.push_back(*linear);
    }
    AffineMap map = apply.getAffineMap();
    return evaluateAffine(map.getResult(0), operands, map.getNumDims(), loops);
  }
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp>(def)) {
    std::optional<LoopLinear> lhs = getLoopLinear(def->getOperand(0), loops);
    std::optional<LoopLinear> rhs = getLoopLinear(def->getOperand(1), loops);
    if (!lhs || !rhs)
      return std::nullopt;
    auto kind = isa<arith::AddIOp>(def) ? AffineExprKind::Add
                                         : AffineExprKind::Mul;
    MLIRContext *ctx = value.getContext();
    AffineExpr expr = getAffineBinaryOpExpr(kind, getAffineDimExpr(0, ctx),
                                            getAffineDimExpr(1, ctx));
    return evaluateAffine(expr, {*lhs, *rhs}, 2, loops);
  }
  return std::nullopt;
}

struct Lowering {
  IRRewriter &rewriter;
  ArchAttr arch;
  /// Whether a matmul's zero fill becomes its first blocks' `init`: on a
  /// tile with DRAM channels of its own (tessel-split-transfers), whose
  /// fill delays its array. Where tiles share their channels, and the loads
  /// of shared operands tie the tiles of a row or column together, the
  /// fill runs while the tile waits for its loads or their leaders, and
  /// folding it only moved the waits (docs/spatial.md).
  bool foldMatmulFills = false;

  /// memref.copy between DRAM and SRAM: a DMA transfer, waited for at once
  /// (the schedule later moves the wait to the first use). A load of a
  /// window of a tessel.pad_view loads the window's part inside the view's
  /// source.
  LogicalResult lowerCopy(memref::CopyOp copy) {
    rewriter.setInsertionPoint(copy);
    Value source = copy.getSource(), target = copy.getTarget();
    if (source.getDefiningOp<memref::SubViewOp>() ||
        source.getDefiningOp<PadViewOp>()) {
      FailureOr<std::optional<std::pair<Value, Value>>> inside =
          getPaddedWindow(copy);
      if (failed(inside))
        return failure();
      if (*inside) {
        std::tie(source, target) = **inside;
      } else {
        rewriter.eraseOp(copy); // all padding: the fill was the load
        return success();
      }
    }
    auto dma = DmaOp::create(rewriter, copy.getLoc(), source, target,
                             /*channel=*/nullptr);
    if (Attribute group = copy->getAttr(TesselDialect::getShareAttrName()))
      dma->setAttr(TesselDialect::getShareAttrName(), group);
    WaitOp::create(rewriter, copy.getLoc(), ValueRange{dma.getToken()});
    rewriter.eraseOp(copy);
    return success();
  }

  /// For a load whose source is a window of a tessel.pad_view (the view,
  /// or static subviews of it): the views of the window's elements inside
  /// the pad's source and of where they go in the target, the rest of the
  /// target filled with the padding value first, where the window reaches
  /// into the border; none when the window is all border. The source and
  /// target unchanged for a load of anything else.
  FailureOr<std::optional<std::pair<Value, Value>>>
  getPaddedWindow(memref::CopyOp copy) {
    Value source = copy.getSource(), target = copy.getTarget();
    auto sourceType = cast<MemRefType>(source.getType());
    int64_t rank = sourceType.getRank();
    // Per dimension of the padded tensor: the window's first element and
    // its step, composed over the subviews (outermost last).
    SmallVector<int64_t> start(rank, 0), step(rank, 1);
    Value view = source;
    while (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
      if (subview.getSourceType().getRank() != rank ||
          ShapedType::isDynamicShape(subview.getStaticOffsets()) ||
          ShapedType::isDynamicShape(subview.getStaticStrides()))
        break;
      for (int64_t d = 0; d < rank; ++d) {
        start[d] = subview.getStaticOffsets()[d] + subview.getStaticStrides()[d] * start[d];
        step[d] *= subview.getStaticStrides()[d];
      }
      view = subview.getSource();
    }
    auto pad = view.getDefiningOp<PadViewOp>();
    if (!pad)
      return std::optional(std::make_pair(source, target));
    auto inner = cast<MemRefType>(pad.getSource().getType());
    SmallVector<int64_t> innerOffsets, sizes, targetOffsets;
    bool clipped = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = sourceType.getDimSize(d), low = pad.getLow()[d];
      // Elements i of the window with low <= start + i * step < low + dim.
      int64_t first = std::max<int64_t>(
          0, llvm::divideCeilSigned(low - start[d], step[d]));
      int64_t last = std::min<int64_t>(
          size - 1, llvm::divideFloorSigned(low + inner.getDimSize(d) - 1 -
                                                start[d],
                                            step[d]));
      if (last < first) {
        clipped = true;
        sizes.clear();
        break;
      }
      clipped |= first > 0 || last < size - 1;
      innerOffsets.push_back(start[d] + first * step[d] - low);
      sizes.push_back(last - first + 1);
      targetOffsets.push_back(first);
    }
    Location loc = copy.getLoc();
    if (sizes.empty()) {
      VectorFillOp::create(rewriter, loc, pad.getValueAttr(), target);
      return std::optional<std::pair<Value, Value>>();
    }
    SmallVector<int64_t> ones(rank, 1);
    if (clipped)
      fillBorder(loc, pad.getValueAttr(), target, targetOffsets, sizes);
    Value inside = memref::SubViewOp::create(rewriter, loc, pad.getSource(),
                                             innerOffsets, sizes, step);
    if (clipped)
      target = memref::SubViewOp::create(rewriter, loc, target, targetOffsets,
                                         sizes, ones);
    return std::optional(std::make_pair(inside, target));
  }

  /// Fills the elements of `target` outside its box `offsets` + `sizes`
  /// with `value`, each once: per dimension `d` the slabs before and after
  /// the box along `d`, inside the box along the dimensions before `d` and
  /// whole along those after it. A convolution's window touches the border
  /// in a row or a column or two: filling the whole window first cost the
  /// vector unit as much as the window's size.
  void fillBorder(Location loc, FloatAttr value, Value target,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    ArrayRef<int64_t> shape = cast<MemRefType>(target.getType()).getShape();
    int64_t rank = shape.size();
    SmallVector<int64_t> ones(rank, 1);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t end = offsets[d] + sizes[d];
      for (auto [from, to] : {std::pair(int64_t(0), offsets[d]),
                              std::pair(end, shape[d])}) {
        if (from >= to)
          continue;
        SmallVector<int64_t> slabOffsets(offsets.take_front(d));
        SmallVector<int64_t> slabSizes(sizes.take_front(d));
        slabOffsets.push_back(from);
        slabSizes.push_back(to - from);
        for (int64_t e = d + 1; e < rank; ++e) {
          slabOffsets.push_back(0);
          slabSizes.push_back(shape[e]);
        }
        Value slab = memref::SubViewOp::create(rewriter, loc, target,
                                               slabOffsets, slabSizes, ones);
        VectorFillOp::create(rewriter, loc, value, slab);
      }
    }
  }

  LogicalResult lowerFill(linalg::FillOp fill) {
    std::optional<APFloat> value = getImmediate(fill.value());
    if (!value) {
      InFlightDiagnostic diag = fill.emitOpError(
          "fills with a value that is not a constant; the vector unit fills "
          "immediates");
      explainInexactInteger(diag, fill.value());
      return diag;
    }
    rewriter.setInsertionPoint(fill);
    VectorFillOp::create(rewriter, fill.getLoc(),
                         rewriter.getF32FloatAttr(value->convertToDouble()),
                         fill.getOutputs()[0]);
    rewriter.eraseOp(fill);
    return success();
  }

  /// A 2-D strided view of `buffer` not yet built: element (i, j) is element
  /// `offset + i * strides[0] + j * strides[1]` of the buffer (counted from
  /// the buffer's own first element). Blocks of it become one view op each,
  /// not a view of a view: a ResNet has a million of them. Its rows may come
  /// in `groups` runs of `sizes[0]`, `groupStride` apart: row `i` of group
  /// `g` is at `offset + g * groupStride + i * strides[0]` (a convolution's
  /// output rows, an input row apart in its window).
  struct Strided2D {
    Value buffer;
    int64_t offset;
    std::array<int64_t, 2> sizes, strides;
    int64_t groups = 1, groupStride = 0;
  };

  /// Rows `[row, row + rows)` of groups `[group, group + groups)` of a
  /// Strided2D: the rows of one MAC-array block.
  struct RowBlock {
    int64_t group, groups, row, rows;
  };

  static Strided2D whole(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> strides = stridesOf(buffer);
    return {buffer, 0, {type.getDimSize(0), type.getDimSize(1)},
            {strides[0], strides[1]}};
  }

  /// `view` with rows and columns swapped; its rows in one group.
  static Strided2D transposed(Strided2D view) {
    assert(view.groups == 1 && "only a view of one group transposes");
    std::swap(view.sizes[0], view.sizes[1]);
    std::swap(view.strides[0], view.strides[1]);
    return view;
  }

  /// Columns `[c0, c0 + cols)` of the rows `rows` of `view`: 2-D within
  /// one group, else (groups, rows, columns).
  Value block(Location loc, const Strided2D &view, RowBlock rows, int64_t c0,
              int64_t cols) {
    int64_t base = view.offset + rows.group * view.groupStride +
                   rows.row * view.strides[0] + c0 * view.strides[1];
    if (rows.groups == 1)
      return window(loc, view.buffer, base, {rows.rows, cols},
                    {view.strides[0], view.strides[1]});
    return window(loc, view.buffer, base, {rows.groups, rows.rows, cols},
                  {view.groupStride, view.strides[0], view.strides[1]});
  }

  /// Calls `body(rows, k0, ks, n0, ns)` for each MAC-array block of a
  /// (groups x m x k) * (k x n) product, k ascending within each block of
  /// rows and columns: the accumulation order of the ISA. The array holds a
  /// block of the stationary operand and streams the rest: rhs's k x n
  /// blocks (k up to the array's rows) against every row when weight
  /// stationary; when output stationary, blocks of up to the array's rows
  /// of the accumulator (whole groups, or parts of one) against all of k.
  void forEachMatmulBlock(
      int64_t groups, int64_t m, int64_t k, int64_t n,
      llvm::function_ref<void(RowBlock, int64_t, int64_t, int64_t, int64_t)>
          body) {
    int64_t rows = arch.getTileMacRows(), cols = arch.getTileMacCols();
    bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
    SmallVector<RowBlock> rowBlocks;
    if (weightStationary) {
      rowBlocks.push_back({0, groups, 0, m});
    } else if (groups > 1 && m <= rows) {
      for (int64_t g = 0, per = rows / m; g < groups; g += per)
        rowBlocks.push_back({g, std::min(per, groups - g), 0, m});
    } else {
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t r = 0; r < m; r += rows)
          rowBlocks.push_back({g, 1, r, std::min(rows, m - r)});
    }
    int64_t kBlock = weightStationary ? rows : k;
    for (RowBlock rowBlock : rowBlocks)
      for (int64_t n0 = 0; n0 < n; n0 += cols)
        for (int64_t k0 = 0; k0 < k; k0 += kBlock)
          body(rowBlock, k0, std::min(kBlock, k - k0), n0,
               std::min(cols, n - n0));
  }

  /// The cycles of `repeats` (groups x m x k) * (k x n) products of
  /// `elementType` operands issued back to back on the MAC array, by the
  /// timing equations of docs/simulator.md: per block, its fill, then its
  /// streaming steps or its SRAM traffic, whichever is slower, and its
  /// drain. With two weight
  /// buffers a block's fill hides under the previous block's stream and the
  /// run ends when its last result leaves the array. Arrangements of a
  /// convolution are compared by it; they change the time, never the bits.
  int64_t estimateMatmulCycles(int64_t m, int64_t k, int64_t n,
                               Type elementType, int64_t repeats = 1,
                               int64_t groups = 1) {
    bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
    bool doubleBuffered = arch.getTileMacWeightBuffers() == 2;
    int64_t arrayMacs = arch.getTileMacRows() * arch.getTileMacCols();
    int64_t macsPerCycle = std::max<int64_t>(arch.getMacsPerCycle(elementType), 1);
    int64_t port = arch.getTileSramBytesPerCycle();
    int64_t size = llvm::divideCeilSigned(
        static_cast<int64_t>(elementType.getIntOrFloatBitWidth()), 8);
    int64_t streamed = 0, end = 0;
    std::optional<int64_t> previousStream;
    auto addBlock = [&](RowBlock rows, int64_t, int64_t ks, int64_t,
                        int64_t ns) {
      int64_t ms = rows.groups * rows.rows;
      int64_t fill = weightStationary ? ks : ms + ns - 2;
      int64_t drain = weightStationary ? ks + ns - 1 : ms;
      int64_t steps = llvm::divideCeilSigned(
          (weightStationary ? ms : ks) * arrayMacs, macsPerCycle);
      int64_t bytes = (ms * ks + ks * ns) * size + ms * ns * 4;
      int64_t stream = std::max(steps, llvm::divideCeilSigned(bytes, port));
      if (!doubleBuffered) {
        streamed += fill + stream + drain;
        end = streamed;
        return;
      }
      streamed += (previousStream ? std::max<int64_t>(0, fill - *previousStream)
                                  : fill) +
                  stream;
      end = std::max(end, streamed + drain);
      previousStream = stream;
    };
    // From the second product on, each is timed alike and adds the same
    // cycles: three are enough to extrapolate the rest (a convolution
    // repeats its product per tap and output row, hundreds of times).
    int64_t timed = std::min<int64_t>(repeats, 3), before = 0;
    for (int64_t i = 0; i < timed; ++i) {
      before = streamed;
      forEachMatmulBlock(groups, m, k, n, addBlock);
    }
    return end + (repeats - timed) * (streamed - before);
  }

  /// One MAC-array instruction per block of lhs * rhs accumulated into acc.
  /// The blocks of acc += lhs * rhs; with `init`, each output block's
  /// first (k0 = 0) starts its sums at zero.
  void emitMatmulBlocks(Location loc, const Strided2D &lhs,
                        const Strided2D &rhs, const Strided2D &acc,
                        bool init) {
    forEachMatmulBlock(
        lhs.groups, lhs.sizes[0], lhs.sizes[1], rhs.sizes[1],
        [&](RowBlock rows, int64_t k0, int64_t ks, int64_t n0, int64_t ns) {
          // One statement per view: argument evaluation order is
          // unspecified, and the IR must not depend on the compiler.
          Value lhsBlock = block(loc, lhs, rows, k0, ks);
          Value rhsBlock = block(loc, rhs, {0, 1, k0, ks}, n0, ns);
          Value accBlock = block(loc, acc, rows, n0, ns);
          MatmulOp::create(rewriter, loc, lhsBlock, rhsBlock, accBlock,
                           /*init=*/init && k0 == 0);
        });
  }

  /// acc += lhs * rhs as it is written or transposed (acc^T += rhs^T *
  /// lhs^T), whichever the timing model says is faster (ties: as written).
  /// The array holds a block of one operand and streams the other: with 128
  /// rows of activations against a 768 x 3072 weight, streaming the weight's
  /// 3072 columns past the activations pays each block's fill and drain
  /// over many more rows. Each output still adds its products in k order,
  /// so the bits are the same either way.
  void emitMatmul(Location loc, const Strided2D &lhs, const Strided2D &rhs,
                  const Strided2D &acc, Type elementType, bool init = false) {
    int64_t m = lhs.sizes[0], k = lhs.sizes[1], n = rhs.sizes[1];
    if (estimateMatmulCycles(n, k, m, elementType) <
        estimateMatmulCycles(m, k, n, elementType))
      emitMatmulBlocks(loc, transposed(rhs), transposed(lhs), transposed(acc),
                       init);
    else
      emitMatmulBlocks(loc, lhs, rhs, acc, init);
  }

  /// Whether `op`'s output starts from a zero fill that nothing else sees:
  /// the last instruction before `op` that touches the output's buffer is a
  /// `vector_fill` of +0 of that very output, and `op`'s inputs are other
  /// buffers. The fill is then erased, and `op`'s blocks start their sums at
  /// zero themselves (`matmul init`): its MAC-array blocks cover the output,
  /// each output block's first one writing it before anything reads it.
  bool takeZeroFill(linalg::LinalgOp op) {
    Value output = op.getDpsInits()[0];
    Value buffer = getViewRoot(output);
    if (llvm::any_of(op.getDpsInputs(), [&](Value input) {
          return getViewRoot(input) == buffer;
        }))
      return false;
    for (Operation *prev = op->getPrevNode();
         prev && prev != buffer.getDefiningOp(); prev = prev->getPrevNode()) {
      if (isa<ViewLikeOpInterface, memref::TransposeOp, memref::AllocOp,
              arith::ConstantOp>(prev))
        continue;
      bool touches = llvm::any_of(prev->getOperands(), [&](Value v) {
        return isa<MemRefType>(v.getType()) && getViewRoot(v) == buffer;
      });
      if (!touches)
        continue;
      auto fill = dyn_cast<VectorFillOp>(prev);
      // +0 only: the sums of a -0 fill start at -0.
      if (!fill || fill.getResult() != output ||
          !fill.getValue().isPosZero())
        return false;
      rewriter.eraseOp(fill);
      return true;
    }
    return false;
  }

  LogicalResult lowerMatmul(linalg::MatmulOp matmul) {
    rewriter.setInsertionPoint(matmul);
    if (failed(checkStatic(matmul)))
      return failure();
    Value lhs = matmul.getInputs()[0];
    bool init = foldMatmulFills && takeZeroFill(matmul);
    emitMatmul(matmul.getLoc(), whole(lhs), whole(matmul.getInputs()[1]),
               whole(matmul.getOutputs()[0]), getElementTypeOrSelf(lhs), init);
    rewriter.eraseOp(matmul);
    return success();
  }

  /// A strided window of `buffer`: element (i0, ..) of the result is element
  /// `base + sum(i_k * steps[k])` of the buffer (all in elements of the
  /// buffer's own layout, which must be static).
  Value window(Location loc, Value buffer, int64_t base,
               ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps) {
    int64_t offset =
        cast<MemRefType>(buffer.getType()).getStridesAndOffset().second;
    return stridedView(rewriter, loc, buffer, offset + base, sizes, steps);
  }

  static SmallVector<int64_t> stridesOf(Value buffer) {
    return cast<MemRefType>(buffer.getType()).getStridesAndOffset().first;
  }

  static LogicalResult checkStatic(Operation *op) {
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || !type.hasStaticShape() || !type.isStrided())
        return op->emitOpError("needs statically shaped, strided operands");
      auto [strides, offset] = type.getStridesAndOffset();
      if (ShapedType::isDynamic(offset) ||
          llvm::any_of(strides, ShapedType::isDynamic))
        return op->emitOpError("needs static strides and offsets");
    }
    return success();
  }

  /// A broadcast: a copy from a view with zero strides along the added
  /// dimensions.
  LogicalResult lowerBroadcast(linalg::BroadcastOp op) {
    rewriter.setInsertionPoint(op);
    Value output = op.getInit();
    FailureOr<Value> view = getLoopView(
        rewriter, op.getLoc(), op.getInput(),
        op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
        cast<MemRefType>(output.getType()).getShape());
    if (failed(view))
      return op.emitOpError("cannot be read through a strided view");
    VectorUnaryOp::create(rewriter, op.getLoc(), VectorUnaryKind::copy, *view,
                          output);
    rewriter.eraseOp(op);
    return success();
  }

  /// batch_matmul: one matmul per batch element, through 2-D views.
  LogicalResult lowerBatchMatmul(linalg::BatchMatmulOp op) {
    if (failed(checkStatic(op)))
      return failure();
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value lhs = op.getInputs()[0], rhs = op.getInputs()[1],
          acc = op.getOutputs()[0];
    ArrayRef<int64_t> lhsShape = cast<MemRefType>(lhs.getType()).getShape();
    ArrayRef<int64_t> rhsShape = cast<MemRefType>(rhs.getType()).getShape();
    SmallVector<int64_t> ls = stridesOf(lhs), rs = stridesOf(rhs),
                         as = stridesOf(acc);
    int64_t m = lhsShape[1], k = lhsShape[2], n = rhsShape[2];
    for (int64_t b = 0; b < lhsShape[0]; ++b)
      emitMatmul(loc, {lhs, b * ls[0], {m, k}, {ls[1], ls[2]}},
                 {rhs, b * rs[0], {k, n}, {rs[1], rs[2]}},
                 {acc, b * as[0], {m, n}, {as[1], as[2]}},
                 getElementTypeOrSelf(lhs));
    rewriter.eraseOp(op);
    return success();
  }

  /// conv_2d_nchw_fchw as matmuls, in whichever of three arrangements the
  /// timing model says is fastest. Each instruction contracts over one of
  /// the input channels, the kernel rows or the kernel columns, whichever is
  /// longest (a patch embedding has 3 channels but 16 columns), inside loops
  /// over the other two (the taps). Per image, either
  ///   - per output row: out[n, :, r, :] (F x OW) += W (F x K) * X (K x OW),
  ///     or the same product transposed (the row's pixels streaming);
  ///   - all output rows as one stream of pixels against stationary weights:
  ///     out^T (OH*OW x F) += X^T (OH*OW x K) * W^T (K x F), the pixels in
  ///     OH groups of OW (tessel.matmul's 3-D operands): a group's pixels
  ///     are an output row in the output and an input row's worth of
  ///     column steps in the input, so the input's columns between rows
  ///     (padding, a stride's skipped columns) are neither read nor
  ///     computed. Where the rows follow on from each other in both (a 1x1
  ///     convolution) the stream is one group.
  /// Every output element adds the same products in the same order in each
  /// arrangement, so the choice changes the time, never the bits.
  LogicalResult lowerConv(linalg::Conv2DNchwFchwOp conv) {
    if (failed(checkStatic(conv)))
      return failure();
    rewriter.setInsertionPoint(conv);
    Location loc = conv.getLoc();
    Value x = conv.getInputs()[0], w = conv.getInputs()[1],
          y = conv.getOutputs()[0];
    ArrayRef<int64_t> wShape = cast<MemRefType>(w.getType()).getShape();
    ArrayRef<int64_t> yShape = cast<MemRefType>(y.getType()).getShape();
    Type elementType = cast<MemRefType>(x.getType()).getElementType();
    SmallVector<int64_t> xs = stridesOf(x), ws = stridesOf(w),
                         ys = stridesOf(y);
    auto stride = conv.getStrides().getValues<int64_t>();
    auto dilation = conv.getDilations().getValues<int64_t>();
    int64_t sh = stride[0], sw = stride[1], dh = dilation[0], dw = dilation[1];
    int64_t f = wShape[0], c = wShape[1], kh = wShape[2], kw = wShape[3];
    int64_t images = yShape[0], oh = yShape[2], ow = yShape[3];
    // The three reduction loops: extent, input stride, weight stride.
    struct Reduction {
      int64_t extent, xStride, wStride;
    };
    SmallVector<Reduction> reductions = {{c, xs[1], ws[1]},
                                         {kh, dh * xs[2], ws[2]},
                                         {kw, dw * xs[3], ws[3]}};
    // Ties keep the channels, the longest stride-1 run in NCHW weights.
    auto longest = llvm::max_element(reductions, [](const Reduction &a,
                                                    const Reduction &b) {
      return a.extent < b.extent;
    });
    Reduction k = *longest;
    reductions.erase(longest);
    Reduction outer = reductions[0], inner = reductions[1];
    int64_t taps = outer.extent * inner.extent;

    // The cycles of each arrangement, per image.
    // Per row, every tap of every row back to back.
    int64_t rowByWeights =
        estimateMatmulCycles(f, k.extent, ow, elementType, taps * oh);
    int64_t rowByPixels =
        estimateMatmulCycles(ow, k.extent, f, elementType, taps * oh);
    int64_t perRow = std::min(rowByWeights, rowByPixels);
    // All rows as one stream per tap: oh groups of ow pixels.
    bool allRows =
        oh > 1 && estimateMatmulCycles(ow, k.extent, f, elementType, taps,
                                       /*groups=*/oh) < perRow;
    bool pixelsStream = allRows || rowByPixels < rowByWeights;
    // The stream's rows are one group where both the input's and the
    // output's rows follow on from each other (a 1x1 convolution).
    int64_t xRowStep = sh * xs[2];
    bool oneGroup = xRowStep == ow * sw * xs[3] && ys[2] == ow * ys[3];
    // From a zero fill, the first tap's blocks start the sums.
    bool init = takeZeroFill(conv);

    // `count` rows of `ow` pixels from `offset` of `buffer` (pixels
    // `pixelStride` apart, rows `rowStride`, a pixel's `columns` values
    // `columnStride`) as the stream's rows: in groups, one per row, or one
    // run where the rows follow on.
    auto rowsOf = [&](Value buffer, int64_t offset, int64_t count,
                      int64_t pixelStride, int64_t rowStride,
                      int64_t columns, int64_t columnStride) -> Strided2D {
      if (count == 1 || oneGroup)
        return {buffer, offset, {count * ow, columns},
                {pixelStride, columnStride}};
      return {buffer, offset, {ow, columns}, {pixelStride, columnStride},
              count, rowStride};
    };
    int64_t rowsPerStream = allRows ? oh : 1;
    for (int64_t n = 0; n < images; ++n)
      for (int64_t r0 = 0; r0 < oh; r0 += rowsPerStream) {
        Strided2D out = rowsOf(y, n * ys[0] + r0 * ys[2], rowsPerStream, ys[3],
                               ys[2], f, ys[1]);
        for (int64_t a = 0; a < outer.extent; ++a)
          for (int64_t b = 0; b < inner.extent; ++b) {
            Strided2D pixels = rowsOf(
                x,
                n * xs[0] + r0 * xRowStep + a * outer.xStride +
                    b * inner.xStride,
                rowsPerStream, sw * xs[3], xRowStep, k.extent, k.xStride);
            Strided2D weights{w,
                              a * outer.wStride + b * inner.wStride,
                              {k.extent, f},
                              {k.wStride, ws[0]}};
            bool first = init && a == 0 && b == 0;
            if (pixelsStream)
              emitMatmulBlocks(loc, pixels, weights, out, first);
            else
              emitMatmulBlocks(loc, transposed(weights), transposed(pixels),
                               transposed(out), first);
          }
      }
    rewriter.eraseOp(conv);
    return success();
  }

  /// A depthwise convolution or a pooling on NCHW: for each image and
  /// kernel tap, one (or two) vector instructions over the C x OH x OW
  /// window: out = combine(out, window [* weight, broadcast over OH x OW]).
  LogicalResult lowerWindowed(linalg::LinalgOp op, Value x, Value weight,
                              Value y, ArrayRef<int64_t> kernel,
                              DenseIntElementsAttr strides,
                              DenseIntElementsAttr dilations,
                              VectorBinaryKind combine) {
    if (failed(checkStatic(op)))
      return failure();
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    ArrayRef<int64_t> yShape = cast<MemRefType>(y.getType()).getShape();
    SmallVector<int64_t> xs = stridesOf(x), ys = stridesOf(y);
    auto stride = strides.getValues<int64_t>();
    auto dilation = dilations.getValues<int64_t>();
    int64_t c = yShape[1], oh = yShape[2], ow = yShape[3];
    Value product;
    if (weight)
      product = allocateTemporary(rewriter, loc, {c, oh, ow},
                                  cast<MemRefType>(y.getType()).getElementType());
    for (int64_t n = 0; n < yShape[0]; ++n) {
      Value out = window(loc, y, n * ys[0], {c, oh, ow}, {ys[1], ys[2], ys[3]});
      for (int64_t i = 0; i < kernel[0]; ++i)
        for (int64_t j = 0; j < kernel[1]; ++j) {
          Value in = window(
              loc, x, n * xs[0] + i * dilation[0] * xs[2] + j * dilation[1] * xs[3],
              {c, oh, ow}, {xs[1], stride[0] * xs[2], stride[1] * xs[3]});
          Value term = in;
          if (weight) {
            SmallVector<int64_t> wstr = stridesOf(weight);
            Value tap = window(loc, weight, i * wstr[1] + j * wstr[2],
                               {c, oh, ow}, {wstr[0], 0, 0});
            VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::mul, in,
                                   tap, product);
            term = product;
          }
          VectorBinaryOp::create(rewriter, loc, combine, out, term, out);
        }
    }
    if (product) {
      rewriter.setInsertionPointAfter(op);
      memref::DeallocOp::create(rewriter, loc, product);
    }
    rewriter.eraseOp(op);
    return success();
  }

  LogicalResult lowerTranspose(linalg::TransposeOp transpose) {
    rewriter.setInsertionPoint(transpose);
    auto permutation = AffineMap::getPermutationMap(
        transpose.getPermutation(), rewriter.getContext());
    // Dimension k of the output is dimension perm[k] of the input: the
    // input seen through the permutation map (d_perm[0], d_perm[1], ...).
    Value view = memref::TransposeOp::create(rewriter, transpose.getLoc(),
                                             transpose.getInput(),
                                             AffineMapAttr::get(permutation));
    VectorUnaryOp::create(rewriter, transpose.getLoc(), VectorUnaryKind::copy,
                          view, transpose.getInit());
    rewriter.eraseOp(transpose);
    return success();
  }

  /// SRAM buffers holding the body's scalars over the iteration space.
  struct BodyBuffers {
    DenseMap<Value, Value> of;
    /// Temporaries to free once the op is lowered.
    SmallVector<Value> temporaries;
  };

  /// A `memref.load` of a DRAM table in the body of `op` (iteration space
  /// `shape`): a `tessel.dma_gather` into `target`, waited for at once.
  /// The load's indices are functions of the loops (the table view's
  /// strides), except at most one, the `index_cast` of an integer the
  /// vector unit has (an operand of the op, or computed from operands),
  /// which picks the row: the gather's indices, read through its view.
  LogicalResult emitGather(memref::LoadOp load, ArrayRef<int64_t> shape,
                           const BodyBuffers &buffers, Value target) {
    Value table = load.getMemRef();
    auto type = cast<MemRefType>(table.getType());
    if (getMemorySpace(type) != MemorySpace::dram)
      return load.emitOpError("reads an SRAM buffer element by element; only "
                              "a DRAM table is read by index (dma_gather)");
    auto [strides, offset] = type.getStridesAndOffset();
    SmallVector<int64_t> viewStrides(shape.size(), 0);
    Value indices;
    int64_t indexStride = 0, rows = 0;
    bool wrap = false;
    for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
      if (auto cast = index.getDefiningOp<arith::IndexCastOp>()) {
        Value source = cast.getIn();
        if (Value wrapped = getWrappedIndex(source, type.getDimSize(dim))) {
          source = wrapped;
          wrap = true;
        }
        Value view = buffers.of.lookup(source);
        if (indices || !view)
          return load.emitOpError()
                 << "reads the table at indices computed from the data in a "
                    "way a gather does not: one dimension may be picked by "
                    "an integer the vector unit computes from the op's "
                    "operands (an embedding, index_select or gather), the "
                    "others must follow the loops";
        indices = view;
        indexStride = strides[dim];
        rows = type.getDimSize(dim);
        continue;
      }
      std::optional<LoopLinear> linear = getLoopLinear(index, shape.size());
      if (!linear)
        return load.emitOpError()
               << "reads the table at an index (dimension " << dim
               << ") that is not an affine function of the loops nor an "
                  "integer operand of the op";
      offset += linear->constant * strides[dim];
      for (auto [loop, coefficient] : llvm::enumerate(linear->coefficients))
        viewStrides[loop] += coefficient * strides[dim];
    }
    if (!indices)
      return load.emitOpError("reads the table at indices that do not depend "
                              "on the data; such lookups are operands "
                              "(tessel-extracts-as-operands)");
    Location loc = load.getLoc();
    Value tableView =
        stridedView(rewriter, loc, table, offset, shape, viewStrides);
    auto gather = DmaGatherOp::create(
        rewriter, loc, tableView, indices, target,
        rewriter.getI64IntegerAttr(rows),
        rewriter.getI64IntegerAttr(indexStride),
        wrap ? rewriter.getUnitAttr() : UnitAttr(), /*channel=*/nullptr);
    WaitOp::create(rewriter, loc, ValueRange{gather.getToken()});
    return success();
  }

  /// One vector instruction per body op of `op` before `stop` (all of them
  /// if null), each over the iteration space `shape` into an SRAM temporary,
  /// except that the op computing `direct` writes `directTarget`. Operands
  /// are read through views indexed by the loops (zero strides broadcast),
  /// float constants from filled temporaries.
  LogicalResult evaluateBody(linalg::LinalgOp op, ArrayRef<int64_t> shape,
                             Operation *stop, Value direct, Value directTarget,
                             BodyBuffers &buffers) {
    Location loc = op.getLoc();
    Block &body = op->getRegion(0).front();
    for (OpOperand *input : op.getDpsInputOperands()) {
      FailureOr<Value> view = getLoopView(
          rewriter, loc, input->get(), op.getMatchingIndexingMap(input), shape);
      if (failed(view))
        return op.emitOpError("reads an operand through a map that is not a "
                              "projected permutation");
      buffers.of[body.getArgument(input->getOperandNumber())] = *view;
    }
    auto temporary = [&](Type elementType) {
      Value buffer = allocateTemporary(rewriter, loc, shape, elementType);
      buffers.temporaries.push_back(buffer);
      return buffer;
    };
    auto bufferFor = [&](Value scalar) -> FailureOr<Value> {
      if (Value buffer = buffers.of.lookup(scalar))
        return buffer;
      std::optional<APFloat> value = getImmediate(scalar);
      if (!value)
        return failure();
      Value buffer = temporary(scalar.getType());
      VectorFillOp::create(rewriter, loc,
                           rewriter.getF32FloatAttr(value->convertToDouble()),
                           buffer);
      buffers.of[scalar] = buffer;
      return buffer;
    };
    // What computes only the indices of loads is an address: the gather
    // reads what it computes (and what nothing uses is not computed).
    llvm::SmallPtrSet<Operation *, 8> addresses;
    for (Operation &bodyOp : llvm::reverse(body.without_terminator())) {
      bool addressOnly = llvm::all_of(bodyOp.getUses(), [&](OpOperand &use) {
        auto load = dyn_cast<memref::LoadOp>(use.getOwner());
        return addresses.contains(use.getOwner()) ||
               (load && use.get() != load.getMemRef());
      });
      if (isPure(&bodyOp) && !isa<memref::LoadOp>(bodyOp) && addressOnly)
        addresses.insert(&bodyOp);
    }
    // Except the integers that pick a gather's rows, when computed from the
    // data (`embedding(ids + 1)`): the vector unit computes them.
    body.walk([&](memref::LoadOp load) {
      auto type = cast<MemRefType>(load.getMemRef().getType());
      for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
        auto cast = index.getDefiningOp<arith::IndexCastOp>();
        if (!cast)
          continue;
        Value source = cast.getIn();
        if (Value wrapped = getWrappedIndex(source, type.getDimSize(dim)))
          source = wrapped;
        SmallVector<Operation *> work;
        if (Operation *def = source.getDefiningOp())
          work.push_back(def);
        while (!work.empty()) {
          Operation *computed = work.pop_back_val();
          if (computed->getBlock() != &body || !addresses.erase(computed))
            continue;
          for (Value operand : computed->getOperands())
            if (Operation *def = operand.getDefiningOp())
              work.push_back(def);
        }
      }
    });
    for (Operation &bodyOp : body.without_terminator()) {
      if (&bodyOp == stop)
        break;
      // Constants (and casts of them) become filled buffers where used.
      if (bodyOp.getNumResults() == 1 &&
          (getImmediate(bodyOp.getResult(0)) ||
           isa<arith::ConstantOp>(bodyOp)))
        continue;
      if (bodyOp.getNumResults() != 1)
        return bodyOp.emitOpError("has no vector-unit lowering");
      Value result = bodyOp.getResult(0);
      if (addresses.contains(&bodyOp))
        continue;
      // Rounding to even ahead of a conversion to an integer is the cast's
      // own rounding: the cast reads the value as it is.
      if (isa<math::RoundEvenOp>(bodyOp) &&
          llvm::all_of(bodyOp.getUsers(), llvm::IsaPred<arith::FPToSIOp>)) {
        FailureOr<Value> buffer = bufferFor(bodyOp.getOperand(0));
        if (failed(buffer))
          return bodyOp.emitOpError("rounds a value the vector unit cannot read");
        buffers.of[result] = *buffer;
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(bodyOp)) {
        Value target = result == direct ? directTarget
                                        : temporary(result.getType());
        if (failed(emitGather(load, shape, buffers, target)))
          return failure();
        buffers.of[result] = target;
        continue;
      }
      SmallVector<Value> operands;
      for (Value operand : bodyOp.getOperands()) {
        FailureOr<Value> buffer = bufferFor(operand);
        if (failed(buffer)) {
          InFlightDiagnostic diag = bodyOp.emitOpError(
              "uses a value the vector unit cannot read (only the op's "
              "operands, values computed before it and constants)");
          explainInexactInteger(diag, operand);
          return diag;
        }
        operands.push_back(*buffer);
      }
      // A comparison's i1 result is kept as 1 / 0 in the compared type, a
      // logical and / or of two in the first's type; a select reads its
      // condition in its own type.
      auto castTo = [&](Value buffer, Type type) {
        if (getElementTypeOrSelf(buffer.getType()) == type)
          return buffer;
        Value converted = temporary(type);
        VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, buffer,
                              converted);
        return converted;
      };
      Type storage = result.getType();
      if (isa<arith::CmpFOp, arith::CmpIOp>(bodyOp))
        storage = bodyOp.getOperand(0).getType();
      if (isa<arith::AndIOp, arith::OrIOp>(bodyOp) && result.getType().isInteger(1)) {
        storage = getElementTypeOrSelf(operands[0].getType());
        operands[1] = castTo(operands[1], storage);
      }
      if (isa<arith::SelectOp>(bodyOp))
        operands[0] = castTo(operands[0], storage);
      Value target = result == direct ? directTarget : temporary(storage);
      if (failed(emitVectorOp(bodyOp, operands, target, temporary)))
        return failure();
      buffers.of[result] = target;
    }
    return success();
  }

  void freeTemporaries(Operation *op, BodyBuffers &buffers) {
    rewriter.setInsertionPointAfter(op);
    for (Value temporary : buffers.temporaries)
      memref::DeallocOp::create(rewriter, op->getLoc(), temporary);
  }

  /// An elementwise linalg.generic: its body over the output's shape, the
  /// last op writing the output.
  LogicalResult lowerElementwise(linalg::GenericOp generic) {
    if (generic.getNumReductionLoops() != 0)
      return lowerReduction(generic);
    if (generic.getNumDpsInits() != 1 ||
        !generic.getIndexingMapsArray().back().isIdentity())
      return generic.emitOpError("is not an elementwise op with one identity-"
                                 "indexed output; no vector lowering yet");
    rewriter.setInsertionPoint(generic);
    Value output = generic.getDpsInits()[0];
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    Value yielded = yield.getOperand(0);
    // The op computing the yielded value writes the output directly unless
    // the value is also used inside the body (or is an operand or constant).
    Value direct = yielded.hasOneUse() && yielded.getDefiningOp() &&
                           !isa<arith::ConstantOp>(yielded.getDefiningOp())
                       ? yielded
                       : Value();
    BodyBuffers buffers;
    ArrayRef<int64_t> shape = cast<MemRefType>(output.getType()).getShape();
    if (failed(evaluateBody(generic, shape, /*stop=*/nullptr, direct, output,
                            buffers)))
      return failure();
    Value result = buffers.of.lookup(yielded);
    std::optional<APFloat> value = getImmediate(yielded);
    if (!result && value)
      VectorFillOp::create(rewriter, generic.getLoc(),
                           rewriter.getF32FloatAttr(value->convertToDouble()),
                           output);
    else if (!result)
      return generic.emitOpError("yields a value it cannot produce");
    else if (result != output)
      VectorUnaryOp::create(rewriter, generic.getLoc(), VectorUnaryKind::copy,
                            result, output);
    freeTemporaries(generic, buffers);
    rewriter.eraseOp(generic);
    return success();
  }

  /// A reduction (linalg.reduce, or a generic with reduction loops) whose
  /// body is elementwise work ending in one addition, maximum or minimum
  /// (of floats or signed integers) with the accumulator: the elementwise
  /// part over the whole iteration space, then
  /// `vector_reduce` along each reduced loop (innermost first), then combined
  /// with the output's previous value, so reductions split into SRAM steps
  /// accumulate across steps.
  LogicalResult lowerReduction(linalg::LinalgOp op) {
    if (op.getNumDpsInits() != 1)
      return op.emitOpError("reduces into more than one output");
    Block &body = op->getRegion(0).front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation *combine = yield.getOperand(0).getDefiningOp();
    BlockArgument acc = body.getArguments().back();
    std::optional<ReductionKind> kind;
    // A minimum is the negated maximum of the negated elements (for
    // integers, of their complements -1 - x, which never overflow).
    bool minimum =
        combine && isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(combine);
    if (combine && isa<arith::AddFOp, arith::AddIOp>(combine))
      kind = ReductionKind::add;
    else if (minimum || (combine && isa<arith::MaximumFOp, arith::MaxNumFOp,
                                        arith::MaxSIOp>(combine)))
      kind = ReductionKind::max;
    if (!kind || !llvm::is_contained(combine->getOperands(), acc))
      return op.emitOpError("reduces with something other than an addition, "
                            "maximum or minimum of the accumulator");
    Value element = combine->getOperand(0) == acc ? combine->getOperand(1)
                                                   : combine->getOperand(0);
    // The output holds the parallel loops, in order.
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<unsigned> parallel;
    for (auto [loop, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel)
        parallel.push_back(loop);
    // Results that are the constant 0 are kept unit dimensions.
    SmallVector<unsigned> written;
    bool inOrder = true;
    for (AffineExpr expr : outMap.getResults()) {
      if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
        inOrder = inOrder && constant.getValue() == 0;
        continue;
      }
      auto dim = dyn_cast<AffineDimExpr>(expr);
      inOrder = inOrder && dim;
      if (dim)
        written.push_back(dim.getPosition());
    }
    inOrder = inOrder && written == parallel;
    if (!inOrder)
      return op.emitOpError("writes its output in another order than its "
                            "parallel loops");

    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    SmallVector<int64_t> shape = op.getStaticLoopRanges();
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return op.emitOpError("has a loop of dynamic extent");
    BodyBuffers buffers;
    if (failed(evaluateBody(op, shape, combine, /*direct=*/Value(), Value(),
                            buffers)))
      return failure();
    Value reduced = buffers.of.lookup(element);
    if (!reduced)
      return op.emitOpError("reduces a value it cannot produce");
    Type elementType = element.getType();
    auto negate = [&](Value from) {
      Value negated = allocateTemporary(rewriter, loc, shape, elementType);
      buffers.temporaries.push_back(negated);
      if (isa<IntegerType>(elementType))
        VectorBinaryImmOp::create(rewriter, loc, VectorBinaryKind::sub, from,
                                  llvm::APFloat(-1.0f), negated,
                                  /*imm_lhs=*/true);
      else
        VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::neg, from,
                              negated);
      return negated;
    };
    if (minimum)
      reduced = negate(reduced);
    for (int64_t loop = iterators.size() - 1; loop >= 0; --loop) {
      if (iterators[loop] != utils::IteratorType::reduction)
        continue;
      shape.erase(shape.begin() + loop);
      Value next = allocateTemporary(rewriter, loc, shape, elementType);
      buffers.temporaries.push_back(next);
      VectorReduceOp::create(rewriter, loc, *kind, reduced, next, loop);
      reduced = next;
    }
    if (minimum)
      reduced = negate(reduced);
    // Kept unit dimensions: the output seen without them.
    Value output = op.getDpsInits()[0];
    auto outType = cast<MemRefType>(output.getType());
    if (outType.getShape() != ArrayRef<int64_t>(shape)) {
      auto [strides, offset] = outType.getStridesAndOffset();
      SmallVector<int64_t> kept;
      for (auto [dim, expr] : llvm::enumerate(outMap.getResults()))
        if (isa<AffineDimExpr>(expr))
          kept.push_back(strides[dim]);
      output = stridedView(rewriter, loc, output, offset, shape, kept);
    }
    VectorBinaryOp::create(rewriter, loc,
                           minimum                       ? VectorBinaryKind::min
                           : *kind == ReductionKind::add ? VectorBinaryKind::add
                                                         : VectorBinaryKind::max,
                           output, reduced, output);
    freeTemporaries(op, buffers);
    rewriter.eraseOp(op);
    return success();
  }

  /// The vector instructions of body op `op` reading `in` and writing
  /// `out`; `temporary` gives a scratch buffer of an element type over the
  /// same space, for the ops that take several instructions.
  LogicalResult emitVectorOp(Operation &op, ArrayRef<Value> in, Value out,
                             function_ref<Value(Type)> temporary) {
    Location loc = op.getLoc();
    auto binary = [&](VectorBinaryKind kind) {
      VectorBinaryOp::create(rewriter, loc, kind, in[0], in[1], out);
      return success();
    };
    auto unary = [&](VectorUnaryKind kind) {
      VectorUnaryOp::create(rewriter, loc, kind, in[0], out);
      return success();
    };
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](arith::AddFOp) { return binary(VectorBinaryKind::add); })
        .Case([&](arith::SubFOp) { return binary(VectorBinaryKind::sub); })
        .Case([&](arith::MulFOp) { return binary(VectorBinaryKind::mul); })
        .Case([&](arith::DivFOp) { return binary(VectorBinaryKind::div); })
        .Case([&](arith::MaximumFOp) { return binary(VectorBinaryKind::max); })
        .Case([&](arith::MinimumFOp) { return binary(VectorBinaryKind::min); })
        .Case([&](arith::NegFOp) { return unary(VectorUnaryKind::neg); })
        .Case([&](math::AbsFOp) { return unary(VectorUnaryKind::abs); })
        .Case([&](math::ExpOp) { return unary(VectorUnaryKind::exp); })
        .Case([&](math::LogOp) { return unary(VectorUnaryKind::log); })
        .Case([&](math::TanhOp) { return unary(VectorUnaryKind::tanh); })
        .Case([&](math::ErfOp) { return unary(VectorUnaryKind::erf); })
        .Case([&](math::SinOp) { return unary(VectorUnaryKind::sin); })
        .Case([&](math::CosOp) { return unary(VectorUnaryKind::cos); })
        .Case([&](math::FloorOp) { return unary(VectorUnaryKind::floor); })
        .Case([&](math::SqrtOp) { return unary(VectorUnaryKind::sqrt); })
        .Case([&](math::RsqrtOp) { return unary(VectorUnaryKind::rsqrt); })
        .Case([&](arith::FPToSIOp convert) {
          return emitTruncation(convert, in[0], out, temporary);
        })
        .Case([&](arith::RemSIOp remainder) {
          return emitRemainder(remainder, in[0], in[1], out, temporary);
        })
        // Integers wrap (two's complement), as arith's do.
        .Case([&](arith::AddIOp) { return binary(VectorBinaryKind::add); })
        .Case([&](arith::SubIOp) { return binary(VectorBinaryKind::sub); })
        .Case([&](arith::MulIOp) { return binary(VectorBinaryKind::mul); })
        // Booleans held as 1 / 0: and is the minimum, or the maximum.
        .Case<arith::AndIOp, arith::OrIOp>([&](Operation *logical)
                                               -> LogicalResult {
          if (!logical->getResult(0).getType().isInteger(1))
            return logical->emitOpError(
                "is a bitwise operation; the vector unit has none (only the "
                "logical and / or of comparisons lowers)");
          return binary(isa<arith::AndIOp>(logical) ? VectorBinaryKind::min
                                                    : VectorBinaryKind::max);
        })
        // Truncating, as divsi; the ISA defines x / 0 (-1), where divsi
        // leaves it undefined.
        .Case([&](arith::DivSIOp) { return binary(VectorBinaryKind::div); })
        .Case([&](arith::MaxSIOp) { return binary(VectorBinaryKind::max); })
        .Case([&](arith::MinSIOp) { return binary(VectorBinaryKind::min); })
        // Sign extension, truncation to the low bits and conversion to a
        // float rounded to nearest even are what `cast` does.
        .Case<arith::ExtSIOp, arith::TruncIOp, arith::SIToFPOp>(
            [&](Operation *) { return unary(VectorUnaryKind::cast); })
        // A boolean (a comparison's 1 / 0) as a number.
        .Case<arith::ExtUIOp, arith::UIToFPOp>([&](Operation *convert)
                                                   -> LogicalResult {
          if (!convert->getOperand(0).getType().isInteger(1))
            return convert->emitOpError(
                "extends an unsigned integer; the vector unit's integers "
                "are signed (only booleans extend as unsigned)");
          return unary(VectorUnaryKind::cast);
        })
        .Case([&](arith::SelectOp) {
          VectorSelectOp::create(rewriter, loc, in[0], in[1], in[2], out);
          return success();
        })
        .Case([&](arith::CmpFOp cmp) { return emitCompare(cmp, in, out); })
        .Case([&](arith::CmpIOp cmp) { return emitIntegerCompare(cmp, in, out); })
        .Default([&](Operation *other) {
          return other->emitOpError("has no vector-unit lowering");
        });
  }

  /// A conversion to an integer truncates toward zero (`x.long()`); the
  /// cast rounds to nearest even, which is exact on an integral value: a
  /// value already rounded is cast as it is, any other is |x| floored with
  /// x's sign restored first.
  LogicalResult emitTruncation(arith::FPToSIOp convert, Value in, Value out,
                               function_ref<Value(Type)> temporary) {
    Location loc = convert.getLoc();
    if (!isIntegral(convert.getIn())) {
      Type floatType = convert.getIn().getType();
      Value magnitude = temporary(floatType), negated = temporary(floatType),
            zero = temporary(floatType), negative = temporary(floatType);
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::abs, in, magnitude);
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::floor, magnitude,
                            magnitude);
      VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::neg, magnitude,
                            negated);
      VectorFillOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f), zero);
      VectorCompareOp::create(rewriter, loc, ComparePredicate::lt, in, zero,
                              negative);
      VectorSelectOp::create(rewriter, loc, negative, negated, magnitude,
                             magnitude);
      in = magnitude;
    }
    VectorUnaryOp::create(rewriter, loc, VectorUnaryKind::cast, in, out);
    return success();
  }

  /// A remainder, with the dividend's sign as remsi's: x - (x / y) * y with
  /// the truncating division.
  LogicalResult emitRemainder(arith::RemSIOp remainder, Value x, Value y,
                              Value out, function_ref<Value(Type)> temporary) {
    Location loc = remainder.getLoc();
    Value quotient = temporary(remainder.getType());
    VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::div, x, y, quotient);
    VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::mul, quotient, y,
                           quotient);
    VectorBinaryOp::create(rewriter, loc, VectorBinaryKind::sub, x, quotient,
                           out);
    return success();
  }

  /// Signed predicates map onto the ISA's integer comparisons.
  LogicalResult emitIntegerCompare(arith::CmpIOp cmp, ArrayRef<Value> in,
                                   Value out) {
    using P = arith::CmpIPredicate;
    std::optional<ComparePredicate> predicate;
    switch (cmp.getPredicate()) {
    case P::slt: predicate = ComparePredicate::lt; break;
    case P::sle: predicate = ComparePredicate::le; break;
    case P::sgt: predicate = ComparePredicate::gt; break;
    case P::sge: predicate = ComparePredicate::ge; break;
    case P::eq: predicate = ComparePredicate::eq; break;
    case P::ne: predicate = ComparePredicate::ne; break;
    default:
      return cmp.emitOpError("compares as unsigned integers; the vector "
                             "unit compares signed ones");
    }
    VectorCompareOp::create(rewriter, cmp.getLoc(), *predicate, in[0], in[1],
                            out);
    return success();
  }

  /// Ordered predicates map onto the ISA's (false on NaN). An unordered one
  /// is the negation of the opposite ordered one: ugt(a, b) = !ole(a, b),
  /// computed as 1 - ole(a, b).
  LogicalResult emitCompare(arith::CmpFOp cmp, ArrayRef<Value> in, Value out) {
    using P = arith::CmpFPredicate;
    std::optional<ComparePredicate> ordered, negated;
    switch (cmp.getPredicate()) {
    case P::OLT: ordered = ComparePredicate::lt; break;
    case P::OLE: ordered = ComparePredicate::le; break;
    case P::OGT: ordered = ComparePredicate::gt; break;
    case P::OGE: ordered = ComparePredicate::ge; break;
    case P::OEQ: ordered = ComparePredicate::eq; break;
    case P::UNE: ordered = ComparePredicate::ne; break;
    case P::UGT: negated = ComparePredicate::le; break;
    case P::UGE: negated = ComparePredicate::lt; break;
    case P::ULT: negated = ComparePredicate::ge; break;
    case P::ULE: negated = ComparePredicate::gt; break;
    default:
      return cmp.emitOpError("has a predicate the vector unit lacks");
    }
    Location loc = cmp.getLoc();
    VectorCompareOp::create(rewriter, loc, ordered ? *ordered : *negated, in[0],
                            in[1], out);
    if (negated)
      VectorBinaryImmOp::create(rewriter, loc, VectorBinaryKind::sub, out,
                                llvm::APFloat(1.0f), out, /*imm_lhs=*/true);
    return success();
  }
};

/// Linalg ops read through casts that erase static sizes (tiling a part of
/// variable size leaves them); instructions need the sizes, which every
/// unrolled step knows. A linalg op on memrefs accepts the cast's source.
void foldCastsIntoLinalg(CoreOp core) {
  core.walk([](memref::CastOp cast) {
    if (!cast.getSource().getType().hasStaticShape())
      return;
    cast.getResult().replaceUsesWithIf(
        cast.getSource(), [](OpOperand &use) {
          return isa<linalg::LinalgOp>(use.getOwner());
        });
  });
}

/// The core's tessel.pad_views and their views, which its loads no longer
/// read (each now reads the pad's source); one still read is an error.
LogicalResult erasePadViews(CoreOp core) {
  SmallVector<PadViewOp> pads;
  core.walk([&](PadViewOp pad) { pads.push_back(pad); });
  for (PadViewOp pad : pads) {
    SmallVector<Operation *> views;
    std::function<void(Operation *)> collect = [&](Operation *op) {
      for (Operation *user : op->getUsers())
        collect(user);
      views.push_back(op);
    };
    collect(pad);
    for (Operation *op : views)
      if (!isa<PadViewOp, memref::SubViewOp>(op))
        return op->emitOpError()
               << "reads a tessel.pad_view, which holds no data: only loads "
                  "of its windows into SRAM can read it";
    for (Operation *op : views)
      op->erase();
  }
  return success();
}

struct LowerToInstructions
    : impl::TesselLowerToInstructionsBase<LowerToInstructions> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      TileOp tile = core.getTileOp();
      Lowering lowering{rewriter, arch,
                        arch.getSplitChannels(tile.getRow(), tile.getCol()) > 1};
      foldCastsIntoLinalg(core);
      // The core's own ops only: lowering an op erases its body.
      SmallVector<Operation *> ops = llvm::map_to_vector(
          core.getBody().front(), [](Operation &op) { return &op; });
      for (Operation *op : ops) {
        LogicalResult lowered =
            llvm::TypeSwitch<Operation *, LogicalResult>(op)
                .Case([&](memref::CopyOp o) { return lowering.lowerCopy(o); })
                .Case([&](linalg::FillOp o) { return lowering.lowerFill(o); })
                .Case([&](linalg::MatmulOp o) {
                  return lowering.lowerMatmul(o);
                })
                .Case([&](linalg::TransposeOp o) {
                  return lowering.lowerTranspose(o);
                })
                .Case([&](linalg::CopyOp o) {
                  rewriter.setInsertionPoint(o);
                  VectorUnaryOp::create(rewriter, o.getLoc(),
                                        VectorUnaryKind::copy,
                                        o.getInputs()[0], o.getOutputs()[0]);
                  rewriter.eraseOp(o);
                  return success();
                })
                .Case([&](linalg::GenericOp o) {
                  return lowering.lowerElementwise(o);
                })
                .Case([&](linalg::ReduceOp o) {
                  return lowering.lowerReduction(o);
                })
                .Case([&](linalg::BroadcastOp o) {
                  return lowering.lowerBroadcast(o);
                })
                .Case([&](linalg::BatchMatmulOp o) {
                  return lowering.lowerBatchMatmul(o);
                })
                .Case([&](linalg::Conv2DNchwFchwOp o) {
                  return lowering.lowerConv(o);
                })
                .Case([&](linalg::DepthwiseConv2DNchwChwOp o) {
                  ArrayRef<int64_t> w =
                      cast<MemRefType>(o.getInputs()[1].getType()).getShape();
                  return lowering.lowerWindowed(
                      o, o.getInputs()[0], o.getInputs()[1],
                      o.getOutputs()[0], {w[1], w[2]}, o.getStrides(),
                      o.getDilations(), VectorBinaryKind::add);
                })
                .Case([&](linalg::PoolingNchwMaxOp o) {
                  ArrayRef<int64_t> k =
                      cast<MemRefType>(o.getInputs()[1].getType()).getShape();
                  return lowering.lowerWindowed(
                      o, o.getInputs()[0], Value(), o.getOutputs()[0],
                      {k[0], k[1]}, o.getStrides(), o.getDilations(),
                      VectorBinaryKind::max);
                })
                .Case([&](linalg::PoolingNchwSumOp o) {
                  ArrayRef<int64_t> k =
                      cast<MemRefType>(o.getInputs()[1].getType()).getShape();
                  return lowering.lowerWindowed(
                      o, o.getInputs()[0], Value(), o.getOutputs()[0],
                      {k[0], k[1]}, o.getStrides(), o.getDilations(),
                      VectorBinaryKind::add);
                })
                .Case([&](linalg::LinalgOp o) {
                  return o.emitOpError("has no lowering to tessel "
                                       "instructions yet");
                })
                .Default([](Operation *) { return success(); });
        if (failed(lowered))
          return WalkResult::interrupt();
      }
      if (failed(erasePadViews(core)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
