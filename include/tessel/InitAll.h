//===- InitAll.h - Everything a Tessel context needs ------------*- C++ -*-===//
//
// One place that lists the dialects, interface models and passes Tessel uses,
// shared by tessel-opt and the Python bindings so both accept the same IR and
// the same pass pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INITALL_H
#define TESSEL_INITALL_H

namespace mlir {
class DialectRegistry;

namespace tessel {

/// Registers the tessel dialect, the upstream dialects Tessel compiles from
/// and through (func, arith, math, cf, linalg, tensor, memref, scf, affine,
/// bufferization), and the external interface models bufferization and
/// tiling need for them.
void registerAllDialects(DialectRegistry &registry);

/// Registers Tessel's passes and the upstream passes a user of those dialects
/// expects (canonicalize, cse, one-shot-bufferize, the linalg passes, ...).
void registerAllPasses();

} // namespace tessel
} // namespace mlir

#endif // TESSEL_INITALL_H
