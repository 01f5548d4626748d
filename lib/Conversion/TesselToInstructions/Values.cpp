//===- Values.cpp - Operands of the instruction patterns -----------------===//
//
// What the patterns read from an op's operands and bodies: SRAM views,
// immediates, and indices as affine functions of the loops.
//
//===----------------------------------------------------------------------===//

#include "InstructionLowering.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"
#include <cmath>

namespace mlir::tessel::instructions {
static Attribute sramSpace(MLIRContext *ctx) {
  return MemorySpaceAttr::get(ctx, MemorySpace::sram);
}

Value allocateTemporary(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elementType) {
  auto type = MemRefType::get(shape, elementType,
                              MemRefLayoutAttrInterface(),
                              sramSpace(b.getContext()));
  return memref::AllocOp::create(b, loc, type);
}

Value stridedView(OpBuilder &b, Location loc, Value buffer, int64_t offset,
                  ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto type = cast<MemRefType>(buffer.getType());
  auto layout = StridedLayoutAttr::get(b.getContext(), offset, strides);
  auto viewType = MemRefType::get(sizes, type.getElementType(), layout,
                                  type.getMemorySpace());
  // The type says it all (its offset and strides count from the buffer's
  // first element, as every view of an instruction's operand does).
  return StridedViewOp::create(b, loc, viewType, buffer);
}

FailureOr<Value> getLoopView(OpBuilder &b, Location loc, Value buffer,
                             AffineMap map, ArrayRef<int64_t> loopSizes) {
  auto type = cast<MemRefType>(buffer.getType());
  if (map.isIdentity())
    return buffer;
  auto [strides, offset] = getStridesAndOffset(type);
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

bool isIntegral(Value value) {
  return isa_and_nonnull<math::RoundEvenOp, math::RoundOp, math::FloorOp,
                         math::CeilOp, math::TruncOp, arith::SIToFPOp>(
      value.getDefiningOp());
}

void explainInexactInteger(InFlightDiagnostic &diag, Value value) {
  if (std::optional<int64_t> integer = getConstantIntValue(value))
    if (isa<IntegerType>(value.getType()))
      diag << ": the integer constant " << *integer
           << " is not the conversion of an f32, and the vector unit's "
              "fills and immediates are f32 values";
}


/// Whether `value` is `x < 0` (`cmpi slt, x, 0`), or `x != 0 && x < 0`.
static bool isNegativeTest(Value value, Value x) {
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
static std::optional<LoopLinear> evaluateAffine(AffineExpr expr,
                                                ArrayRef<LoopLinear> operands,
                                                unsigned numDims,
                                                unsigned loops) {
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

} // namespace mlir::tessel::instructions
