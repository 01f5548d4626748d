//===- TesselAttrs.h - Attributes of the tessel dialect ---------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "tessel/Dialect/Tessel/IR/TesselEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h.inc"

namespace mlir::tessel {

/// The architecture an op is compiled for: the `arch` of its enclosing
/// tessel.device, else the `tessel.arch` attribute of the nearest enclosing
/// module. Null if there is none.
ArchAttr lookupArch(Operation *op);

/// lookupArch, emitting an error on `op` that says how to attach one if
/// there is none.
ArchAttr lookupArchOrError(Operation *op);

/// The memory space of a memref in a tessel memory space, if it has one.
std::optional<MemorySpace> getMemorySpace(MemRefType type);

/// Bytes a statically shaped memref occupies (sub-byte elements rounded up).
int64_t getSizeInBytes(MemRefType type);

/// A leaf field of #tessel.arch (python/tessel/arch/schema.py, from which
/// the C++ schema is generated).
struct ArchFieldInfo {
  enum class Kind { Int, String, Enum, IntMap, EnumList, Coords };
  /// The dotted path, as in YAML: `tile.sram.bytes`.
  llvm::StringRef path;
  Kind kind;
  /// Enum values, map keys or list items, in the schema's order.
  llvm::SmallVector<llvm::StringRef> choices;
};

/// Every leaf field of #tessel.arch, in the schema's order.
llvm::SmallVector<ArchFieldInfo> getArchFields();

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_H
