//===- Weights.h - Which values are slices of the model's weights -*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"

namespace mlir::tessel {

/// Whether argument `index` of `func` is marked `tessel.kind = "weight"`.
bool isWeightArgument(func::FuncOp func, unsigned index);

/// The function argument marked `tessel.kind = "weight"` that `value` is a
/// slice or reshape of (tensor or memref), or null if it is none.
BlockArgument getWeightArgument(Value value);

/// Whether `operand` of `op`, whose mapping keeps weights in SRAM when
/// `resident`, reads a weight that stays there: tessel-tile-for-sram
/// reserves SRAM for exactly the operands tessel-promote-to-sram keeps.
bool isResidentWeight(linalg::LinalgOp op, OpOperand &operand, bool resident);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H
