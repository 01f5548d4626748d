//===- TesselOps.h - Operations of the tessel dialect -----------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselTypes.h"

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.h.inc"

namespace mlir::tessel {

/// The tessel.buffer `view` is, or is a view of (subview, reshape, cast,
/// transpose, memref.view): a placed SRAM buffer, which any core of the
/// device can address. Null for DRAM, for an allocation of a core not yet
/// placed, and for anything else.
BufferOp getSramBuffer(Value view);

/// The value `view` is a view of: through view-like ops (subviews, reshapes,
/// casts, memref.view, tessel.pad_view) and memref.transpose, the first
/// value that is none of them (an allocation, a buffer, an argument).
Value getViewRoot(Value view);

/// The strides and offset of `type`, as MemRefType::getStridesAndOffset
/// gives them, without the affine expressions MLIR builds and simplifies
/// for an identity layout: read from a strided layout, computed row-major
/// for an identity one of static shape. The lowering asks this of every
/// view it makes, hundreds of thousands of times for a large model.
LogicalResult getStridesAndOffset(MemRefType type,
                                  SmallVectorImpl<int64_t> &strides,
                                  int64_t &offset);

/// The strides and offset of `type`, which must be strided.
std::pair<SmallVector<int64_t>, int64_t> getStridesAndOffset(MemRefType type);

/// Where `transfer` is waited for, waits for `tokens` instead (a wait left
/// with none is erased); then erases `transfer`. What replaces a transfer
/// by others (pieces of it, or a multicast that delivers it) calls this.
void replaceTransfer(DmaOp transfer, ArrayRef<Value> tokens);

/// Whether `view` (a memref) lies in memory space `space`.
bool isInSpace(Value view, MemorySpace space);

/// Ops that only name memory: views, reshapes, allocations and constants.
/// They can move with the instructions that use them.
bool isAddressOp(Operation *op);

/// Whether `op` touches the memory of `buffer` (rather than only naming or
/// freeing it): an instruction or transfer with an operand viewing it.
bool touchesBuffer(Operation *op, Value buffer);

/// Whether a store into the DRAM buffer `dramRoot` may not move past `op`
/// at all: synchronization (a signal, a semaphore wait, a fence), a
/// multicast, a gather, an op with regions, or a transfer of that buffer.
bool isStoreBarrier(Operation *op, Value dramRoot);

/// Whether `op` is a transfer of its tile's DMA engine (`tessel.dma`,
/// `tessel.dma_multicast`, `tessel.dma_gather`): it runs on a DMA channel
/// and holds a token slot until a `tessel.wait` on its token.
bool isTransfer(Operation *op);

/// The DMA channel and the token slot of transfer `op`, where assigned.
std::optional<uint32_t> getTransferChannel(Operation *op);
std::optional<uint32_t> getTransferSlot(Operation *op);
void setTransferChannel(Operation *op, uint32_t channel);
void setTransferSlot(Operation *op, uint32_t slot);

/// Frees, in `held` (token slot -> the pending transfer holding it), the
/// slots of the transfers `wait` waits for: a core's slots as it runs.
void releaseTokenSlots(WaitOp wait,
                       llvm::DenseMap<uint32_t, Operation *> &held);

/// `view` cut to `[offset, offset + size)` along `dim` (a memref.subview):
/// one end of a piece of a transfer.
Value createSlab(OpBuilder &builder, Location loc, Value view, unsigned dim,
                 int64_t offset, int64_t size);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H
