//===- TesselDialect.cpp - The tessel dialect -----------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselOpsDialect.cpp.inc"

void TesselDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}
