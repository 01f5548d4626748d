//===- TesselDialect.cpp - The tessel dialect -----------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/TilingInterface.h"

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

/// A mapping names one part per loop of the op and tiles inside the grid.
static LogicalResult verifyMapping(Operation *op, Attribute value) {
  auto mapping = dyn_cast<MappingAttr>(value);
  if (!mapping)
    return op->emitError() << "'" << TesselDialect::getMappingAttrName()
                           << "' must be a #tessel.mapping attribute";
  auto tilingOp = dyn_cast<TilingInterface>(op);
  if (!tilingOp)
    return op->emitError() << "'" << TesselDialect::getMappingAttrName()
                           << "' is only meaningful on ops with loops "
                              "(TilingInterface), not on '"
                           << op->getName() << "'";
  // MLIR verifies an op's dialect attributes before the op itself, and the
  // loops of an invalid op cannot be read (a linalg.reduce over a
  // dimension its input lacks would index past its iterator types): the
  // op's own verifier runs first and gives its error.
  if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
    if (failed(info->verifyInvariants(op)))
      return failure();
  size_t loops = tilingOp.getLoopIteratorTypes().size();
  if (mapping.getParts().size() != loops)
    return op->emitError() << "mapping has " << mapping.getParts().size()
                           << " parts but '" << op->getName() << "' has "
                           << loops << " loops: give one part count per loop";
  ArchAttr arch = lookupArch(op);
  if (!arch)
    return success();
  int64_t gridRows = arch.getGridRows(), gridCols = arch.getGridCols();
  if (mapping.getRow() + mapping.getRows() > gridRows ||
      mapping.getCol() + mapping.getCols() > gridCols)
    return op->emitError() << "mapping rectangle at (" << mapping.getRow()
                           << ", " << mapping.getCol() << ") of "
                           << mapping.getRows() << "x" << mapping.getCols()
                           << " tiles does not fit the " << gridRows << "x"
                           << gridCols << " grid";
  return success();
}

LogicalResult TesselDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == getMappingAttrName())
    return verifyMapping(op, attr.getValue());
  if (attr.getName() == getPartitionAttrName()) {
    if (!isa<MappingAttr>(attr.getValue()))
      return op->emitError() << "'" << getPartitionAttrName()
                             << "' must be a #tessel.mapping attribute";
    return success();
  }
  if (attr.getName() == getResidentAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        !isa<memref::AllocOp, memref::CopyOp, memref::DeallocOp>(op))
      return op->emitError()
             << "'" << getResidentAttrName()
             << "' is a unit attribute of the allocation, load and "
                "deallocation of a resident weight (memref.alloc, "
                "memref.copy, memref.dealloc)";
    return success();
  }
  if (attr.getName() == getEpilogueAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) ||
        (!op->hasAttr(getPartitionAttrName()) && !isa<TilingInterface>(op) &&
         !isa<memref::CopyOp>(op)))
      return op->emitError()
             << "'" << getEpilogueAttrName()
             << "' is a unit attribute of an elementwise op that runs as the "
                "epilogue of the op before it, of its partition (an "
                "scf.forall with '"
             << getPartitionAttrName() << "') or of the loads it makes there "
                "(memref.copy)";
    return success();
  }
  if (attr.getName() == getOnChipAttrName()) {
    auto buffer = dyn_cast<DramBufferOp>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !buffer ||
        buffer.getKind() != DramBufferKind::scratch)
      return op->emitError()
             << "'" << getOnChipAttrName()
             << "' is a unit attribute of a scratch tessel.dram_buffer: the "
                "result of an op mapped on_chip";
    return success();
  }
  if (attr.getName() == getReleaseAttrName()) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()) || !isa<FenceOp>(op))
      return op->emitError()
             << "'" << getReleaseAttrName()
             << "' is a symbol attribute of a tessel.fence: the on-chip "
                "buffer whose slices the tile frees there";
    return success();
  }
  if (attr.getName() == getHeldAsAttrName()) {
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!isa<FlatSymbolRefAttr>(attr.getValue()) || !alloc ||
        getMemorySpace(alloc.getType()) != MemorySpace::sram)
      return op->emitError()
             << "'" << getHeldAsAttrName()
             << "' is a symbol attribute of an SRAM memref.alloc: the "
                "tessel.buffer other tiles read the slice it holds through";
    return success();
  }
  if (attr.getName() == getWeightsOfAttrName()) {
    if (!isa<FlatSymbolRefAttr>(attr.getValue()) || !isa<func::FuncOp>(op))
      return op->emitError()
             << "'" << getWeightsOfAttrName()
             << "' is a symbol attribute of a func.func: the function whose "
                "weights it computes from that function's weights";
    return success();
  }
  if (attr.getName() == getShareAttrName()) {
    auto group = dyn_cast<IntegerAttr>(attr.getValue());
    if (!group || group.getValue().isNegative() ||
        !isa<memref::CopyOp, DmaOp>(op))
      return op->emitError()
             << "'" << getShareAttrName()
             << "' is a non-negative integer attribute of a load "
                "(memref.copy or tessel.dma): the op whose loads may be "
                "shared";
    return success();
  }
  if (attr.getName() == getLoadedTogetherAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<DmaOp>(op) ||
        !op->hasAttr(getShareAttrName()))
      return op->emitError()
             << "'" << getLoadedTogetherAttrName()
             << "' is a unit attribute of a tessel.dma marked '"
             << getShareAttrName()
             << "': a load issued together with the later steps' loads of "
                "its op (tessel-schedule)";
    return success();
  }
  // The marks tessel-schedule and tessel-early-loads leave on loads.
  auto isUnitOnDramLoad = [&](bool multicast) {
    Value source;
    if (auto dma = dyn_cast<DmaOp>(op))
      source = dma.getSource();
    else if (auto dma = dyn_cast<DmaMulticastOp>(op); dma && multicast)
      source = dma.getSource();
    return isa<UnitAttr>(attr.getValue()) && source &&
           getMemorySpace(cast<MemRefType>(source.getType())) ==
               MemorySpace::dram;
  };
  if (attr.getName() == getIssuedEarlyAttrName()) {
    if (!isUnitOnDramLoad(/*multicast=*/true))
      return op->emitError()
             << "'" << getIssuedEarlyAttrName()
             << "' is a unit attribute of a tessel.dma or "
                "tessel.dma_multicast from DRAM: a load issued during the "
                "ops before its own (tessel-schedule), which keeps a DMA "
                "channel to itself until it is waited for "
                "(tessel-assign-dma-channels)";
    return success();
  }
  if (attr.getName() == getFirstLoadAttrName()) {
    if (!isUnitOnDramLoad(/*multicast=*/false))
      return op->emitError()
             << "'" << getFirstLoadAttrName()
             << "' is a unit attribute of a tessel.dma from DRAM: a piece "
                "of an op's first loads (tessel-early-loads)";
    return success();
  }
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
