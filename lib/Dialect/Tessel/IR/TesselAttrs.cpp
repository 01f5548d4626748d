//===- TesselAttrs.cpp - Attributes of the tessel dialect -----------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"

void TesselDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GridAttr
//===----------------------------------------------------------------------===//

/// The limit of the architecture schema's grid.rows / grid.cols.
static constexpr unsigned kMaxGridSide = 1024;

LogicalResult GridAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned rows, unsigned cols) {
  if (rows < 1 || rows > kMaxGridSide)
    return emitError() << "grid rows must be in [1, " << kMaxGridSide
                       << "], got " << rows;
  if (cols < 1 || cols > kMaxGridSide)
    return emitError() << "grid cols must be in [1, " << kMaxGridSide
                       << "], got " << cols;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

std::optional<MemorySpace> mlir::tessel::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

int64_t mlir::tessel::getSizeInBytes(MemRefType type) {
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  return llvm::divideCeil(bits, 8);
}
