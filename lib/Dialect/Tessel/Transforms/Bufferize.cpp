//===- Bufferize.cpp - Tensors to DRAM memrefs ----------------------------===//
//
// Whole-program One-Shot Bufferize, with DRAM as the memory space of every
// buffer it creates: on this accelerator, what is not in a tile's SRAM is in
// DRAM, and SRAM buffers are introduced per step by tessel-promote-to-sram.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELBUFFERIZE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct Bufferize : impl::TesselBufferizeBase<Bufferize> {
  void runOnOperation() override {
    Attribute dram = MemorySpaceAttr::get(&getContext(), MemorySpace::dram);
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.defaultMemorySpaceFn =
        [dram](TensorType) -> std::optional<Attribute> { return dram; };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(getOperation(),
                                                         options, state)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
