//===- Pipelines.h - Tessel's named pass pipelines --------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace tessel {

/// Options of `tessel-lowering-pipeline`.
struct LoweringPipelineOptions
    : public PassPipelineOptions<LoweringPipelineOptions> {
  Option<int64_t> stream{
      *this, "stream",
      llvm::cl::desc("Number of inputs the program computes one after "
                     "another, pipelined across the mapping's stages"),
      llvm::cl::init(1)};
  Option<bool> legalize{
      *this, "legalize",
      llvm::cl::desc("Start with tessel-legalize-pipeline (off for a module "
                     "the driver's legalize stage left as it is)"),
      llvm::cl::init(true)};
};

/// Adds the passes that bring imported linalg-on-tensors into the form the
/// mapper and partitioning read: the start of the lowering pipeline.
void buildLegalizePipeline(OpPassManager &pm);

/// Adds the lowering from legalized linalg-on-tensors (with `tessel.arch` on
/// the module) to a tessel.device whose cores are instruction streams.
void buildLoweringPipeline(OpPassManager &pm,
                           const LoweringPipelineOptions &options = {});

/// Registers `tessel-legalize-pipeline` and `tessel-lowering-pipeline`, so tessel-opt and Python run the
/// same stages by name.
void registerPipelines();

} // namespace tessel
} // namespace mlir

#endif // TESSEL_DIALECT_TESSEL_PIPELINES_PIPELINES_H
