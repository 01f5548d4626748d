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
