//===- TesselOps.td - Python bindings of the tessel dialect ----*- tablegen -*-===//
//
// Input to the Python op-wrapper generator; its path decides where the
// generated `_tessel_ops_gen.py` lands.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PYTHON_TESSELOPS_TD
#define TESSEL_PYTHON_TESSELOPS_TD

include "tessel/Dialect/Tessel/IR/TesselOps.td"

#endif // TESSEL_PYTHON_TESSELOPS_TD
