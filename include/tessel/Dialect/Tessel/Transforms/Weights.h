//===- Weights.h - Which values are slices of the model's weights -*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

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

/// What `op` reads: its operands and the values its regions use from above
/// (a linalg body's constants).
SmallVector<Value> getReads(Operation *op);

/// Whether `value` is computed from its function's weights and constants
/// alone, by ops the driver's compile-time evaluator runs (MLIR's CPU JIT
/// of linalg, tensor, arith and math on tensors, free of memory effects):
/// what tessel-outline-weight-computations moves to compile time, and
/// tessel-fold-affine-chains folds only chains of such values. `known`
/// keeps what was found, for one function.
bool isFromWeightsAlone(Value value, llvm::DenseMap<Value, bool> &known);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_WEIGHTS_H
