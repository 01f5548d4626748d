//===- TesselOps.cpp - Operations of the tessel dialect -------------------===//
//
// The verifiers here are the hardware's rules: what a tile can address, what
// fits its SRAM, what the MAC array and the vector unit can execute. A program
// that passes them can be emitted for the arch its device carries.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::tessel;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

std::string describeTile(TileOp tile) {
  return "(" + std::to_string(tile.getRow()) + ", " +
         std::to_string(tile.getCol()) + ")";
}

std::string describeShape(MemRefType type) {
  return llvm::join(llvm::map_range(type.getShape(),
                                    [](int64_t d) { return std::to_string(d); }),
                    "x");
}

/// The memory `value` names: the tessel.buffer or tessel.dram_buffer it is,
/// or is a view of (subview, reshape, cast, transpose), or an SRAM
/// memref.alloc in a core (on the core's tile, until tessel-allocate-sram
/// places it in the tile's SRAM).
Operation *getBufferDef(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<BufferOp, DramBufferOp>(def))
      return def;
    // Its elements outside the source are held nowhere.
    if (isa<PadViewOp>(def))
      return nullptr;
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return getMemorySpace(alloc.getType()) == MemorySpace::sram &&
                     alloc->getParentOfType<CoreOp>()
                 ? def
                 : nullptr;
    if (auto transpose = dyn_cast<memref::TransposeOp>(def)) {
      value = transpose.getIn();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return nullptr;
    value = view.getViewSource();
  }
  return nullptr;
}

/// A DMA channel named on a transfer exists on the tile's engine.
LogicalResult verifyChannel(Operation *op, std::optional<uint32_t> channel) {
  ArchAttr arch = lookupArch(op);
  if (channel && *channel >= arch.getTileDmaChannels())
    return op->emitOpError() << "channel " << *channel
                             << " does not exist: the DMA engine has "
                             << arch.getTileDmaChannels() << " channels";
  return success();
}

/// The tile whose SRAM a buffer definition (from getBufferDef) is in; null
/// for DRAM.
TileOp getSramTile(Operation *def) {
  if (auto buffer = dyn_cast<BufferOp>(def))
    return buffer.getTileOp();
  if (isa<memref::AllocOp>(def))
    return def->getParentOfType<CoreOp>().getTileOp();
  return {};
}

TileOp getCoreTile(Operation *op) {
  return op->getParentOfType<CoreOp>().getTileOp();
}

/// Compute units read and write only their own tile's SRAM.
LogicalResult verifyLocalSram(Operation *op) {
  TileOp coreTile = getCoreTile(op);
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned index = operand.getOperandNumber();
    Operation *def = getBufferDef(operand.get());
    if (!def)
      return op->emitOpError()
             << "operand #" << index
             << " must be a tessel.buffer, a view of one, or an SRAM "
                "allocation in the core, so its tile is known";
    TileOp tile = getSramTile(def);
    if (!tile)
      return op->emitOpError()
             << "operand #" << index << " is in DRAM, but compute units read "
             << "only their own tile's SRAM; move it there with tessel.dma";
    if (tile != coreTile)
      return op->emitOpError()
             << "operand #" << index << " lives in the SRAM of tile "
             << describeTile(tile) << ", but the core runs on tile "
             << describeTile(coreTile)
             << ": compute units read only their own tile's SRAM";
  }
  return success();
}

/// The schema's element types that the MAC array (or the vector unit)
/// supports, for messages.
std::string supportedList(ArchAttr arch, bool mac) {
  MLIRContext *ctx = arch.getContext();
  SmallVector<StringRef> names;
  for (Type type : {Type(Float32Type::get(ctx)), Type(Float16Type::get(ctx)),
                    Type(BFloat16Type::get(ctx)), Type(IntegerType::get(ctx, 8)),
                    Type(IntegerType::get(ctx, 32)),
                    Type(IntegerType::get(ctx, 64))})
    if (mac ? arch.getMacsPerCycle(type) > 0 : arch.vectorSupports(type))
      names.push_back(ArchAttr::getDtypeName(type));
  return llvm::join(names, ", ");
}

LogicalResult verifyVectorDtype(Operation *op, Type elementType) {
  ArchAttr arch = lookupArch(op);
  if (arch.vectorSupports(elementType))
    return success();
  return op->emitOpError() << "the vector unit does not support "
                           << elementType << ": it supports "
                           << supportedList(arch, /*mac=*/false);
}

/// On integers the vector unit defines only exact operations (docs/isa.md).
LogicalResult verifyIntegerKind(Operation *op, Type elementType,
                                StringRef kind, bool defined) {
  if (!isa<IntegerType>(elementType) || defined)
    return success();
  return op->emitOpError()
         << "'" << kind << "' is not defined on " << elementType
         << ": on integers the vector unit has neg, abs, copy, cast, add, "
            "sub, mul, div, max, min, comparisons, select, fill and "
            "reductions";
}

LogicalResult verifySameShape(Operation *op, MemRefType a, MemRefType b) {
  if (a.getShape() == b.getShape())
    return success();
  return op->emitOpError() << "operands must have the same shape, got "
                           << describeShape(a) << " and " << describeShape(b);
}

} // namespace

void mlir::tessel::replaceTransfer(DmaOp transfer, ArrayRef<Value> tokens) {
  for (Operation *user : llvm::make_early_inc_range(transfer->getUsers())) {
    auto wait = cast<WaitOp>(user);
    SmallVector<Value> waited;
    for (Value token : wait.getTokens()) {
      if (token == transfer.getToken())
        llvm::append_range(waited, tokens);
      else
        waited.push_back(token);
    }
    if (waited.empty())
      wait.erase();
    else
      wait.getTokensMutable().assign(waited);
  }
  transfer.erase();
}

bool mlir::tessel::isInSpace(Value view, MemorySpace space) {
  return getMemorySpace(cast<MemRefType>(view.getType())) == space;
}

bool mlir::tessel::isAddressOp(Operation *op) {
  return isa<memref::SubViewOp, memref::ViewOp, memref::TransposeOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
             memref::ReinterpretCastOp, StridedViewOp, memref::AllocOp,
             arith::ConstantOp>(
      op);
}

bool mlir::tessel::touchesBuffer(Operation *op, Value buffer) {
  if (isAddressOp(op) || isa<memref::DeallocOp>(op))
    return false;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return getViewRoot(v) == buffer; });
}

bool mlir::tessel::isStoreBarrier(Operation *op, Value dramRoot) {
  if (isa<SignalOp, WaitSemaphoreOp, FenceOp, DmaMulticastOp, DmaGatherOp>(
          op) ||
      op->getNumRegions() != 0)
    return true;
  if (auto dma = dyn_cast<DmaOp>(op))
    return getViewRoot(dma.getSource()) == dramRoot ||
           getViewRoot(dma.getTarget()) == dramRoot;
  return false;
}

bool mlir::tessel::isTransfer(Operation *op) {
  return isa<DmaOp, DmaMulticastOp, DmaGatherOp>(op);
}

std::optional<uint32_t> mlir::tessel::getTransferChannel(Operation *op) {
  return TypeSwitch<Operation *, std::optional<uint32_t>>(op)
      .Case<DmaOp, DmaMulticastOp, DmaGatherOp>(
          [](auto transfer) { return transfer.getChannel(); })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<uint32_t> mlir::tessel::getTransferSlot(Operation *op) {
  return TypeSwitch<Operation *, std::optional<uint32_t>>(op)
      .Case<DmaOp, DmaMulticastOp, DmaGatherOp>(
          [](auto transfer) { return transfer.getSlot(); })
      .Default([](Operation *) { return std::nullopt; });
}

void mlir::tessel::setTransferChannel(Operation *op, uint32_t channel) {
  TypeSwitch<Operation *>(op).Case<DmaOp, DmaMulticastOp, DmaGatherOp>(
      [&](auto transfer) { transfer.setChannel(channel); });
}

void mlir::tessel::setTransferSlot(Operation *op, uint32_t slot) {
  TypeSwitch<Operation *>(op).Case<DmaOp, DmaMulticastOp, DmaGatherOp>(
      [&](auto transfer) { transfer.setSlot(slot); });
}

void mlir::tessel::releaseTokenSlots(
    WaitOp wait, llvm::DenseMap<uint32_t, Operation *> &held) {
  for (Value token : wait.getTokens()) {
    Operation *transfer = token.getDefiningOp();
    std::optional<uint32_t> slot =
        transfer ? getTransferSlot(transfer) : std::nullopt;
    // A token waited for before has freed its slot, which a later transfer
    // may hold now.
    if (slot && held.lookup(*slot) == transfer)
      held.erase(*slot);
  }
}

Value mlir::tessel::createSlab(OpBuilder &builder, Location loc, Value view,
                               unsigned dim, int64_t offset, int64_t size) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0);
  SmallVector<int64_t> sizes(type.getShape());
  SmallVector<int64_t> strides(type.getRank(), 1);
  offsets[dim] = offset;
  sizes[dim] = size;
  return memref::SubViewOp::create(builder, loc, view, offsets, sizes,
                                   strides);
}

Value mlir::tessel::getViewRoot(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def))
      view = viewLike.getViewSource();
    else if (auto transpose = dyn_cast<memref::TransposeOp>(def))
      view = transpose.getIn();
    else
      break;
  }
  return view;
}

LogicalResult mlir::tessel::getStridesAndOffset(
    MemRefType type, SmallVectorImpl<int64_t> &strides, int64_t &offset) {
  if (auto strided = dyn_cast<StridedLayoutAttr>(type.getLayout())) {
    strides.assign(strided.getStrides().begin(), strided.getStrides().end());
    offset = strided.getOffset();
    return success();
  }
  if (!type.getLayout().isIdentity() || !type.hasStaticShape())
    return type.getStridesAndOffset(strides, offset);
  strides.assign(type.getRank(), 1);
  for (int64_t d = type.getRank() - 1; d > 0; --d)
    strides[d - 1] = strides[d] * type.getDimSize(d);
  offset = 0;
  return success();
}

std::pair<SmallVector<int64_t>, int64_t>
mlir::tessel::getStridesAndOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  LogicalResult strided = getStridesAndOffset(type, strides, offset);
  assert(succeeded(strided) && "a layout that is not strided");
  (void)strided;
  return {strides, offset};
}

BufferOp mlir::tessel::getSramBuffer(Value view) {
  return dyn_cast_if_present<BufferOp>(getBufferDef(view));
}

//===----------------------------------------------------------------------===//
// DeviceOp
//===----------------------------------------------------------------------===//

void DeviceOp::build(OpBuilder &builder, OperationState &state,
                     StringRef symName, ArchAttr arch) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(symName));
  state.addAttribute(getArchAttrName(state.name), arch);
  state.addRegion()->emplaceBlock();
}

namespace {

/// An allocation with an assigned address, for overlap checks.
struct Placed {
  int64_t begin, end;
  Operation *op;
};

LogicalResult verifyNoOverlap(SmallVectorImpl<Placed> &placed,
                              StringRef where) {
  // An empty buffer holds no byte, so it overlaps nothing wherever it is.
  llvm::erase_if(placed, [](const Placed &p) { return p.begin == p.end; });
  llvm::sort(placed, [](const Placed &a, const Placed &b) {
    return a.begin < b.begin;
  });
  for (size_t i = 1; i < placed.size(); ++i) {
    const Placed &prev = placed[i - 1], &cur = placed[i];
    if (cur.begin >= prev.end)
      continue;
    auto name = [](Operation *op) {
      return op->getAttrOfType<StringAttr>("sym_name").getValue();
    };
    InFlightDiagnostic diag =
        cur.op->emitOpError()
        << "[" << cur.begin << ", " << cur.end << ") overlaps @"
        << name(prev.op) << " [" << prev.begin << ", " << prev.end << ") in "
        << where;
    diag.attachNote(prev.op->getLoc()) << "@" << name(prev.op) << " is here";
    return diag;
  }
  return success();
}

} // namespace

LogicalResult DeviceOp::verifyRegions() {
  ArchAttr arch = getArch();
  Block &body = getBody().front();

  // A coordinate names one physical tile; two handles to it, or two programs
  // on it, would let later passes place conflicting work there unnoticed.
  llvm::DenseMap<std::pair<int32_t, int32_t>, TileOp> tiles;
  for (auto tile : body.getOps<TileOp>()) {
    auto [it, inserted] =
        tiles.try_emplace({tile.getRow(), tile.getCol()}, tile);
    if (inserted)
      continue;
    InFlightDiagnostic diag = tile.emitOpError()
                              << "declares tile " << describeTile(tile)
                              << " of device @" << getSymName()
                              << " a second time";
    diag.attachNote(it->second.getLoc()) << "first declared here";
    return diag;
  }
  llvm::DenseMap<Operation *, CoreOp> cores;
  for (auto core : body.getOps<CoreOp>()) {
    auto [it, inserted] = cores.try_emplace(core.getTileOp(), core);
    if (inserted)
      continue;
    InFlightDiagnostic diag = core.emitOpError()
                              << "is a second core for tile "
                              << describeTile(core.getTileOp())
                              << "; a tile runs one program";
    diag.attachNote(it->second.getLoc()) << "first core here";
    return diag;
  }

  // A semaphore's id is its index in the program's list for its tile.
  llvm::DenseMap<std::pair<Operation *, uint32_t>, SemaphoreOp> semaphoreIds;
  for (auto semaphore : body.getOps<SemaphoreOp>()) {
    std::optional<uint32_t> id = semaphore.getId();
    if (!id)
      continue;
    auto [it, inserted] =
        semaphoreIds.try_emplace({semaphore.getTileOp(), *id}, semaphore);
    if (inserted)
      continue;
    InFlightDiagnostic diag =
        semaphore.emitOpError()
        << "has id " << *id << ", which another semaphore of tile "
        << describeTile(semaphore.getTileOp())
        << " has; run tessel-assign-semaphore-ids to number them";
    diag.attachNote(it->second.getLoc()) << "the other semaphore";
    return diag;
  }

  // Every buffer is live for the whole program, so a tile's buffers must fit
  // its SRAM together, each padded to the alignment.
  int64_t sramBytes = arch.getTileSramBytes();
  int64_t alignment = arch.getTileSramAlignment();
  llvm::DenseMap<Operation *, int64_t> sramUsed;
  llvm::DenseMap<Operation *, SmallVector<Placed>> sramPlaced;
  for (auto buffer : body.getOps<BufferOp>()) {
    TileOp tile = buffer.getTileOp();
    int64_t size = buffer.getSizeInBytes();
    int64_t &used = sramUsed[tile];
    used += llvm::alignTo(size, alignment);
    if (used > sramBytes)
      return buffer.emitOpError()
             << "does not fit in the SRAM of tile " << describeTile(tile)
             << ": the tile's buffers need " << used << " bytes (each aligned to "
             << alignment << ") and its SRAM holds " << sramBytes << " bytes";
    if (std::optional<uint64_t> address = buffer.getAddress())
      sramPlaced[tile].push_back(
          {static_cast<int64_t>(*address),
           static_cast<int64_t>(*address) + size, buffer});
  }
  for (auto &[tile, placed] : sramPlaced)
    if (failed(verifyNoOverlap(placed, "the SRAM of tile " +
                                           describeTile(cast<TileOp>(tile)))))
      return failure();

  int64_t dramBytes = arch.getDramCapacityBytes();
  int64_t dramUsed = 0;
  SmallVector<Placed> dramPlaced;
  for (auto buffer : body.getOps<DramBufferOp>()) {
    int64_t size = buffer.getSizeInBytes();
    dramUsed += size;
    if (dramUsed > dramBytes)
      return buffer.emitOpError()
             << "does not fit in DRAM: the device's DRAM buffers need "
             << dramUsed << " bytes and the DRAM holds " << dramBytes
             << " bytes";
    if (std::optional<uint64_t> address = buffer.getAddress())
      dramPlaced.push_back({static_cast<int64_t>(*address),
                            static_cast<int64_t>(*address) + size, buffer});
  }
  return verifyNoOverlap(dramPlaced, "DRAM");
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

LogicalResult TileOp::verify() {
  DeviceOp device = getDevice();
  GridAttr grid = device.getGrid();
  if (grid.contains(getRow(), getCol()))
    return success();
  return emitOpError() << "coordinate (" << getRow() << ", " << getCol()
                       << ") lies outside the " << grid.getRows() << "x"
                       << grid.getCols() << " grid of device @"
                       << device.getSymName() << ": row must be in [0, "
                       << grid.getRows() - 1 << "] and col in [0, "
                       << grid.getCols() - 1 << "]";
}

void TileOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  llvm::SmallString<16> name;
  llvm::raw_svector_ostream(name) << "tile_" << getRow() << "_" << getCol();
  setNameFn(getResult(), name);
}

//===----------------------------------------------------------------------===//
// CoreOp
//===----------------------------------------------------------------------===//

void CoreOp::build(OpBuilder &builder, OperationState &state, Value tile) {
  state.addOperands(tile);
  Region *body = state.addRegion();
  body->emplaceBlock();
  CoreOp::ensureTerminator(*body, builder, state.location);
}

TileOp CoreOp::getTileOp() { return getTile().getDefiningOp<TileOp>(); }

LogicalResult CoreOp::verify() {
  if (!getTileOp())
    return emitOpError("tile operand must be the result of a tessel.tile");
  return success();
}

LogicalResult CoreOp::verifyRegions() {
  // A token slot names one pending transfer: a transfer given a slot that an
  // earlier one still holds would make a wait on either wait on both. The
  // core runs its ops in order; a wait frees the slots of its tokens.
  llvm::DenseMap<uint32_t, Operation *> held;
  for (Operation &op : getBody().front()) {
    if (auto wait = dyn_cast<WaitOp>(op)) {
      releaseTokenSlots(wait, held);
      continue;
    }
    std::optional<uint32_t> slot = getTransferSlot(&op);
    if (!slot)
      continue;
    auto [it, inserted] = held.try_emplace(*slot, &op);
    if (inserted)
      continue;
    InFlightDiagnostic diag = op.emitOpError()
                              << "takes token slot " << *slot
                              << ", which an earlier transfer of the core "
                                 "still holds (no tessel.wait on its token "
                                 "in between); run tessel-assign-dma-slots";
    diag.attachNote(it->second->getLoc()) << "the transfer holding it";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BufferOp and DramBufferOp
//===----------------------------------------------------------------------===//

/// Views address whole elements (docs/isa.md).
static LogicalResult verifyElementAligned(Operation *op, uint64_t address,
                                          MemRefType type) {
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  if (address % elementBytes == 0)
    return success();
  return op->emitOpError() << "address " << address
                           << " is not a multiple of the element size ("
                           << elementBytes << " bytes)";
}

TileOp BufferOp::getTileOp() { return getTile().getDefiningOp<TileOp>(); }

int64_t BufferOp::getSizeInBytes() {
  return tessel::getSizeInBytes(getResult().getType());
}

void BufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getSymName());
}

LogicalResult BufferOp::verify() {
  if (!getTileOp())
    return emitOpError("tile operand must be the result of a tessel.tile");
  if (getMemorySpace(getResult().getType()) != MemorySpace::sram)
    return emitOpError("must be in #tessel.memory_space<sram>; arrays in "
                       "DRAM are tessel.dram_buffer");
  ArchAttr arch = lookupArch(*this);
  int64_t sramBytes = arch.getTileSramBytes();
  int64_t alignment = arch.getTileSramAlignment();
  int64_t size = getSizeInBytes();
  std::string tile = describeTile(getTileOp());
  if (size > sramBytes)
    return emitOpError() << "needs " << size << " bytes, but the SRAM of tile "
                         << tile << " holds " << sramBytes << " bytes";
  std::optional<uint64_t> address = getAddress();
  if (!address)
    return success();
  if (failed(verifyElementAligned(*this, *address, getResult().getType())))
    return failure();
  if (*address % alignment != 0)
    return emitOpError() << "address " << *address
                         << " is not a multiple of the SRAM alignment "
                         << alignment;
  if (static_cast<int64_t>(*address) + size > sramBytes)
    return emitOpError() << "at " << *address << " with " << size
                         << " bytes ends past the " << sramBytes
                         << "-byte SRAM of tile " << tile;
  return success();
}

int64_t DramBufferOp::getSizeInBytes() {
  return tessel::getSizeInBytes(getResult().getType());
}

void DramBufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // A stream's copies are named `x[0]`, `x[1]`: their values print as
  // `%x_0`, `%x_1` rather than with the brackets escaped.
  std::string name;
  for (char c : getSymName()) {
    if (c == ']')
      continue;
    bool allowed = llvm::isAlnum(c) ||
                   StringRef("$._-").contains(c);
    name += allowed ? c : '_';
  }
  setNameFn(getResult(), name);
}

LogicalResult DramBufferOp::verify() {
  if (getMemorySpace(getResult().getType()) != MemorySpace::dram)
    return emitOpError("must be in #tessel.memory_space<dram>; buffers in a "
                       "tile's SRAM are tessel.buffer");
  bool isConstant = getKind() == DramBufferKind::constant;
  if (isConstant != static_cast<bool>(getValueAttr()))
    return emitOpError(isConstant ? "of kind constant needs a value"
                                  : "has a value but is not of kind constant");
  if (ElementsAttr value = getValueAttr()) {
    MemRefType type = getResult().getType();
    if (value.getShapedType().getShape() != type.getShape() ||
        value.getElementType() != type.getElementType())
      return emitOpError() << "value of type " << value.getShapedType()
                           << " does not match the buffer " << type;
  }
  if (std::optional<ArrayRef<int64_t>> permutation = getPermutation()) {
    if (getKind() != DramBufferKind::weight)
      return emitOpError("is permuted but is not of kind weight; only weights "
                         "are written into DRAM by the runtime");
    if (!isPermutationVector(*permutation) ||
        permutation->size() !=
            static_cast<size_t>(getResult().getType().getRank()))
      return emitOpError() << "permutation [" << llvm::interleaved(*permutation)
                           << "] is not a permutation of the buffer's "
                           << getResult().getType().getRank() << " dimensions";
  }
  std::optional<uint64_t> address = getAddress();
  if (address &&
      failed(verifyElementAligned(*this, *address, getResult().getType())))
    return failure();
  int64_t capacity = lookupArch(*this).getDramCapacityBytes();
  if (address && static_cast<int64_t>(*address) + getSizeInBytes() > capacity)
    return emitOpError() << "at " << *address << " with " << getSizeInBytes()
                         << " bytes ends past the " << capacity
                         << "-byte DRAM";
  return success();
}

TileOp SemaphoreOp::getTileOp() { return getTile().getDefiningOp<TileOp>(); }

void SemaphoreOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "sem");
}

//===----------------------------------------------------------------------===//
// PadViewOp
//===----------------------------------------------------------------------===//

LogicalResult PadViewOp::verify() {
  auto source = cast<ShapedType>(getSource().getType());
  auto result = cast<ShapedType>(getResult().getType());
  if (isa<TensorType>(source) != isa<TensorType>(result))
    return emitOpError() << "source and result must both be tensors or both "
                            "memrefs, got "
                         << source << " and " << result;
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the source's "
                         << source.getElementType();
  int64_t rank = source.getRank();
  if (result.getRank() != rank || static_cast<int64_t>(getLow().size()) != rank ||
      static_cast<int64_t>(getHigh().size()) != rank)
    return emitOpError() << "needs one low and one high padding per dimension "
                            "of the rank-"
                         << rank << " source, and a result of that rank";
  for (int64_t d = 0; d < rank; ++d) {
    int64_t low = getLow()[d], high = getHigh()[d];
    if (low < 0 || high < 0)
      return emitOpError() << "padding of dimension " << d
                           << " is negative (low " << low << ", high " << high
                           << ")";
    if (result.getDimSize(d) != source.getDimSize(d) + low + high)
      return emitOpError() << "result dimension " << d << " is "
                           << result.getDimSize(d) << ", expected "
                           << source.getDimSize(d) + low + high
                           << " (source " << source.getDimSize(d) << " + low "
                           << low << " + high " << high << ")";
  }
  if (auto memref = dyn_cast<MemRefType>(result)) {
    if (getMemorySpace(memref) != MemorySpace::dram ||
        getMemorySpace(cast<MemRefType>(source)) != MemorySpace::dram)
      return emitOpError("views DRAM only: its loads are what read it");
    if (!memref.getLayout().isIdentity())
      return emitOpError() << "result must have the identity layout, got "
                           << memref;
  }
  return success();
}

Value PadViewOp::getViewSource() { return getSource(); }

// Bufferized, the view views its source's buffer: it reads and writes
// nothing itself (its loads read the source), and the source's buffer is
// what its result aliases.
bool PadViewOp::bufferizesToMemoryRead(OpOperand &,
                                       const bufferization::AnalysisState &) {
  return false;
}

bool PadViewOp::bufferizesToMemoryWrite(OpOperand &,
                                        const bufferization::AnalysisState &) {
  return false;
}

bufferization::AliasingValueList
PadViewOp::getAliasingValues(OpOperand &, const bufferization::AnalysisState &) {
  return {{getResult(), bufferization::BufferRelation::Unknown}};
}

FailureOr<bufferization::BufferLikeType>
PadViewOp::getBufferType(Value value,
                         const bufferization::BufferizationOptions &options,
                         const bufferization::BufferizationState &state,
                         SmallVector<Value> &invocationStack) {
  FailureOr<bufferization::BufferLikeType> source =
      bufferization::getBufferType(getSource(), options, state,
                                   invocationStack);
  if (failed(source))
    return failure();
  auto tensor = cast<RankedTensorType>(value.getType());
  return cast<bufferization::BufferLikeType>(
      MemRefType::get(tensor.getShape(), tensor.getElementType(),
                      MemRefLayoutAttrInterface(),
                      cast<MemRefType>(*source).getMemorySpace()));
}

LogicalResult
PadViewOp::bufferize(RewriterBase &rewriter,
                     const bufferization::BufferizationOptions &options,
                     bufferization::BufferizationState &state) {
  FailureOr<Value> source =
      bufferization::getBuffer(rewriter, getSource(), options, state);
  if (failed(source))
    return failure();
  auto tensor = cast<RankedTensorType>(getResult().getType());
  auto type = MemRefType::get(
      tensor.getShape(), tensor.getElementType(), MemRefLayoutAttrInterface(),
      cast<MemRefType>(source->getType()).getMemorySpace());
  bufferization::replaceOpWithNewBufferizedOp<PadViewOp>(
      rewriter, *this, type, *source, getLowAttr(), getHighAttr(),
      getValueAttr());
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeViewOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeViewOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the source's "
                         << source.getElementType();
  ArrayRef<int64_t> permutation = getPermutation();
  int64_t rank = source.getRank();
  if (result.getRank() != rank || static_cast<int64_t>(permutation.size()) != rank ||
      !isPermutationVector(permutation))
    return emitOpError() << "permutation " << llvm::interleaved_array(permutation)
                         << " is not a permutation of the rank-" << rank
                         << " source's dimensions";
  for (int64_t d = 0; d < rank; ++d)
    if (result.getDimSize(d) != source.getDimSize(permutation[d]))
      return emitOpError() << "result dimension " << d << " is "
                           << result.getDimSize(d) << ", expected "
                           << source.getDimSize(permutation[d])
                           << " (source dimension " << permutation[d] << ")";
  return success();
}

Value TransposeViewOp::getViewSource() { return getSource(); }

//===----------------------------------------------------------------------===//
// StridedViewOp
//===----------------------------------------------------------------------===//

LogicalResult StridedViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto result = cast<MemRefType>(getResult().getType());
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the source's "
                         << source.getElementType();
  if (source.getMemorySpace() != result.getMemorySpace())
    return emitOpError() << "result memory space " << result.getMemorySpace()
                         << " differs from the source's "
                         << source.getMemorySpace();
  auto layout = dyn_cast<StridedLayoutAttr>(result.getLayout());
  if (!layout)
    return emitOpError() << "result layout " << result.getLayout()
                         << " is not a strided layout";
  if (ShapedType::isDynamic(layout.getOffset()) ||
      llvm::any_of(layout.getStrides(), ShapedType::isDynamic))
    return emitOpError() << "result layout " << layout
                         << " has a dynamic offset or stride; a strided view "
                            "is static";
  return success();
}

Value StridedViewOp::getViewSource() { return getSource(); }

// Bufferized, the view views its source's buffer: it reads and writes
// nothing itself, and the source's buffer is what its result aliases.
bool TransposeViewOp::bufferizesToMemoryRead(
    OpOperand &, const bufferization::AnalysisState &) {
  return false;
}

bool TransposeViewOp::bufferizesToMemoryWrite(
    OpOperand &, const bufferization::AnalysisState &) {
  return false;
}

bufferization::AliasingValueList
TransposeViewOp::getAliasingValues(OpOperand &,
                                   const bufferization::AnalysisState &) {
  return {{getResult(), bufferization::BufferRelation::Unknown}};
}

/// The type of the `memref.transpose` by `permutation` of `source`: its
/// shape and strides permuted, its offset kept.
static MemRefType getTransposedType(MemRefType source,
                                    ArrayRef<int64_t> permutation) {
  auto [strides, offset] = getStridesAndOffset(source);
  SmallVector<int64_t> shape, permuted;
  for (int64_t d : permutation) {
    shape.push_back(source.getDimSize(d));
    permuted.push_back(strides[d]);
  }
  return MemRefType::get(
      shape, source.getElementType(),
      StridedLayoutAttr::get(source.getContext(), offset, permuted),
      source.getMemorySpace());
}

FailureOr<bufferization::BufferLikeType>
TransposeViewOp::getBufferType(Value value,
                               const bufferization::BufferizationOptions &options,
                               const bufferization::BufferizationState &state,
                               SmallVector<Value> &invocationStack) {
  FailureOr<bufferization::BufferLikeType> source =
      bufferization::getBufferType(getSource(), options, state,
                                   invocationStack);
  if (failed(source))
    return failure();
  return cast<bufferization::BufferLikeType>(
      getTransposedType(cast<MemRefType>(*source), getPermutation()));
}

LogicalResult
TransposeViewOp::bufferize(RewriterBase &rewriter,
                           const bufferization::BufferizationOptions &options,
                           bufferization::BufferizationState &state) {
  FailureOr<Value> source =
      bufferization::getBuffer(rewriter, getSource(), options, state);
  if (failed(source))
    return failure();
  AffineMap map = AffineMap::getPermutationMap(
      llvm::map_to_vector(getPermutation(),
                          [](int64_t d) { return static_cast<unsigned>(d); }),
      getContext());
  bufferization::replaceOpWithNewBufferizedOp<memref::TransposeOp>(
      rewriter, *this, *source, AffineMapAttr::get(map));
  return success();
}

//===----------------------------------------------------------------------===//
// DmaOp, WaitOp, WaitSemaphoreOp
//===----------------------------------------------------------------------===//

void DmaOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getToken(), "dma");
}

LogicalResult DmaOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (source.getShape() != target.getShape() ||
      source.getElementType() != target.getElementType())
    return emitOpError() << "source and target must have the same shape and "
                            "element type, got "
                         << source << " and " << target;

  auto endpoint = [&](Value value, StringRef role,
                      Operation *&def) -> LogicalResult {
    def = getBufferDef(value);
    if (!def)
      return emitOpError() << role
                           << " must be a tessel.buffer or tessel.dram_buffer, "
                              "a view of one, or an SRAM allocation in the "
                              "core";
    return success();
  };
  Operation *sourceDef, *targetDef;
  if (failed(endpoint(getSource(), "source", sourceDef)) ||
      failed(endpoint(getTarget(), "target", targetDef)))
    return failure();
  if (!getSramTile(sourceDef) && !getSramTile(targetDef))
    return emitOpError("DRAM-to-DRAM transfers have no path: stage the data "
                       "through a tile's SRAM");

  // The issuing tile's DMA engine reads or writes its own SRAM; the other end
  // is reached through the NoC.
  TileOp coreTile = getCoreTile(*this);
  auto where = [&](Operation *def) -> std::string {
    if (TileOp tile = getSramTile(def))
      return "the SRAM of tile " + describeTile(tile);
    return "DRAM";
  };
  auto isLocal = [&](Operation *def) { return getSramTile(def) == coreTile; };
  if (!isLocal(sourceDef) && !isLocal(targetDef))
    return emitOpError() << "the DMA engine of tile " << describeTile(coreTile)
                         << " moves data to or from its own SRAM only, but "
                            "this transfer is from "
                         << where(sourceDef) << " to " << where(targetDef);
  return verifyChannel(*this, getChannel());
}

void DmaGatherOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getToken(), "gather");
}

LogicalResult DmaGatherOp::verify() {
  MemRefType table = getTable().getType(), indices = getIndices().getType(),
             target = getTarget().getType();
  if (table.getShape() != target.getShape() ||
      indices.getShape() != target.getShape())
    return emitOpError() << "table, indices and target must have the same "
                            "shape, got "
                         << table << ", " << indices << " and " << target;
  if (table.getElementType() != target.getElementType())
    return emitOpError() << "target must have the table's element type "
                         << table.getElementType() << ", got "
                         << target.getElementType();
  if (!indices.getElementType().isSignlessInteger(32) &&
      !indices.getElementType().isSignlessInteger(64))
    return emitOpError() << "indices must be i32 or i64, got "
                         << indices.getElementType();
  TileOp coreTile = getCoreTile(*this);
  auto check = [&](Value value, StringRef role, bool inDram) -> LogicalResult {
    Operation *def = getBufferDef(value);
    if (!def)
      return emitOpError() << role
                           << " must be a tessel.buffer or tessel.dram_buffer, "
                              "a view of one, or an SRAM allocation in the "
                              "core";
    TileOp tile = getSramTile(def);
    if (inDram && tile)
      return emitOpError() << role << " must be in DRAM, not the SRAM of tile "
                           << describeTile(tile);
    if (!inDram && tile != coreTile)
      return emitOpError() << role << " must be in the SRAM of the issuing "
                           << "tile " << describeTile(coreTile);
    return success();
  };
  if (failed(check(getTable(), "table", /*inDram=*/true)) ||
      failed(check(getIndices(), "indices", /*inDram=*/false)) ||
      failed(check(getTarget(), "target", /*inDram=*/false)))
    return failure();
  return verifyChannel(*this, getChannel());
}

void DmaMulticastOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getToken(), "multicast");
}

// The route always exists: the mesh's XY routes reach every tile of the
// grid, and the tile verifier keeps every target's tile inside it.
LogicalResult DmaMulticastOp::verify() {
  if (getTargets().empty())
    return emitOpError() << "has no target";
  if (getTargets().size() > kMaxTargets)
    return emitOpError() << "has " << getTargets().size()
                         << " targets; one instruction carries at most "
                         << kMaxTargets << ": split them over several";
  MemRefType source = getSource().getType();
  Operation *sourceDef = getBufferDef(getSource());
  if (!sourceDef)
    return emitOpError("source must be a tessel.buffer or tessel.dram_buffer, "
                       "a view of one, or an SRAM allocation in the core");
  TileOp coreTile = getCoreTile(*this);
  if (TileOp tile = getSramTile(sourceDef); tile && tile != coreTile)
    return emitOpError() << "reads the SRAM of tile " << describeTile(tile)
                         << ", but the DMA engine of tile "
                         << describeTile(coreTile)
                         << " multicasts from DRAM or its own SRAM only";

  DenseMap<Operation *, unsigned> targetOfTile;
  for (auto [index, target] : llvm::enumerate(getTargets())) {
    auto type = cast<MemRefType>(target.getType());
    if (type.getShape() != source.getShape() ||
        type.getElementType() != source.getElementType())
      return emitOpError() << "target #" << index
                           << " must have the source's shape and element "
                              "type, got "
                           << type << " for " << source;
    Operation *def = getBufferDef(target);
    if (!def)
      return emitOpError() << "target #" << index
                           << " must be a tessel.buffer, a view of one, or "
                              "an SRAM allocation in the core";
    TileOp tile = getSramTile(def);
    if (!tile)
      return emitOpError() << "target #" << index
                           << " is in DRAM; a multicast delivers to tiles' "
                              "SRAM";
    if (getTargets().size() == 1 && tile == coreTile)
      return emitOpError() << "has one target, in the SRAM of its own tile "
                           << describeTile(tile)
                           << "; a transfer into the tile's own SRAM is a "
                              "tessel.dma";
    auto [it, inserted] = targetOfTile.try_emplace(tile, index);
    if (!inserted)
      return emitOpError() << "targets #" << it->second << " and #" << index
                           << " are both in the SRAM of tile "
                           << describeTile(tile)
                           << "; each tile receives the data once";
  }
  for (auto [index, credit] : llvm::enumerate(getCredits())) {
    auto semaphore = credit.getDefiningOp<SemaphoreOp>();
    if (!semaphore)
      return emitOpError() << "credit #" << index
                           << " must be the result of a tessel.semaphore";
    if (semaphore.getTileOp() != coreTile)
      return emitOpError() << "credit #" << index
                           << " is a semaphore of tile "
                           << describeTile(semaphore.getTileOp())
                           << ", but only the DMA engine of the semaphore's "
                              "own tile can wait on it; the issuing tile is "
                           << describeTile(coreTile);
  }
  return verifyChannel(*this, getChannel());
}

// A token can only come from a tessel.dma of the same core: cores are
// sibling regions, so SSA dominance already keeps another tile's tokens out.
LogicalResult WaitOp::verify() {
  if (getTokens().empty())
    return emitOpError("needs at least one token to wait for");
  return success();
}

LogicalResult WaitSemaphoreOp::verify() {
  auto semaphore = getSemaphore().getDefiningOp<SemaphoreOp>();
  if (!semaphore)
    return emitOpError("semaphore must be the result of a tessel.semaphore");
  TileOp owner = semaphore.getTileOp(), coreTile = getCoreTile(*this);
  if (owner != coreTile)
    return emitOpError() << "waits on a semaphore of tile " << describeTile(owner)
                         << " from the core of tile " << describeTile(coreTile)
                         << ": only the owning tile can wait on a semaphore";
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  MemRefType lhs = getLhs().getType(), rhs = getRhs().getType(),
             acc = getAcc().getType();
  if (rhs.getRank() != 2 || (lhs.getRank() != 2 && lhs.getRank() != 3) ||
      acc.getRank() != lhs.getRank())
    return emitOpError("needs a 2-D rhs and a 2-D lhs and acc (rows) or a "
                       "3-D lhs and acc (groups of rows)");
  // Groups of rows stream as one: M is their total.
  ArrayRef<int64_t> lhsShape = lhs.getShape(), accShape = acc.getShape();
  int64_t m = lhs.getNumElements() / lhsShape.back(), k = lhsShape.back(),
          n = rhs.getDimSize(1);
  if (rhs.getDimSize(0) != k || accShape.drop_back() != lhsShape.drop_back() ||
      accShape.back() != n)
    return emitOpError() << "shapes do not compose: lhs " << describeShape(lhs)
                         << ", rhs " << describeShape(rhs) << ", acc "
                         << describeShape(acc)
                         << " (expected lhs [G x] M x K, rhs K x N, acc [G x] "
                            "M x N)";
  if (failed(verifyLocalSram(*this)))
    return failure();

  ArchAttr arch = lookupArch(*this);
  Type input = lhs.getElementType();
  if (rhs.getElementType() != input)
    return emitOpError() << "lhs and rhs must have one element type, got "
                         << input << " and " << rhs.getElementType();
  if (arch.getMacsPerCycle(input) == 0)
    return emitOpError() << "the MAC array does not support " << input
                         << ": it supports " << supportedList(arch, true);
  Type expectedAcc = isa<FloatType>(input)
                         ? Type(Float32Type::get(getContext()))
                         : Type(IntegerType::get(getContext(), 32));
  if (acc.getElementType() != expectedAcc)
    return emitOpError() << "accumulator must be " << expectedAcc << " for "
                         << input << " inputs, got " << acc.getElementType();

  int64_t rows = arch.getTileMacRows(), cols = arch.getTileMacCols();
  bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
  int64_t resident = weightStationary ? k : m;
  if (resident <= rows && n <= cols)
    return success();
  return emitOpError() << "block " << m << "x" << k << "x" << n
                       << " (M x K x N) exceeds the " << rows << "x" << cols
                       << " " << (weightStationary ? "weight" : "output")
                       << "-stationary MAC array: "
                       << (weightStationary ? "K" : "M") << " must be <= "
                       << rows << " and N <= " << cols;
}

LogicalResult VectorUnaryOp::verify() {
  MemRefType input = getInput().getType(), result = getResult().getType();
  if (failed(verifySameShape(*this, input, result)) ||
      failed(verifyLocalSram(*this)))
    return failure();
  VectorUnaryKind kind = getKind();
  // cast converts between any two element types (docs/isa.md).
  if (kind == VectorUnaryKind::cast)
    return success();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "input and result must have one element type, got "
                         << input.getElementType() << " and "
                         << result.getElementType()
                         << " (only 'cast' converts)";
  // A copy computes nothing: it also moves the types the MAC array reads
  // and the vector unit does not compute on (an int8 weight transposed).
  if (kind == VectorUnaryKind::copy &&
      lookupArch(*this).getMacsPerCycle(input.getElementType()) > 0)
    return success();
  if (failed(verifyVectorDtype(*this, input.getElementType())))
    return failure();
  bool exact = kind == VectorUnaryKind::neg || kind == VectorUnaryKind::abs ||
               kind == VectorUnaryKind::copy;
  return verifyIntegerKind(*this, input.getElementType(),
                           stringifyVectorUnaryKind(kind), exact);
}

/// Elementwise vector ops: operands of one shape and one element type the
/// vector unit supports, all in the core's own SRAM.
static LogicalResult verifyElementwise(Operation *op, ValueRange operands) {
  auto typeOf = [](Value v) { return cast<MemRefType>(v.getType()); };
  MemRefType first = typeOf(operands.front());
  for (Value operand : operands.drop_front())
    if (failed(verifySameShape(op, first, typeOf(operand))))
      return failure();
  if (failed(verifyLocalSram(op)))
    return failure();
  if (llvm::any_of(operands, [&](Value v) {
        return typeOf(v).getElementType() != first.getElementType();
      })) {
    InFlightDiagnostic diag =
        op->emitOpError() << "operands must have one element type, got ";
    llvm::interleaveComma(operands, diag, [&](Value v) {
      diag << typeOf(v).getElementType();
    });
    return diag;
  }
  return verifyVectorDtype(op, first.getElementType());
}

LogicalResult VectorBinaryOp::verify() {
  if (failed(verifyElementwise(*this, (*this)->getOperands())))
    return failure();
  // Every binary operation is defined on integers (div truncates).
  return success();
}

LogicalResult VectorBinaryImmOp::verify() {
  if (failed(verifyElementwise(*this, (*this)->getOperands())))
    return failure();
  return success();
}

LogicalResult VectorFillOp::verify() {
  // A fill computes nothing: it also writes the types the MAC array reads
  // and the vector unit does not compute on (a padded window of an int8
  // convolution's input, docs/isa.md), as a copy moves them.
  Type elementType = getResult().getType().getElementType();
  if (!lookupArch(*this).vectorSupports(elementType) &&
      lookupArch(*this).getMacsPerCycle(elementType) > 0)
    return verifyLocalSram(*this);
  return verifyElementwise(*this, (*this)->getOperands());
}

LogicalResult VectorCompareOp::verify() {
  return verifyElementwise(*this, (*this)->getOperands());
}

LogicalResult VectorSelectOp::verify() {
  return verifyElementwise(*this, (*this)->getOperands());
}

LogicalResult VectorReduceOp::verify() {
  MemRefType input = getInput().getType(), result = getResult().getType();
  int64_t dim = getDim();
  if (dim >= input.getRank())
    return emitOpError() << "dim " << dim << " is out of range for a rank-"
                         << input.getRank() << " input";
  SmallVector<int64_t> expected(input.getShape());
  expected.erase(expected.begin() + dim);
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << describeShape(result)
                         << " must be the input shape " << describeShape(input)
                         << " without dim " << dim;
  if (failed(verifyLocalSram(*this)))
    return failure();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "input and result must have one element type, got "
                         << input.getElementType() << " and "
                         << result.getElementType();
  return verifyVectorDtype(*this, input.getElementType());
}

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
