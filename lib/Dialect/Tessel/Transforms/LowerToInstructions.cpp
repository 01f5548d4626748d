//===- LowerToInstructions.cpp - Core bodies to tessel instructions -------===//
//
// Inside each core, the copies between DRAM and SRAM become DMA transfers and
// the linalg ops on SRAM buffers become the instructions the MAC array and
// vector unit execute, in the order the ISA's numerics are defined for: the
// patterns of lib/Conversion/TesselToInstructions, one per op kind.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/TesselToInstructions/TesselToInstructions.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

// The pass's dependent dialects (Passes.td).
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWERTOINSTRUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

struct LowerToInstructions
    : impl::TesselLowerToInstructionsBase<LowerToInstructions> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](CoreOp core) {
      return failed(lowerCoreToInstructions(core)) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
