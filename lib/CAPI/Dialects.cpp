//===- Dialects.cpp - C API of the tessel dialect -------------------------===//

#include "tessel-c/Dialects.h"

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"
#include "tessel/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::tessel;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tessel, tessel, TesselDialect)

void tesselRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::tessel::registerAllDialects(*unwrap(registry));
}

void tesselRegisterAllPasses(void) { mlir::tessel::registerAllPasses(); }

bool tesselAttributeIsAGrid(MlirAttribute attr) {
  return isa<GridAttr>(unwrap(attr));
}

MlirAttribute tesselGridAttrGetChecked(MlirLocation loc, unsigned rows,
                                       unsigned cols) {
  Location location = unwrap(loc);
  return wrap(GridAttr::getChecked(
      [&] { return emitError(location); }, location.getContext(), rows,
      cols));
}

unsigned tesselGridAttrGetRows(MlirAttribute attr) {
  return cast<GridAttr>(unwrap(attr)).getRows();
}

unsigned tesselGridAttrGetCols(MlirAttribute attr) {
  return cast<GridAttr>(unwrap(attr)).getCols();
}

MlirTypeID tesselGridAttrGetTypeID(void) {
  return wrap(TypeID::get<GridAttr>());
}

bool tesselTypeIsATile(MlirType type) { return isa<TileType>(unwrap(type)); }

MlirType tesselTileTypeGet(MlirContext ctx) {
  return wrap(TileType::get(unwrap(ctx)));
}

MlirTypeID tesselTileTypeGetTypeID(void) {
  return wrap(TypeID::get<TileType>());
}
