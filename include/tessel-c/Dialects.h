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
// #tessel.arch
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool tesselAttributeIsAArch(MlirAttribute attr);
/// Builds #tessel.arch from its description (a DictionaryAttr). Returns a
/// null attribute, after emitting the verifier's diagnostic at `loc`, if the
/// description breaks the schema.
MLIR_CAPI_EXPORTED MlirAttribute
tesselArchAttrGetChecked(MlirLocation loc, MlirAttribute description);
/// The description (a DictionaryAttr) of a #tessel.arch.
MLIR_CAPI_EXPORTED MlirAttribute tesselArchAttrGetDescription(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirTypeID tesselArchAttrGetTypeID(void);

//===----------------------------------------------------------------------===//
// !tessel.tile, !tessel.token, !tessel.semaphore
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool tesselTypeIsATile(MlirType type);
MLIR_CAPI_EXPORTED MlirType tesselTileTypeGet(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirTypeID tesselTileTypeGetTypeID(void);

MLIR_CAPI_EXPORTED bool tesselTypeIsAToken(MlirType type);
MLIR_CAPI_EXPORTED MlirType tesselTokenTypeGet(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirTypeID tesselTokenTypeGetTypeID(void);

MLIR_CAPI_EXPORTED bool tesselTypeIsASemaphore(MlirType type);
MLIR_CAPI_EXPORTED MlirType tesselSemaphoreTypeGet(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirTypeID tesselSemaphoreTypeGetTypeID(void);

//===----------------------------------------------------------------------===//
// Program streams (tessel/Target/Program/InstructionStreams.h)
//===----------------------------------------------------------------------===//

/// Called with each file of a program: its path in the program directory
/// and its bytes.
typedef void (*MlirProgramFileCallback)(MlirStringRef path, MlirStringRef data,
                                        void *userData);

/// Builds the program of a lowered tessel.device (docs/isa.md) in memory
/// and hands each of its files to `onFile`: the manifest, the DRAM image
/// and one stream per tile. `weightData[i]` holds the bytes of the weight
/// buffer named `weightNames[i]`, in the buffer's layout and element type.
/// Without `digests` the manifest has no SHA-256s. On failure calls
/// `onError` with the message and returns false.
MLIR_CAPI_EXPORTED bool
tesselBuildProgram(MlirOperation device, intptr_t numWeights,
                   const MlirStringRef *weightNames,
                   const MlirStringRef *weightData, bool digests,
                   MlirProgramFileCallback onFile, MlirStringCallback onError,
                   void *userData);

//===----------------------------------------------------------------------===//
// Verification alongside other work
//===----------------------------------------------------------------------===//

/// A verification started by tesselVerificationStart.
typedef struct TesselVerification {
  void *ptr;
} TesselVerification;

/// Starts verifying `op` (as mlirOperationVerify) on a thread of its own,
/// where the context is multithreaded (on the caller's otherwise), so that
/// the caller can go on reading the IR meanwhile. Until
/// tesselVerificationFinish the caller must not change or destroy the IR
/// under `op`, nor register diagnostic handlers with the context: they
/// would be called first, on the verifier's thread, with its diagnostics.
MLIR_CAPI_EXPORTED TesselVerification tesselVerificationStart(MlirOperation op);

/// Waits for the verification to end and frees it. Returns whether the op
/// verified; where it did not, calls `onDiagnostic` with each diagnostic
/// (`<location>: <severity>: <message>`, notes on lines of their own).
MLIR_CAPI_EXPORTED bool
tesselVerificationFinish(TesselVerification verification,
                         MlirStringCallback onDiagnostic, void *userData);

/// Describes a location as a source tag does: its name and its
/// `file:line:col` (empty if it has none). Returns false for a location
/// that names no source (unknown).
MLIR_CAPI_EXPORTED bool tesselDescribeLocation(MlirLocation loc,
                                               MlirStringCallback onName,
                                               MlirStringCallback onPosition,
                                               void *userData);

#ifdef __cplusplus
}
#endif

#endif // TESSEL_C_DIALECTS_H
