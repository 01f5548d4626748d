//===- TesselModule.cpp - Python bindings of the tessel dialect -----------===//
//
// Attribute and type classes of the tessel dialect for Python, built on the C
// API in tessel-c/Dialects.h. Op builders are generated from ODS.
//
//===----------------------------------------------------------------------===//

#include "tessel-c/Dialects.h"

#include "mlir/Bindings/Python/Diagnostics.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace nb = nanobind;
using namespace mlir::python::nanobind_adaptors;

namespace {

/// Calls `build`, which returns a null attribute after emitting a verifier
/// diagnostic on failure, and turns that diagnostic into a ValueError: the
/// message names the offending field, so it belongs in the exception, not on
/// stderr.
template <typename Fn>
MlirAttribute getCheckedOrThrow(MlirLocation loc, Fn build) {
  mlir::python::CollectDiagnosticsToStringScope scope(
      mlirLocationGetContext(loc));
  MlirAttribute attr = build();
  if (!mlirAttributeIsNull(attr))
    return attr;
  std::string message = scope.takeMessage();
  constexpr llvm::StringLiteral unknownLoc = "at loc(unknown): ";
  if (llvm::StringRef(message).starts_with(unknownLoc))
    message.erase(0, unknownLoc.size());
  throw nb::value_error(message.c_str());
}

/// A parameterless type: `Class.get(context=None)`.
void bindSimpleType(nb::module_ &m, const char *name,
                    bool (*isA)(MlirType), MlirTypeID (*typeID)(),
                    MlirType (*get)(MlirContext), const char *doc) {
  mlir_type_subclass(m, name, isA, typeID)
      .def_classmethod(
          "get",
          [get](const nb::object &cls, MlirContext context) {
            return cls(get(context));
          },
          nb::arg("cls"), nb::arg("context").none() = nb::none(), doc);
}

/// Appends the bytes of a string callback to a std::string.
void appendString(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

/// The files of the program of a lowered tessel.device, by path, or a
/// ValueError naming what is missing or wrong.
nb::dict buildProgram(MlirOperation device, const nb::dict &weights,
                      bool digests) {
  std::vector<MlirStringRef> names, data;
  std::vector<std::string> keys;
  keys.reserve(weights.size());
  for (auto [key, value] : weights) {
    keys.push_back(nb::cast<std::string>(key));
    auto bytes = nb::cast<nb::bytes>(value);
    data.push_back({static_cast<const char *>(bytes.data()), bytes.size()});
  }
  for (const std::string &key : keys)
    names.push_back({key.data(), key.size()});
  struct Built {
    nb::dict files;
    std::string error;
  } built;
  auto onFile = [](MlirStringRef path, MlirStringRef bytes, void *userData) {
    static_cast<Built *>(userData)->files[nb::str(path.data, path.length)] =
        nb::bytes(bytes.data, bytes.length);
  };
  auto onError = [](MlirStringRef text, void *userData) {
    appendString(text, &static_cast<Built *>(userData)->error);
  };
  if (!tesselBuildProgram(device, names.size(), names.data(), data.data(),
                          digests, onFile, onError, &built))
    throw nb::value_error(built.error.c_str());
  return built.files;
}

/// A verification running beside the caller (tesselVerificationStart),
/// which keeps the IR it verifies alive (`keepAlive`, the module: an op
/// reached inside it does not keep it) until `finish`.
class BackgroundVerification {
public:
  BackgroundVerification(MlirOperation op, nb::object keepAlive)
      : verification(tesselVerificationStart(op)),
        keepAlive(std::move(keepAlive)) {}
  BackgroundVerification(const BackgroundVerification &) = delete;
  BackgroundVerification &operator=(const BackgroundVerification &) = delete;
  ~BackgroundVerification() { (void)finish(); }

  /// None if the operation verified, else its diagnostics, a line each.
  std::optional<std::string> finish() {
    // Taken before the GIL is let go: a second caller finds it taken.
    TesselVerification running = verification;
    verification.ptr = nullptr;
    if (running.ptr) {
      std::string diagnostics;
      bool verified;
      {
        nb::gil_scoped_release release;
        verified = tesselVerificationFinish(
            running,
            [](MlirStringRef text, void *userData) {
              auto *out = static_cast<std::string *>(userData);
              if (!out->empty())
                out->push_back('\n');
              out->append(text.data, text.length);
            },
            &diagnostics);
      }
      keepAlive = nb::none();
      if (!verified)
        result = std::move(diagnostics);
    }
    return result;
  }

private:
  TesselVerification verification;
  nb::object keepAlive;
  std::optional<std::string> result;
};

} // namespace

NB_MODULE(_tesselDialects, m) {
  auto tesselM = m.def_submodule("tessel");

  tesselM.def(
      "register_dialect",
      [](MlirContext context, bool load) {
        MlirDialectHandle handle = mlirGetDialectHandle__tessel__();
        mlirDialectHandleRegisterDialect(handle, context);
        if (load)
          mlirDialectHandleLoadDialect(handle, context);
      },
      nb::arg("context").none() = nb::none(), nb::arg("load") = true,
      "Registers (and by default loads) the tessel dialect in a context.");

  tesselM.def("build_program", buildProgram, nb::arg("device"),
              nb::arg("weights"), nb::arg("digests") = false,
              "The files of the program of a lowered tessel.device "
              "(docs/isa.md), by their paths in a program directory: the "
              "manifest, the DRAM image and one stream per tile. weights "
              "maps each weight buffer's name to its bytes, in the buffer's "
              "layout and element type. Without digests the manifest has no "
              "SHA-256s. Raises ValueError naming the op, buffer or weight "
              "at fault.");

  nb::class_<BackgroundVerification>(
      tesselM, "Verification",
      "A verification running on a thread of its own (start_verifying).")
      .def("finish", &BackgroundVerification::finish,
           "Waits for it: None if the operation verified, else its "
           "diagnostics, a line each.");
  tesselM.def(
      "start_verifying",
      [](nb::object op, nb::object keepAlive) {
        return new BackgroundVerification(nb::cast<MlirOperation>(op),
                                          keepAlive.is_none() ? op : keepAlive);
      },
      nb::arg("op"), nb::arg("keep_alive").none() = nb::none(),
      nb::rv_policy::take_ownership,
      "Starts verifying op on a thread of its own (where the context is "
      "multithreaded), for a caller that goes on reading the IR; keep_alive "
      "(default op) is held until finish(). Until then the caller must not "
      "change the IR nor call what may emit or capture diagnostics (parsing, "
      "verifying, running passes): a handler registered meanwhile would be "
      "called on the verifier's thread.");

  tesselM.def(
      "describe_location",
      [](MlirLocation loc) -> nb::object {
        std::pair<std::string, std::string> described;
        auto onName = [](MlirStringRef text, void *userData) {
          appendString(text, &static_cast<std::pair<std::string, std::string> *>(
                                  userData)->first);
        };
        auto onPosition = [](MlirStringRef text, void *userData) {
          appendString(text, &static_cast<std::pair<std::string, std::string> *>(
                                  userData)->second);
        };
        if (!tesselDescribeLocation(loc, onName, onPosition, &described))
          return nb::none();
        return nb::make_tuple(described.first, described.second);
      },
      nb::arg("loc"),
      "(name, 'file:line:col') of a location as a source tag names it, or "
      "None for an unknown one (docs/isa.md, tags).");

  mlir_attribute_subclass(tesselM, "GridAttr", tesselAttributeIsAGrid,
                          tesselGridAttrGetTypeID)
      .def_classmethod(
          "get",
          [](const nb::object &cls, unsigned rows, unsigned cols,
             MlirLocation loc) {
            return cls(getCheckedOrThrow(loc, [&] {
              return tesselGridAttrGetChecked(loc, rows, cols);
            }));
          },
          nb::arg("cls"), nb::arg("rows"), nb::arg("cols"),
          nb::arg("loc").none() = nb::none(),
          "Returns #tessel.grid<rows, cols>; raises ValueError if either "
          "side is out of range.")
      .def_property_readonly("rows", tesselGridAttrGetRows)
      .def_property_readonly("cols", tesselGridAttrGetCols);

  mlir_attribute_subclass(tesselM, "ArchAttr", tesselAttributeIsAArch,
                          tesselArchAttrGetTypeID)
      .def_classmethod(
          "get",
          [](const nb::object &cls, MlirAttribute description,
             MlirLocation loc) {
            return cls(getCheckedOrThrow(loc, [&] {
              return tesselArchAttrGetChecked(loc, description);
            }));
          },
          nb::arg("cls"), nb::arg("description"),
          nb::arg("loc").none() = nb::none(),
          "Returns #tessel.arch from its description (a DictAttr); raises "
          "ValueError naming the field that breaks the schema.")
      .def_property_readonly("description", tesselArchAttrGetDescription,
                             "The description, a DictAttr.");

  bindSimpleType(tesselM, "TileType", tesselTypeIsATile,
                 tesselTileTypeGetTypeID, tesselTileTypeGet,
                 "Returns !tessel.tile.");
  bindSimpleType(tesselM, "TokenType", tesselTypeIsAToken,
                 tesselTokenTypeGetTypeID, tesselTokenTypeGet,
                 "Returns !tessel.token.");
  bindSimpleType(tesselM, "SemaphoreType", tesselTypeIsASemaphore,
                 tesselSemaphoreTypeGetTypeID, tesselSemaphoreTypeGet,
                 "Returns !tessel.semaphore.");
}
