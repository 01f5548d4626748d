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

/// `(tiles, tags)` of a lowered tessel.device, or a ValueError naming what
/// the IR lacks.
nb::tuple encodeInstructionStreams(MlirOperation device) {
  struct Collected {
    nb::list tiles, tags;
    std::string error;
  } collected;
  auto onTile = [](unsigned row, unsigned col, MlirStringRef stream,
                   intptr_t numSemaphores, const uint32_t *semaphores,
                   unsigned tokens, void *userData) {
    nb::list inits;
    for (intptr_t i = 0; i < numSemaphores; ++i)
      inits.append(semaphores[i]);
    static_cast<Collected *>(userData)->tiles.append(nb::make_tuple(
        row, col, nb::bytes(stream.data, stream.length), nb::tuple(inits),
        tokens));
  };
  auto onTag = [](MlirStringRef name, MlirStringRef loc, void *userData) {
    static_cast<Collected *>(userData)->tags.append(
        nb::make_tuple(nb::str(name.data, name.length),
                       nb::str(loc.data, loc.length)));
  };
  auto onError = [](MlirStringRef message, void *userData) {
    appendString(message, &static_cast<Collected *>(userData)->error);
  };
  if (!tesselEncodeInstructionStreams(device, onTile, onTag, onError,
                                      &collected))
    throw nb::value_error(collected.error.c_str());
  return nb::make_tuple(collected.tiles, collected.tags);
}

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

  tesselM.def("encode_instruction_streams", encodeInstructionStreams,
              nb::arg("device"),
              "The instruction streams of a lowered tessel.device "
              "(docs/isa.md): a list of (row, col, stream bytes, semaphore "
              "initial counts, token slots) by tile, and the source tags as "
              "(name, loc) in id order. Raises ValueError naming the op and "
              "what the IR lacks.");

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
