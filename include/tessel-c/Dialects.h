//===- Dialects.h - C API of the tessel dialect -------------------*- C -*-===//
//
// The C API the Python bindings are built on.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_C_DIALECTS_H
#define TESSEL_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tessel, tessel);

/// Registers every dialect and interface model Tessel uses (see InitAll.h).
MLIR_CAPI_EXPORTED void tesselRegisterAllDialects(MlirDialectRegistry registry);

/// Registers Tessel's passes and the upstream passes it exposes.
MLIR_CAPI_EXPORTED void tesselRegisterAllPasses(void);

//===----------------------------------------------------------------------===//
// #tessel.grid
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool tesselAttributeIsAGrid(MlirAttribute attr);
/// Returns a null attribute and emits a diagnostic if the grid is invalid.
MLIR_CAPI_EXPORTED MlirAttribute tesselGridAttrGetChecked(MlirLocation loc,
                                                          unsigned rows,
                                                          unsigned cols);
MLIR_CAPI_EXPORTED unsigned tesselGridAttrGetRows(MlirAttribute attr);
MLIR_CAPI_EXPORTED unsigned tesselGridAttrGetCols(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirTypeID tesselGridAttrGetTypeID(void);

//===----------------------------------------------------------------------===//
// !tessel.tile
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool tesselTypeIsATile(MlirType type);
MLIR_CAPI_EXPORTED MlirType tesselTileTypeGet(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirTypeID tesselTileTypeGetTypeID(void);

#ifdef __cplusplus
}
#endif

#endif // TESSEL_C_DIALECTS_H
