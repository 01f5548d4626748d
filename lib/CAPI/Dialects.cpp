//===- Dialects.cpp - C API of the tessel dialect -------------------------===//

#include "tessel-c/Dialects.h"

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"
#include "tessel/InitAll.h"
#include "tessel/Target/Program/InstructionStreams.h"
#include "tessel/Target/Program/ProgramWriter.h"

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

bool tesselAttributeIsAArch(MlirAttribute attr) {
  return isa<ArchAttr>(unwrap(attr));
}

MlirAttribute tesselArchAttrGetChecked(MlirLocation loc,
                                       MlirAttribute description) {
  Location location = unwrap(loc);
  auto dict = dyn_cast<DictionaryAttr>(unwrap(description));
  if (!dict) {
    emitError(location) << "an architecture description must be a "
                           "dictionary attribute";
    return wrap(Attribute());
  }
  return wrap(ArchAttr::getChecked([&] { return emitError(location); },
                                   location.getContext(), dict));
}

MlirAttribute tesselArchAttrGetDescription(MlirAttribute attr) {
  return wrap(cast<ArchAttr>(unwrap(attr)).getDescription());
}

MlirTypeID tesselArchAttrGetTypeID(void) {
  return wrap(TypeID::get<ArchAttr>());
}

bool tesselTypeIsATile(MlirType type) { return isa<TileType>(unwrap(type)); }

MlirType tesselTileTypeGet(MlirContext ctx) {
  return wrap(TileType::get(unwrap(ctx)));
}

MlirTypeID tesselTileTypeGetTypeID(void) {
  return wrap(TypeID::get<TileType>());
}

bool tesselTypeIsAToken(MlirType type) { return isa<TokenType>(unwrap(type)); }

MlirType tesselTokenTypeGet(MlirContext ctx) {
  return wrap(TokenType::get(unwrap(ctx)));
}

MlirTypeID tesselTokenTypeGetTypeID(void) {
  return wrap(TypeID::get<TokenType>());
}

bool tesselTypeIsASemaphore(MlirType type) {
  return isa<SemaphoreType>(unwrap(type));
}

MlirType tesselSemaphoreTypeGet(MlirContext ctx) {
  return wrap(SemaphoreType::get(unwrap(ctx)));
}

MlirTypeID tesselSemaphoreTypeGetTypeID(void) {
  return wrap(TypeID::get<SemaphoreType>());
}

bool tesselBuildProgram(MlirOperation device, intptr_t numWeights,
                        const MlirStringRef *weightNames,
                        const MlirStringRef *weightData, bool digests,
                        MlirProgramFileCallback onFile,
                        MlirStringCallback onError, void *userData) {
  auto report = [&](llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    onError(wrap(llvm::StringRef(message)), userData);
    return false;
  };
  auto deviceOp = dyn_cast<DeviceOp>(unwrap(device));
  if (!deviceOp)
    return report(llvm::createStringError("expected a tessel.device"));
  WeightData weights;
  for (intptr_t i = 0; i < numWeights; ++i)
    weights[unwrap(weightNames[i])] =
        llvm::ArrayRef<char>(weightData[i].data, weightData[i].length);
  llvm::Expected<ProgramFiles> program =
      buildProgram(deviceOp, weights, digests);
  if (!program)
    return report(program.takeError());
  for (const auto &[path, data] : program->files)
    onFile(wrap(llvm::StringRef(path)), wrap(llvm::StringRef(data)), userData);
  return true;
}

bool tesselDescribeLocation(MlirLocation loc, MlirStringCallback onName,
                            MlirStringCallback onPosition, void *userData) {
  std::optional<SourceTag> described = describeLocation(unwrap(loc));
  if (!described)
    return false;
  onName(wrap(llvm::StringRef(described->name)), userData);
  onPosition(wrap(llvm::StringRef(described->loc)), userData);
  return true;
}
