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

namespace nb = nanobind;
using namespace mlir::python::nanobind_adaptors;

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
            // Verifier messages name the offending field; surface them as
            // the Python exception instead of printing them to stderr.
            mlir::python::CollectDiagnosticsToStringScope scope(
                mlirLocationGetContext(loc));
            MlirAttribute attr = tesselGridAttrGetChecked(loc, rows, cols);
            if (mlirAttributeIsNull(attr))
              throw nb::value_error(scope.takeMessage().c_str());
            return cls(attr);
          },
          nb::arg("cls"), nb::arg("rows"), nb::arg("cols"),
          nb::arg("loc").none() = nb::none(),
          "Returns #tessel.grid<rows, cols>; raises ValueError if either "
          "side is out of range.")
      .def_property_readonly("rows", tesselGridAttrGetRows)
      .def_property_readonly("cols", tesselGridAttrGetCols);

  mlir_type_subclass(tesselM, "TileType", tesselTypeIsATile,
                     tesselTileTypeGetTypeID)
      .def_classmethod(
          "get",
          [](const nb::object &cls, MlirContext context) {
            return cls(tesselTileTypeGet(context));
          },
          nb::arg("cls"), nb::arg("context").none() = nb::none(),
          "Returns !tessel.tile.");
}
