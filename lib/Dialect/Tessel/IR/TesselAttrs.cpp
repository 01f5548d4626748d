//===- TesselAttrs.cpp - Attributes of the tessel dialect -----------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

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

/// Wider than any chip Tessel targets, yet small enough that rows * cols and
/// per-tile tables stay cheap.
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
