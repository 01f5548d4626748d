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
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Threading.h"

#include <thread>

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

namespace {
/// A verification under way (tesselVerificationStart).
struct Verification {
  std::thread thread;
  bool verified = true;
  std::vector<std::string> diagnostics;
};

/// The text of a diagnostic and its notes, as mlir::verify's caller sees
/// them: `<location>: <severity>: <message>`.
std::string describeDiagnostic(Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto line = [&](Diagnostic &d, llvm::StringRef severity) {
    os << d.getLocation() << ": " << severity << ": " << d;
  };
  llvm::StringRef severity =
      diagnostic.getSeverity() == DiagnosticSeverity::Error     ? "error"
      : diagnostic.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                : "remark";
  line(diagnostic, severity);
  for (Diagnostic &note : diagnostic.getNotes()) {
    os << "\n";
    line(note, "note");
  }
  return text;
}
} // namespace

TesselVerification tesselVerificationStart(MlirOperation op) {
  Operation *operation = unwrap(op);
  // The verifier's dominance checks order the ops of a block where the
  // passes left the order unknown, writing what every read of an op's
  // parent reads too: ordered here, the verifier only reads it.
  operation->walk([](Block *block) {
    if (!block->isOpOrderValid())
      block->recomputeOpOrder();
  });
  auto *verification = new Verification;
  auto verify = [operation, verification] {
    uint64_t self = llvm::get_threadid();
    // The verifier's own diagnostics only: others go on to the handlers
    // before this one.
    ScopedDiagnosticHandler capture(
        operation->getContext(), [verification, self](Diagnostic &diagnostic) {
          if (llvm::get_threadid() != self)
            return failure();
          verification->diagnostics.push_back(describeDiagnostic(diagnostic));
          return success();
        });
    verification->verified = succeeded(mlir::verify(operation));
  };
  // Types and attributes made on two threads at once (a subview's verifier
  // infers its result type) need the context's locks.
  if (operation->getContext()->isMultithreadingEnabled())
    verification->thread = std::thread(verify);
  else
    verify();
  return {verification};
}

bool tesselVerificationFinish(TesselVerification handle,
                              MlirStringCallback onDiagnostic,
                              void *userData) {
  auto *verification = static_cast<Verification *>(handle.ptr);
  if (verification->thread.joinable())
    verification->thread.join();
  bool verified = verification->verified;
  if (!verified)
    for (const std::string &text : verification->diagnostics)
      onDiagnostic(wrap(llvm::StringRef(text)), userData);
  delete verification;
  return verified;
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
