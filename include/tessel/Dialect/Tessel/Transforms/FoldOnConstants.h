//===- FoldOnConstants.h - Evaluate a body op on constants --------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_FOLDONCONSTANTS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_FOLDONCONSTANTS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tessel {

/// Evaluates `op` with the value of each operand in `values` (constants as
/// attributes) through the op's own folder, and records each result's
/// value there. `arith.truncf` of a float rounds to nearest even: its
/// folder refuses an inexact truncation, which the f64 constants
/// torch-mlir truncates in bodies (`0.6363..` of an interpolation's scale)
/// are. `arith.fptosi` of a float outside the integer's range (an infinity,
/// NaN) gives the most negative integer, as x86 and so PyTorch on it do.
/// Fails if the op does not fold to constants.
LogicalResult foldOnConstants(Operation *op,
                              llvm::DenseMap<Value, Attribute> &values);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_FOLDONCONSTANTS_H
