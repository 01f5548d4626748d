//===- Pipelines.cpp - Tessel's named pass pipelines ----------------------===//

#include "tessel/Dialect/Tessel/Pipelines/Pipelines.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// The canonicalizer, keeping partitions of one part: folding a one-iteration
/// scf.forall into its parent would drop the op's placement (a one-tile
/// mapping, as on a 1x1 grid). The pattern's name is its C++ type name,
/// which GCC and Clang spell differently.
static std::unique_ptr<Pass> createCanonicalizerKeepingPartitions() {
  return createCanonicalizerPass(
      GreedyRewriteConfig(),
      {"{anonymous}::ForallOpSingleOrZeroIterationDimsFolder",
       "(anonymous namespace)::ForallOpSingleOrZeroIterationDimsFolder"});
}

void tessel::buildLegalizePipeline(OpPassManager &pm) {
  // Read torch-mlir's prefix sums as reductions; reject what is outside the
  // contract; make every convolution a 2-D NCHW
  // one and argmax reductions of floats; store weights in the layout the ops read; evaluate what depends on
  // no input before fusion mixes it into ops that do, read lookups at
  // the ops' own loop indices as operands and those at other indices that
  // depend on no input through tables of offsets; compute in the chip's
  // types and ops; make data movement mappable; multiply bf16, f16 and i8
  // operands on the MAC array, quantized matmuls' zero points outside it,
  // not extended to f32; fuse elementwise chains;
  // start matmuls from the biases added to them; compute an elementwise op
  // reading a reshaped matmul result at the matmul's shape;
  // store the booleans left between ops as floats; compute an elementwise
  // op's other inputs before the op whose result it reads, so it can run as
  // that op's epilogue; compute each reduction once (torch-mlir's layer
  // norm computes its mean twice, once through f64).
  pm.addNestedPass<func::FuncOp>(createTesselScansAsReductions());
  pm.addPass(createTesselCheckInputContract());
  pm.addNestedPass<func::FuncOp>(createTesselDecomposeConvolutions());
  pm.addNestedPass<func::FuncOp>(createTesselDecomposeArgReductions());
  pm.addNestedPass<func::FuncOp>(createTesselFoldWeightTransposes());
  pm.addNestedPass<func::FuncOp>(createTesselFoldConstantTensors());
  pm.addNestedPass<func::FuncOp>(createTesselExtractsAsOperands());
  pm.addNestedPass<func::FuncOp>(createTesselPrecomputeIndices());
  pm.addNestedPass<func::FuncOp>(createTesselNarrowF64());
  pm.addNestedPass<func::FuncOp>(createTesselSimplifyMath());
  pm.addNestedPass<func::FuncOp>(createTesselMaterializeCopies());
  pm.addNestedPass<func::FuncOp>(createTesselFoldOperandExtensions());
  pm.addNestedPass<func::FuncOp>(createTesselDecomposeQuantizedMatmuls());
  pm.addNestedPass<func::FuncOp>(createTesselFuseElementwise());
  // A quantization and its dequantization meet in one body only now.
  pm.addNestedPass<func::FuncOp>(createTesselSimplifyMath());
  pm.addNestedPass<func::FuncOp>(createTesselFoldBiasAdds());
  pm.addNestedPass<func::FuncOp>(createTesselCollapseEpilogueReshapes());
  pm.addNestedPass<func::FuncOp>(createTesselBooleansAsFloats());
  pm.addNestedPass<func::FuncOp>(createTesselHoistEpilogueOperands());
  pm.addPass(createCanonicalizerKeepingPartitions());
  pm.addNestedPass<func::FuncOp>(createTesselMergeDuplicateReductions());
  // Last, once the users of each transpose are final.
  pm.addNestedPass<func::FuncOp>(createTesselTransposesIntoMatmuls());
  pm.addNestedPass<func::FuncOp>(createTesselTransposesAsViews());
}

void tessel::buildLoweringPipeline(OpPassManager &pm,
                                   const LoweringPipelineOptions &options) {
  if (options.legalize)
    buildLegalizePipeline(pm);
  // Map and split over the grid; run elementwise consumers on their
  // producers' tiles; size each tile's steps for SRAM.
  pm.addPass(createTesselDefaultMapping());
  pm.addNestedPass<func::FuncOp>(createTesselSeparateOnChipResults());
  pm.addNestedPass<func::FuncOp>(createTesselPartition());
  pm.addNestedPass<func::FuncOp>(createTesselFuseEpilogues());
  pm.addNestedPass<func::FuncOp>(createTesselTileForSram());
  pm.addPass(createCanonicalizerKeepingPartitions());
  // Bufferize into DRAM; CSE lets canonicalization drop the copies between
  // identical views that bufferizing loop-carried slices leaves.
  pm.addPass(createTesselBufferize());
  pm.addPass(createCanonicalizerKeepingPartitions());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerKeepingPartitions());
  pm.addNestedPass<func::FuncOp>(createTesselPromoteToSram());
  pm.addPass(createCanonicalizerKeepingPartitions());
  // Per-tile programs: place the parts on tiles, lower to instructions,
  // overlap loads with compute, give every buffer its SRAM address.
  // These passes leave nothing for the canonicalizer to do (on BERT it
  // changed no byte of the program and took a third of the pass time).
  pm.addPass(createTesselConvertToDevice({options.stream}));
  pm.addPass(createTesselLowerToInstructions());
  // Tensors mapped `on_chip` stay in the SRAM of the tiles that computed
  // them; their readers fetch them there.
  pm.addPass(createTesselKeepOnChip());
  pm.addPass(createTesselSchedule());
  // Each block of a result leaves as soon as it is final.
  pm.addPass(createTesselEarlyStores());
  // An op's first step starts on the first piece of its loads.
  pm.addPass(createTesselEarlyLoads());
  // Where stores and loads share DMA channels, a store leaves in pieces
  // between the next steps' loads.
  pm.addPass(createTesselSpreadStores());
  pm.addPass(createTesselAllocateSram());
  // Tiles that load the same slice at the same step share one load.
  pm.addPass(createTesselShareLoads());
  // A tile with DRAM channels of its own uses them all for a large slice.
  pm.addPass(createTesselSplitTransfers());
  // Nothing that can deadlock is emitted.
  pm.addPass(createTesselCheckSynchronization());
  // The decisions the program format needs, in the IR: DRAM offsets,
  // semaphore ids, DMA channels and token slots.
  pm.addPass(createTesselAssignDramAddresses());
  pm.addPass(createTesselAssignSemaphoreIds());
  pm.addPass(createTesselAssignDmaChannels());
  pm.addPass(createTesselAssignDmaSlots());
}

void tessel::registerPipelines() {
  PassPipelineRegistration<>(
      "tessel-legalize-pipeline",
      "Bring linalg-on-tensors into the form the mapper and partitioning "
      "read (scans as reductions, check the input contract, decompose convolutions and arg "
      "reductions, fold weight "
      "transposes, extracts as operands, precompute indices, fold "
      "constant tensors, narrow f64, "
      "simplify math, materialize copies, fuse elementwise chains, "
      "fold bias adds, collapse epilogue reshapes, store booleans as "
      "floats, hoist epilogue operands, canonicalize, merge duplicate "
      "reductions, transposes into matmuls and as views)",
      buildLegalizePipeline);
  PassPipelineRegistration<LoweringPipelineOptions>(
      "tessel-lowering-pipeline",
      "Lower legalized linalg-on-tensors to a tessel.device of per-tile "
      "instruction streams (legalize, map, partition, tile for SRAM, "
      "bufferize, promote, place on tiles, lower, keep on chip, schedule, "
      "allocate SRAM, "
      "share loads, check synchronization)",
      buildLoweringPipeline);
}
