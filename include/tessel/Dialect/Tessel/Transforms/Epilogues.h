//===- Epilogues.h - Elementwise partitions run on their producer -*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_EPILOGUES_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_EPILOGUES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tessel {

/// The partition after `forall` in its block, with nothing but ops free of
/// memory effects, or allocations, between them; null if there is none.
scf::ForallOp getNextPartition(scf::ForallOp forall);

/// The partition after `producer` if it is marked `tessel.epilogue`
/// (tessel-fuse-epilogues): it runs on each slice of `producer`'s result.
scf::ForallOp getEpilogue(scf::ForallOp producer);

/// The one linalg op of partition `forall` (loops looked into), or null.
linalg::LinalgOp getPartitionedOp(scf::ForallOp forall);

/// The elementwise op an epilogue partition runs, or null.
linalg::GenericOp getEpilogueOp(scf::ForallOp epilogue);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_EPILOGUES_H
