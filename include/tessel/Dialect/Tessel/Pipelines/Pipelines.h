//===- Pipelines.h - Tessel's named pass pipelines --------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;

namespace tessel {

/// Adds the passes that bring imported linalg-on-tensors into the form the
/// mapper and partitioning read: the start of the lowering pipeline.
void buildLegalizePipeline(OpPassManager &pm);

/// Adds the lowering from legalized linalg-on-tensors (with `tessel.arch` on
/// the module) to a tessel.device whose cores are instruction streams.
void buildLoweringPipeline(OpPassManager &pm);

/// Registers `tessel-legalize-pipeline` and `tessel-lowering-pipeline`, so tessel-opt and Python run the
/// same stages by name.
void registerPipelines();

} // namespace tessel
} // namespace mlir

#endif // TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H
