//===- TesselAttrs.h - Attributes of the tessel dialect ---------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h.inc"

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
