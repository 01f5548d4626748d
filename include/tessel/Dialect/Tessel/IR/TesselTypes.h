//===- TesselTypes.h - Types of the tessel dialect --------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOpsTypes.h.inc"

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_H
