//===- SiteInitialize.cpp - Registrations for every Python Context --------===//
//
// The upstream `_mlir_libs` package imports `_site_initialize_<i>` modules when
// it is first loaded: `register_dialects` fills the registry every new Context
// starts from, and importing the module registers the passes, so Python sees
// exactly the dialects and passes tessel-opt has.
//
//===----------------------------------------------------------------------===//

#include "tessel-c/Dialects.h"

#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers Tessel's dialects and passes in every Context";
  m.def("register_dialects", [](MlirDialectRegistry registry) {
    tesselRegisterAllDialects(registry);
  });
  tesselRegisterAllPasses();
}
