//===- TesselDialect.cpp - The tessel dialect -----------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselOpsDialect.cpp.inc"

namespace {
/// Short aliases keep printed programs readable: the architecture prints once
/// at the top as `#arch = ...`, memory spaces as `#sram` / `#dram`.
struct TesselOpAsmDialectInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<ArchAttr>(attr)) {
      os << "arch";
      return AliasResult::FinalAlias;
    }
    if (auto space = dyn_cast<MemorySpaceAttr>(attr)) {
      os << stringifyMemorySpace(space.getValue());
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TesselDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
  addInterfaces<TesselOpAsmDialectInterface>();
}

LogicalResult TesselDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != getArchAttrName())
    return op->emitError() << "unknown tessel attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<ArchAttr>(attr.getValue()))
    return op->emitError() << "'" << getArchAttrName()
                           << "' must be a #tessel.arch attribute";
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << getArchAttrName()
                           << "' belongs on a builtin.module, not on '"
                           << op->getName() << "'";
  return success();
}
