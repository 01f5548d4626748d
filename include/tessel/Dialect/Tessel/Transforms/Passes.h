//===- Passes.h - Passes of the tessel dialect ------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace affine {
class AffineDialect;
} // namespace affine
namespace arith {
class ArithDialect;
} // namespace arith
namespace bufferization {
class BufferizationDialect;
} // namespace bufferization
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor
} // namespace mlir

namespace mlir::tessel {
class TesselDialect;

#define GEN_PASS_DECL
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_H
