//===- TesselToInstructions.h - Core bodies to tessel instructions --------===//
//
// The lowering of a core's body to the instructions of its tile: one
// pattern per op kind (lib/Conversion/TesselToInstructions), applied in the
// core's order by tessel-lower-to-instructions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CONVERSION_TESSELTOINSTRUCTIONS_TESSELTOINSTRUCTIONS_H
#define TESSEL_CONVERSION_TESSELTOINSTRUCTIONS_TESSELTOINSTRUCTIONS_H

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

namespace mlir::tessel {

/// Lowers the body of `core`: each memref.copy between DRAM and SRAM
/// becomes a DMA transfer and its wait, each linalg op on SRAM buffers the
/// MAC-array and vector instructions that compute it, in the core's order
/// and in the order the ISA's numerics are defined for. Emits an error on
/// the first op it cannot lower and fails.
LogicalResult lowerCoreToInstructions(CoreOp core);

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_TESSELTOINSTRUCTIONS_TESSELTOINSTRUCTIONS_H
