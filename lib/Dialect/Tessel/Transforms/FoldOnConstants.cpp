//===- FoldOnConstants.cpp - Evaluate a body op on constants --------------===//
//
// tessel-fold-constant-tensors evaluates whole ops and
// tessel-precompute-indices the indices of lookups, each element by element
// with the body ops' own folders: the arithmetic the canonicalizer would
// apply to scalars, with no second interpreter of arith semantics.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/FoldOnConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel {

LogicalResult foldOnConstants(Operation *op,
                              llvm::DenseMap<Value, Attribute> &values) {
  if (auto truncate = dyn_cast<arith::TruncFOp>(op)) {
    auto value = dyn_cast_or_null<FloatAttr>(values.lookup(truncate.getIn()));
    if (!value)
      return failure();
    auto type = cast<FloatType>(truncate.getType());
    APFloat rounded = value.getValue();
    bool losesInfo;
    rounded.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    values[truncate.getResult()] = FloatAttr::get(type, rounded);
    return success();
  }
  // A float outside the integer range (T5's log(0) = -inf in the relative
  // position buckets, masked by a select afterwards) folds to the most
  // negative integer, as x86 converts it (PyTorch's value there); arith's
  // folder leaves it poison.
  if (auto convert = dyn_cast<arith::FPToSIOp>(op)) {
    auto value = dyn_cast_or_null<FloatAttr>(values.lookup(convert.getIn()));
    auto type = dyn_cast<IntegerType>(convert.getType());
    if (!value || !type)
      return failure();
    APSInt integer(type.getWidth(), /*isUnsigned=*/false);
    bool exact;
    if (value.getValue().convertToInteger(integer, APFloat::rmTowardZero,
                                          &exact) == APFloat::opInvalidOp)
      integer = APSInt::getMinValue(type.getWidth(), /*Unsigned=*/false);
    values[convert.getResult()] = IntegerAttr::get(type, integer);
    return success();
  }
  SmallVector<Attribute> operands;
  for (Value operand : op->getOperands())
    operands.push_back(values.lookup(operand));
  SmallVector<OpFoldResult> folds;
  if (failed(op->fold(operands, folds)) || folds.size() != op->getNumResults())
    return failure();
  for (auto [result, fold] : llvm::zip(op->getResults(), folds)) {
    Attribute attr = isa<Attribute>(fold) ? cast<Attribute>(fold)
                                          : values.lookup(cast<Value>(fold));
    if (!attr)
      return failure();
    values[result] = attr;
  }
  return success();
}

} // namespace mlir::tessel
