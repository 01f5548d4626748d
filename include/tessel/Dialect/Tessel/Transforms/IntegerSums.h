//===- IntegerSums.h - Integers of quantized arithmetic ----------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_INTEGERSUMS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_INTEGERSUMS_H

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::tessel {

/// The integral value of the f32 constant `value` below 2^30 in magnitude
/// (a quantization's zero point or bound, held as a float), or none.
std::optional<int64_t> getSmallIntegralConstant(Value value);

/// A zero-filled i32 tensor of `shape`.
Value buildI32Zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape);

/// The sums of `operand` (i8, [batch..., X, K] or, `columns`,
/// [batch..., K, X]) over K, as i32 [batch..., X]: a reduction on the
/// vector unit, the terms a zero point multiplies when an int8 product is
/// computed without it.
Value buildSumsOverK(OpBuilder &b, Location loc, Value operand, bool columns);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_INTEGERSUMS_H
