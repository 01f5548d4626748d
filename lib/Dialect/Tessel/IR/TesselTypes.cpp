//===- TesselTypes.cpp - Types of the tessel dialect ----------------------===//

#include "tessel/Dialect/Tessel/IR/TesselTypes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOpsTypes.cpp.inc"

void TesselDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessel/Dialect/Tessel/IR/TesselOpsTypes.cpp.inc"
      >();
}
