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

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

LogicalResult MappingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t row, int64_t col, int64_t rows,
                                  int64_t cols, ArrayRef<int64_t> parts,
                                  int64_t stage) {
  if (row < 0 || col < 0)
    return emitError() << "mapping origin (" << row << ", " << col
                       << ") must not be negative";
  if (rows < 1 || cols < 1)
    return emitError() << "mapping rectangle " << rows << "x" << cols
                       << " must have at least one tile";
  if (stage < 0)
    return emitError() << "mapping stage must not be negative, got " << stage;
  int64_t product = 1;
  for (int64_t p : parts) {
    if (p < 1)
      return emitError() << "mapping parts must be >= 1, got " << p;
    product *= p;
  }
  if (product != rows * cols)
    return emitError() << "mapping splits into " << product
                       << " parts but its " << rows << "x" << cols
                       << " rectangle has " << rows * cols << " tiles";
  return success();
}
