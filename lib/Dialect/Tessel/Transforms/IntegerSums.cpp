//===- IntegerSums.cpp - Integers of quantized arithmetic -----------------===//
//
// An int8 product computed without its operands' zero points
// (tessel-decompose-quantized-matmuls, tessel-fold-operand-extensions)
// subtracts each zero point times the sums of the other operand over the
// reduction: `sum_k (a - za) b = sum_k a b - za sum_k b`.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/IntegerSums.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

namespace mlir::tessel {

std::optional<int64_t> getSmallIntegralConstant(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  if (!attr || !attr.getType().isF32())
    return std::nullopt;
  double number = attr.getValueAsDouble();
  if (std::trunc(number) != number || std::abs(number) >= 0x1p30)
    return std::nullopt;
  return static_cast<int64_t>(number);
}

Value buildI32Zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value empty = tensor::EmptyOp::create(b, loc, shape, i32);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

Value buildSumsOverK(OpBuilder &b, Location loc, Value operand, bool columns) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(operand.getType());
  unsigned rank = type.getRank(); // loops: batch..., x, k
  SmallVector<AffineExpr> read, kept;
  SmallVector<int64_t> shape;
  for (unsigned loop = 0; loop + 1 < rank; ++loop) {
    kept.push_back(getAffineDimExpr(loop, ctx));
    shape.push_back(type.getDimSize(columns && loop == rank - 2 ? rank - 1 : loop));
  }
  read.append(kept.begin(), kept.end() - 1);
  AffineExpr x = getAffineDimExpr(rank - 2, ctx), k = getAffineDimExpr(rank - 1, ctx);
  read.push_back(columns ? k : x);
  read.push_back(columns ? x : k);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, TypeRange{RankedTensorType::get(shape, b.getI32Type())},
             ValueRange{operand}, ValueRange{buildI32Zeros(b, loc, shape)},
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, read, ctx),
                                 AffineMap::get(rank, 0, kept, ctx)},
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value wide =
                   arith::ExtSIOp::create(nb, nloc, nb.getI32Type(), args[0]);
               linalg::YieldOp::create(
                   nb, nloc,
                   ValueRange{arith::AddIOp::create(nb, nloc, args[1], wide)});
             })
      .getResult(0);
}

} // namespace mlir::tessel
