//===- TesselOps.cpp - Operations of the tessel dialect -------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace mlir::tessel;

//===----------------------------------------------------------------------===//
// DeviceOp
//===----------------------------------------------------------------------===//

void DeviceOp::build(OpBuilder &builder, OperationState &state,
                     StringRef symName, GridAttr grid) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(symName));
  state.addAttribute(getGridAttrName(state.name), grid);
  state.addRegion()->emplaceBlock();
}

LogicalResult DeviceOp::verifyRegions() {
  // A coordinate names one physical tile; two handles to it would let later
  // passes place conflicting buffers and programs on it without noticing.
  llvm::DenseMap<std::pair<int32_t, int32_t>, TileOp> firstDeclaration;
  for (auto tile : getBody().getOps<TileOp>()) {
    auto [it, inserted] = firstDeclaration.try_emplace(
        {tile.getRow(), tile.getCol()}, tile);
    if (inserted)
      continue;
    InFlightDiagnostic diag = tile.emitOpError()
                              << "declares tile (" << tile.getRow() << ", "
                              << tile.getCol() << ") of device @"
                              << getSymName() << " a second time";
    diag.attachNote(it->second.getLoc()) << "first declared here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

LogicalResult TileOp::verify() {
  DeviceOp device = getDevice();
  GridAttr grid = device.getGrid();
  if (grid.contains(getRow(), getCol()))
    return success();
  return emitOpError() << "coordinate (" << getRow() << ", " << getCol()
                       << ") lies outside the " << grid.getRows() << "x"
                       << grid.getCols() << " grid of device @"
                       << device.getSymName() << ": row must be in [0, "
                       << grid.getRows() - 1 << "] and col in [0, "
                       << grid.getCols() - 1 << "]";
}

void TileOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  llvm::SmallString<16> name;
  llvm::raw_svector_ostream(name) << "tile_" << getRow() << "_" << getCol();
  setNameFn(getResult(), name);
}

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
