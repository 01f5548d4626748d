//===- InstructionStreams.cpp - Tile programs encoded from tessel IR ------===//
//
// Walks a lowered tessel.device once: its buffers and semaphores give each
// operand its place (memory, tile, byte address), each core's ops become
// the ISA's instructions (docs/isa.md, "Instruction encoding"), in program
// order. Operands are traced through their view ops to a buffer; the
// view's final type gives the strides and the element offset, and the
// memref.view ops on the way their byte shifts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Program/InstructionStreams.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace mlir::tessel {
namespace {

//===----------------------------------------------------------------------===//
// The ISA's constants (docs/isa.md; runtime/isa.py holds the same tables).
//===----------------------------------------------------------------------===//

constexpr char kMagic[4] = {'T', 'S', 'L', '1'};
constexpr uint16_t kVersion = 2;
constexpr uint32_t kNoTag = 0xFFFF;
constexpr unsigned kMaxRank = 4;
constexpr unsigned kMaxWords = 0xFF;

enum Opcode : uint32_t {
  kDma = 0x01,
  kWait = 0x02,
  kSignal = 0x03,
  kWaitSemaphore = 0x04,
  kDmaMulticast = 0x05,
  kDmaGather = 0x06,
  kDmaWaitSemaphore = 0x07,
  kMatmul = 0x10,
  kMatmulInit = 0x11,
  kVectorUnary = 0x20,
  kVectorBinary = 0x21,
  kVectorBinaryImm = 0x22,
  kVectorReduce = 0x23,
  kVectorFill = 0x24,
  kVectorCompare = 0x25,
  kVectorSelect = 0x26,
};

enum EndpointKind : uint32_t { kSramEndpoint = 0, kDramEndpoint = 1 };

// The dialect's enums list their cases in the ISA's order, so a case's value
// is its operation code: VectorUnaryKind as UNARY_OPS, VectorBinaryKind as
// BINARY_OPS, ReductionKind as REDUCE_OPS, ComparePredicate as PREDICATES.

/// The ISA's element types, in the order of their codes (runtime/isa.py's
/// DTYPES).
constexpr llvm::StringLiteral kDtypes[] = {"f32", "f16", "bf16", "i8", "i32", "i64"};

/// The ISA's code of an element type, or nothing.
std::optional<uint32_t> getDtypeCode(Type type) {
  llvm::StringRef name = ArchAttr::getDtypeName(type);
  const auto *found = llvm::find(kDtypes, name);
  if (name.empty() || found == std::end(kDtypes))
    return std::nullopt;
  return found - std::begin(kDtypes);
}

//===----------------------------------------------------------------------===//
// Source locations.
//===----------------------------------------------------------------------===//

// Frames of library code (PyTorch's modules, the frontend process's own
// entry), which a per-layer report looks past to the model's line.
constexpr llvm::StringLiteral kLibraryPaths[] = {
    "/site-packages/", "/dist-packages/", "tessel/frontend/_worker.py"};

void collectCallFrames(Location loc, SmallVectorImpl<Location> &frames) {
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collectCallFrames(call.getCallee(), frames);
    collectCallFrames(call.getCaller(), frames);
    return;
  }
  frames.push_back(loc);
}

/// ` at file:line:col` of an op's location, or nothing, for messages.
std::string describeWhere(Operation *op) {
  std::optional<SourceTag> described = describeLocation(op->getLoc());
  if (!described)
    return "";
  return " at " + (described->loc.empty() ? described->name : described->loc);
}

/// `'op.name' at file:line:col`, for messages.
std::string describeOp(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str() + describeWhere(op);
}

//===----------------------------------------------------------------------===//
// Operands.
//===----------------------------------------------------------------------===//

/// The memory a buffer or view lies in: DRAM, or the SRAM of tile
/// (row, col); `address` is its byte address there.
struct Place {
  bool dram = false;
  uint32_t row = 0, col = 0;
  int64_t address = 0;
};

/// An operand as the ISA addresses it: its memory, the byte address of its
/// first element, its element strides, shape and element type.
struct Ref {
  Place place;
  int64_t base = 0;
  SmallVector<int64_t, 4> strides;
  SmallVector<int64_t, 4> shape;
  uint32_t dtype = 0;
};

bool isViewOp(Operation *op) {
  return isa<memref::SubViewOp, memref::ViewOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::TransposeOp,
             memref::ReinterpretCastOp, StridedViewOp, memref::CastOp>(op);
}

/// Sizes and per-operand strides of rank 1 to 4 for an elementwise
/// instruction or a transfer. A rank-0 memref is one element; above rank 4,
/// dimensions of size 1 are dropped and neighbours contiguous in every
/// operand merged.
LogicalResult fitRank(Operation *op, ArrayRef<int64_t> shape,
                      SmallVectorImpl<SmallVector<int64_t, 4>> &strides,
                      SmallVectorImpl<int64_t> &sizes, std::string &error) {
  sizes.clear();
  if (shape.empty()) {
    sizes.push_back(1);
    for (auto &s : strides)
      s.assign({1});
    return success();
  }
  if (shape.size() <= kMaxRank) {
    sizes.assign(shape.begin(), shape.end());
    return success();
  }
  SmallVector<unsigned> keep;
  for (auto [i, n] : llvm::enumerate(shape))
    if (n != 1)
      keep.push_back(i);
  if (keep.empty())
    keep.push_back(shape.size() - 1);
  for (unsigned i : keep)
    sizes.push_back(shape[i]);
  for (auto &s : strides) {
    SmallVector<int64_t, 4> kept;
    for (unsigned i : keep)
      kept.push_back(s[i]);
    s = std::move(kept);
  }
  for (int i = static_cast<int>(sizes.size()) - 2; i >= 0; --i) {
    bool contiguous = llvm::all_of(
        strides, [&](auto &s) { return s[i] == s[i + 1] * sizes[i + 1]; });
    if (!contiguous)
      continue;
    sizes[i] *= sizes[i + 1];
    sizes.erase(sizes.begin() + i + 1);
    for (auto &s : strides) {
      s[i] = s[i + 1];
      s.erase(s.begin() + i + 1);
    }
  }
  if (sizes.size() > kMaxRank) {
    error = llvm::formatv("{0} has rank {1} and its views do not merge to "
                          "rank {2} or less; the ISA has ranks 1 to {2}",
                          describeOp(op), shape.size(), kMaxRank);
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// One instruction's words.
//===----------------------------------------------------------------------===//

/// The words of one instruction, its operands checked against their
/// fields' widths as they are appended.
class Words {
public:
  explicit Words(uint32_t opcode, llvm::StringRef name)
      : opcode(opcode), name(name) {
    words.push_back(0); // the header, set by finish()
  }

  // The checks below format a message only when a value does not fit: an
  // operand is appended a few million times in a large model.

  /// `value` as field `what` (`what[index]` with an index).
  void u32(int64_t value, llvm::StringRef what, int64_t index = -1) {
    if (value < 0 || value > 0xFFFFFFFFll)
      fail(llvm::formatv("{0}.{1} = {2} does not fit in u32", name,
                         field(what, index), value));
    words.push_back(static_cast<uint32_t>(value));
  }
  void i32(int64_t value, llvm::StringRef what, int64_t index = -1) {
    if (value < INT32_MIN || value > INT32_MAX)
      fail(llvm::formatv("{0}.{1} = {2} does not fit in i32", name,
                         field(what, index), value));
    words.push_back(static_cast<uint32_t>(value));
  }
  void f32(FloatAttr attr) {
    words.push_back(static_cast<uint32_t>(
        attr.getValue().bitcastToAPInt().getZExtValue()));
  }
  void sizes(ArrayRef<int64_t> sizes) {
    u32(sizes.size(), "rank");
    for (auto [i, n] : llvm::enumerate(sizes))
      u32(n, "sizes", i);
  }
  /// A view: its base (two words), then its strides.
  void view(int64_t base, ArrayRef<int64_t> strides, llvm::StringRef what) {
    if (base < 0)
      fail(llvm::formatv("{0}.{1}.base = {2} must be a u64", name, what, base));
    words.push_back(static_cast<uint32_t>(base));
    words.push_back(static_cast<uint32_t>(static_cast<uint64_t>(base) >> 32));
    for (auto [i, s] : llvm::enumerate(strides)) {
      if (s < INT32_MIN || s > INT32_MAX)
        fail(llvm::formatv("{0}.{1}.strides[{2}] = {3} does not fit in i32",
                           name, what, i, s));
      words.push_back(static_cast<uint32_t>(s));
    }
  }
  void endpoint(const Ref &ref, ArrayRef<int64_t> strides,
                llvm::StringRef what) {
    words.push_back(ref.place.dram ? kDramEndpoint : kSramEndpoint);
    words.push_back(ref.place.row);
    words.push_back(ref.place.col);
    view(ref.base, strides, what);
  }
  void push(uint32_t word) { words.push_back(word); }
  size_t size() const { return words.size(); }

  /// Sets the header; the message of the first operand that did not fit,
  /// if one did not.
  std::optional<std::string> finish(uint32_t tag) {
    if (!error && words.size() > kMaxWords)
      fail(llvm::formatv("{0}: {1} words do not fit the 8-bit length", name,
                         words.size()));
    if (error)
      return error;
    words[0] = opcode | (static_cast<uint32_t>(words.size()) << 8) | (tag << 16);
    return std::nullopt;
  }
  ArrayRef<uint32_t> get() const { return words; }

private:
  static std::string field(llvm::StringRef what, int64_t index) {
    return index < 0 ? what.str() : llvm::formatv("{0}[{1}]", what, index).str();
  }
  void fail(std::string message) {
    if (!error)
      error = std::move(message);
  }

  uint32_t opcode;
  llvm::StringRef name;
  SmallVector<uint32_t, 32> words;
  std::optional<std::string> error;
};

//===----------------------------------------------------------------------===//
// The encoder.
//===----------------------------------------------------------------------===//

class Encoder {
public:
  explicit Encoder(DeviceOp device) : device(device) {}

  llvm::Expected<InstructionStreams> run();

private:
  struct TileState {
    TileStream result;
    SmallVector<uint32_t> words;
    uint32_t count = 0;
  };

  /// The tile a buffer, semaphore or core is on.
  static std::pair<uint32_t, uint32_t> tileOf(Value tile) {
    auto op = tile.getDefiningOp<TileOp>();
    return {op.getRow(), op.getCol()};
  }
  TileState &tile(std::pair<uint32_t, uint32_t> rc) {
    TileState &state = tiles[rc];
    state.result.row = rc.first;
    state.result.col = rc.second;
    return state;
  }

  LogicalResult declare(Operation &op);
  LogicalResult encodeCore(CoreOp core);
  LogicalResult encode(Operation *op, TileState &tile, uint32_t tag,
                       llvm::DenseMap<Operation *, uint32_t> &pending);

  FailureOr<Place> place(Value value, Operation *user, llvm::StringRef what);
  FailureOr<Ref> ref(Value value, Operation *user, llvm::StringRef what);
  /// Operands `first, ..` of `op`, each a view of `tile`'s own SRAM.
  LogicalResult local(Operation *op, const TileState &tile,
                      ArrayRef<llvm::StringLiteral> names,
                      SmallVectorImpl<Ref> &refs, unsigned first = 0);
  /// A vector instruction over operands of one shape (`names`, views of
  /// the tile's SRAM): `fields` appends the words before `sizes`, then the
  /// shape folded to rank 4 and one view per operand (`viewNames`).
  LogicalResult elementwise(Operation *op, TileState &tile, uint32_t tag,
                            uint32_t opcode, llvm::StringRef isaName,
                            ArrayRef<llvm::StringLiteral> names,
                            ArrayRef<llvm::StringLiteral> viewNames,
                            llvm::function_ref<void(Words &, ArrayRef<Ref>)> fields);
  FailureOr<uint32_t> decision(Operation *op, std::optional<uint32_t> value,
                               llvm::StringRef attribute, llvm::StringRef what,
                               llvm::StringRef pass);
  /// The tag of `op`'s source location, numbered by first appearance, or
  /// kNoTag for an unknown location.
  FailureOr<uint32_t> tag(Operation *op);
  LogicalResult append(TileState &tile, Words &words, uint32_t tag);

  LogicalResult fail(std::string message) {
    error = std::move(message);
    return failure();
  }

  DeviceOp device;
  std::map<std::pair<uint32_t, uint32_t>, TileState> tiles;
  llvm::DenseMap<Value, Place> places;
  llvm::DenseMap<Operation *, uint32_t> semaphoreIds;
  llvm::DenseMap<Location, uint32_t> tagOfLocation;
  SmallVector<SourceTag> tags;
  std::string error;
};

llvm::Expected<InstructionStreams> Encoder::run() {
  Block &body = device.getBody().front();
  for (Operation &op : body)
    if (failed(declare(op)))
      return llvm::createStringError(error);
  for (CoreOp core : body.getOps<CoreOp>())
    if (failed(encodeCore(core)))
      return llvm::createStringError(error);

  InstructionStreams streams;
  for (auto &[rc, state] : tiles) {
    std::string &stream = state.result.stream;
    stream.reserve(16 + 4 * state.words.size());
    stream.append(kMagic, sizeof(kMagic));
    char header[12];
    llvm::support::endian::write16le(header, kVersion);
    llvm::support::endian::write16le(header + 2, 0);
    llvm::support::endian::write32le(header + 4, state.count);
    llvm::support::endian::write32le(header + 8, state.words.size());
    stream.append(header, sizeof(header));
    for (uint32_t word : state.words) {
      char bytes[4];
      llvm::support::endian::write32le(bytes, word);
      stream.append(bytes, 4);
    }
    state.result.instructions = state.count;
    streams.tiles.push_back(std::move(state.result));
  }
  streams.tags = std::move(tags);
  return streams;
}

LogicalResult Encoder::declare(Operation &op) {
  if (auto buffer = dyn_cast<BufferOp>(op)) {
    if (!buffer.getAddress())
      return fail(llvm::formatv("SRAM buffer @{0}{1} has no address ('at'); "
                                "run SRAM allocation first",
                                buffer.getSymName(), describeWhere(buffer)));
    auto [row, col] = tileOf(buffer.getTile());
    places[buffer.getResult()] = {false, row, col,
                                  static_cast<int64_t>(*buffer.getAddress())};
    return success();
  }
  if (auto buffer = dyn_cast<DramBufferOp>(op)) {
    if (!buffer.getAddress())
      return fail(llvm::formatv("DRAM buffer @{0}{1} has no address ('at'); "
                                "run tessel-assign-dram-addresses",
                                buffer.getSymName(), describeWhere(buffer)));
    places[buffer.getResult()] = {true, 0, 0,
                                  static_cast<int64_t>(*buffer.getAddress())};
    return success();
  }
  if (auto semaphore = dyn_cast<SemaphoreOp>(op)) {
    FailureOr<uint32_t> id =
        decision(semaphore, semaphore.getId(), "id",
                 "its index among the tile's semaphores",
                 "tessel-assign-semaphore-ids");
    if (failed(id))
      return failure();
    SmallVector<uint32_t> &inits = tile(tileOf(semaphore.getTile())).result.semaphores;
    if (inits.size() <= *id)
      inits.resize(*id + 1, 0); // ids the tile does not use start at 0
    inits[*id] = semaphore.getInit();
    semaphoreIds[semaphore] = *id;
    return success();
  }
  // Constants: canonicalization hoists the cores' constants to the device,
  // the nearest region isolated from above. Reshapes: an output returned
  // reshaped is viewed here in the shape the program computes it in.
  if (isa<CoreOp, TileOp, arith::ConstantOp, memref::ExpandShapeOp,
          memref::CollapseShapeOp>(op))
    return success();
  return fail("unexpected op " + describeOp(&op) + " in the tessel.device");
}

FailureOr<uint32_t> Encoder::decision(Operation *op,
                                      std::optional<uint32_t> value,
                                      llvm::StringRef attribute,
                                      llvm::StringRef what,
                                      llvm::StringRef pass) {
  if (!value) {
    (void)fail(llvm::formatv("{0} has no {1} ({2}); run {3}", describeOp(op),
                             attribute, what, pass));
    return failure();
  }
  return *value;
}

FailureOr<Place> Encoder::place(Value value, Operation *user,
                                llvm::StringRef what) {
  auto found = places.find(value);
  if (found != places.end())
    return found->second;
  Operation *view = value.getDefiningOp();
  if (!view) {
    (void)fail(llvm::formatv("operand '{0}' of {1} is not a view of a "
                             "tessel.buffer or tessel.dram_buffer",
                             what, describeOp(user)));
    return failure();
  }
  if (!isViewOp(view)) {
    (void)fail(llvm::formatv("operand '{0}' of {1} comes from {2}, not from a "
                             "view of a tessel.buffer or tessel.dram_buffer",
                             what, describeOp(user), describeOp(view)));
    return failure();
  }
  FailureOr<Place> source = place(view->getOperand(0), user, what);
  if (failed(source))
    return failure();
  Place result = *source;
  if (auto byteView = dyn_cast<memref::ViewOp>(view)) {
    std::optional<int64_t> shift = getConstantIntValue(byteView.getByteShift());
    if (!shift) {
      (void)fail(llvm::formatv("the byte shift of {0} (operand '{1}' of {2}) "
                               "is not an arith.constant: views must be "
                               "static after unrolling",
                               describeOp(view), what, describeOp(user)));
      return failure();
    }
    result.address += *shift;
  }
  places[value] = result;
  return result;
}

FailureOr<Ref> Encoder::ref(Value value, Operation *user,
                            llvm::StringRef what) {
  FailureOr<Place> where = place(value, user, what);
  if (failed(where))
    return failure();
  auto type = cast<MemRefType>(value.getType());
  Ref r;
  r.place = *where;
  int64_t offset;
  if (failed(getStridesAndOffset(type, r.strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(r.strides, ShapedType::isDynamic)) {
    std::string source;
    if (Operation *maker = value.getDefiningOp(); maker && isViewOp(maker))
      source = " (made by " + describeOp(maker) + ")";
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    type.print(os);
    (void)fail(llvm::formatv("operand '{0}' of {1}{2} has a dynamic offset or "
                             "stride ({3}): views must be static after "
                             "unrolling",
                             what, describeOp(user), source, typeText));
    return failure();
  }
  std::optional<uint32_t> dtype = getDtypeCode(type.getElementType());
  if (!dtype) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    type.getElementType().print(os);
    (void)fail(llvm::formatv("operand '{0}' of {1} has element type {2}; the "
                             "ISA has f32, f16, bf16, i8, i32, i64",
                             what, describeOp(user), typeText));
    return failure();
  }
  r.dtype = *dtype;
  r.base = where->address + offset * (type.getElementTypeBitWidth() / 8);
  r.shape.assign(type.getShape().begin(), type.getShape().end());
  return r;
}

LogicalResult Encoder::local(Operation *op, const TileState &tile,
                             ArrayRef<llvm::StringLiteral> names,
                             SmallVectorImpl<Ref> &refs, unsigned first) {
  for (auto [i, name] : llvm::enumerate(names)) {
    FailureOr<Ref> r = ref(op->getOperand(first + i), op, name);
    if (failed(r))
      return failure();
    refs.push_back(*r);
  }
  for (auto [r, name] : llvm::zip(refs, names))
    if (r.place.dram || r.place.row != tile.result.row ||
        r.place.col != tile.result.col)
      return fail(llvm::formatv("operand '{0}' of {1} is not in the SRAM of "
                                "the core's tile ({2}, {3})",
                                name, describeOp(op), tile.result.row,
                                tile.result.col));
  return success();
}

FailureOr<uint32_t> Encoder::tag(Operation *op) {
  Location loc = op->getLoc();
  auto found = tagOfLocation.find(loc);
  if (found != tagOfLocation.end())
    return found->second;
  uint32_t id = kNoTag;
  if (std::optional<SourceTag> described = describeLocation(loc)) {
    if (tags.size() >= kNoTag) {
      (void)fail(llvm::formatv("{0}: the program's {1}th source tag; tag ids "
                               "must be below {1}",
                               describeOp(op), kNoTag));
      return failure();
    }
    id = tags.size();
    tags.push_back(std::move(*described));
  }
  tagOfLocation[loc] = id;
  return id;
}

LogicalResult Encoder::append(TileState &tile, Words &words, uint32_t tag) {
  if (std::optional<std::string> message = words.finish(tag))
    return fail(*message);
  llvm::append_range(tile.words, words.get());
  ++tile.count;
  return success();
}

LogicalResult Encoder::elementwise(
    Operation *op, TileState &tile, uint32_t tag, uint32_t opcode,
    llvm::StringRef isaName, ArrayRef<llvm::StringLiteral> names,
    ArrayRef<llvm::StringLiteral> viewNames,
    llvm::function_ref<void(Words &, ArrayRef<Ref>)> fields) {
  SmallVector<Ref> refs;
  if (failed(local(op, tile, names, refs)))
    return failure();
  SmallVector<SmallVector<int64_t, 4>, 4> strides;
  for (const Ref &r : refs)
    strides.push_back(r.strides);
  SmallVector<int64_t, 4> sizes;
  if (failed(fitRank(op, refs[0].shape, strides, sizes, error)))
    return failure();
  Words w(opcode, isaName);
  fields(w, refs);
  w.sizes(sizes);
  for (auto [r, view, name] : llvm::zip(refs, strides, viewNames))
    w.view(r.base, view, name);
  return append(tile, w, tag);
}

LogicalResult Encoder::encodeCore(CoreOp core) {
  TileState &state = tile(tileOf(core.getTile()));
  llvm::DenseMap<Operation *, uint32_t> pending; // transfer -> its slot
  for (Operation &op : core.getBody().front()) {
    if (isViewOp(&op) || isa<arith::ConstantOp, EndOp, FenceOp>(op))
      continue;
    // Tagged before it is encoded, as a wait that emits nothing is too.
    FailureOr<uint32_t> id = tag(&op);
    if (failed(id) || failed(encode(&op, state, *id, pending)))
      return failure();
  }
  return success();
}

LogicalResult Encoder::encode(Operation *op, TileState &tile, uint32_t tag,
                              llvm::DenseMap<Operation *, uint32_t> &pending) {
  using Strides = SmallVector<SmallVector<int64_t, 4>, 4>;
  // The words a transfer starts with: its channel, its token slot (pending
  // from now until a wait on it), its element type and its sizes, `shape`
  // folded to rank 4 with the strides of each end.
  auto transferHead = [&](Words &w, ArrayRef<int64_t> shape, Strides &strides,
                          uint32_t dtype) -> LogicalResult {
    FailureOr<uint32_t> channel =
        decision(op, getTransferChannel(op), "channel", "its DMA channel",
                 "tessel-assign-dma-channels");
    if (failed(channel))
      return failure();
    SmallVector<int64_t, 4> sizes;
    if (failed(fitRank(op, shape, strides, sizes, error)))
      return failure();
    FailureOr<uint32_t> slot = decision(op, getTransferSlot(op), "slot",
                                        "its token slot", "tessel-assign-dma-slots");
    if (failed(slot))
      return failure();
    pending[op] = *slot;
    tile.result.tokens = std::max(tile.result.tokens, *slot + 1);
    w.push(*channel);
    w.push(*slot);
    w.push(dtype);
    w.sizes(sizes);
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](DmaOp dma) -> LogicalResult {
        FailureOr<Ref> src = ref(dma.getSource(), op, "source");
        if (failed(src))
          return failure();
        FailureOr<Ref> dst = ref(dma.getTarget(), op, "target");
        if (failed(dst))
          return failure();
        Strides strides{src->strides, dst->strides};
        Words w(kDma, "dma");
        if (failed(transferHead(w, src->shape, strides, src->dtype)))
          return failure();
        w.endpoint(*src, strides[0], "src");
        w.endpoint(*dst, strides[1], "dst");
        return append(tile, w, tag);
      })
      .Case([&](DmaMulticastOp multicast) -> LogicalResult {
        // Its credits first, each a wait of its DMA channel.
        if (!multicast.getCredits().empty()) {
          FailureOr<uint32_t> channel =
              decision(op, getTransferChannel(op), "channel", "its DMA channel",
                       "tessel-assign-dma-channels");
          if (failed(channel))
            return failure();
          for (Value credit : multicast.getCredits()) {
            Words gate(kDmaWaitSemaphore, "dma_wait_semaphore");
            gate.push(*channel);
            gate.push(semaphoreIds.lookup(credit.getDefiningOp<SemaphoreOp>()));
            gate.push(1);
            if (failed(append(tile, gate, tag)))
              return failure();
          }
        }
        FailureOr<Ref> src = ref(multicast.getSource(), op, "source");
        if (failed(src))
          return failure();
        SmallVector<Ref> dsts;
        for (auto [i, target] : llvm::enumerate(multicast.getTargets())) {
          FailureOr<Ref> dst =
              ref(target, op, llvm::formatv("target #{0}", i).str());
          if (failed(dst))
            return failure();
          if (dst->place.dram)
            return fail(llvm::formatv("target #{0} of {1} is in DRAM: every "
                                      "target of a multicast is an SRAM",
                                      i, describeOp(op)));
          dsts.push_back(*dst);
        }
        Strides strides{src->strides};
        for (const Ref &dst : dsts)
          strides.push_back(dst.strides);
        Words w(kDmaMulticast, "dma_multicast");
        if (failed(transferHead(w, src->shape, strides, src->dtype)))
          return failure();
        for (unsigned i = 2; i < strides.size(); ++i)
          if (strides[i] != strides[1]) {
            std::string listed;
            for (unsigned j = 1; j < strides.size(); ++j)
              listed += (j > 1 ? ", [" : "[") +
                        llvm::join(llvm::map_range(strides[j],
                                                   [](int64_t s) {
                                                     return std::to_string(s);
                                                   }),
                                   ", ") +
                        "]";
            return fail(llvm::formatv(
                "the targets of {0} have different strides ({1}); the ISA's "
                "multicast writes every target with the same strides",
                describeOp(op), listed));
          }
        w.endpoint(*src, strides[0], "src");
        // The targets' strides once, then each target's tile and base.
        SmallVector<int64_t, 4> shared =
            dsts.empty() ? SmallVector<int64_t, 4>(strides[0].size(), 0)
                         : strides[1];
        for (auto [i, s] : llvm::enumerate(shared))
          w.i32(s, "dsts.strides", i);
        w.push(dsts.size());
        for (const Ref &dst : dsts) {
          w.push(dst.place.row);
          w.push(dst.place.col);
          w.view(dst.base, {}, "dsts");
        }
        if (w.size() > kMaxWords) {
          int64_t over = w.size() - kMaxWords;
          int64_t fit = static_cast<int64_t>(dsts.size()) - (over + 3) / 4;
          if (fit >= 1)
            return fail(llvm::formatv(
                "dma_multicast.dsts: {0} destinations make the instruction {1} "
                "words long, more than the 255 its 8-bit length allows; at "
                "most {2} fit",
                dsts.size(), w.size(), fit));
        }
        return append(tile, w, tag);
      })
      .Case([&](DmaGatherOp gather) -> LogicalResult {
        FailureOr<Ref> table = ref(gather.getTable(), op, "table");
        if (failed(table))
          return failure();
        SmallVector<Ref> refs;
        if (failed(local(op, tile, {"indices", "target"}, refs, 1)))
          return failure();
        if (!table->place.dram)
          return fail("the table of " + describeOp(op) + " is not in DRAM");
        Strides strides{table->strides, refs[0].strides, refs[1].strides};
        Words w(kDmaGather, "dma_gather");
        if (failed(transferHead(w, table->shape, strides, table->dtype)))
          return failure();
        w.push(refs[0].dtype);
        w.i32(gather.getIndexStride(), "index_stride");
        w.u32(gather.getRows(), "rows");
        w.push(gather.getWrap() ? 1 : 0);
        w.view(table->base, strides[0], "table");
        w.view(refs[0].base, strides[1], "index");
        w.view(refs[1].base, strides[2], "dst");
        return append(tile, w, tag);
      })
      .Case([&](WaitOp wait) -> LogicalResult {
        SmallVector<uint32_t> slots;
        for (Value token : wait.getTokens()) {
          // A token already waited for has completed: nothing to wait for.
          auto found = pending.find(token.getDefiningOp());
          if (found == pending.end())
            continue;
          slots.push_back(found->second);
          pending.erase(found);
        }
        if (slots.empty())
          return success();
        Words w(kWait, "wait");
        w.push(slots.size());
        for (uint32_t slot : slots)
          w.push(slot);
        return append(tile, w, tag);
      })
      .Case([&](SignalOp signal) -> LogicalResult {
        auto semaphore = signal.getSemaphore().getDefiningOp<SemaphoreOp>();
        auto [row, col] = tileOf(semaphore.getTile());
        Words w(kSignal, "signal");
        w.push(row);
        w.push(col);
        w.push(semaphoreIds.lookup(semaphore));
        w.push(signal.getCount());
        return append(tile, w, tag);
      })
      .Case([&](WaitSemaphoreOp wait) -> LogicalResult {
        auto semaphore = wait.getSemaphore().getDefiningOp<SemaphoreOp>();
        Words w(kWaitSemaphore, "wait_semaphore");
        w.push(semaphoreIds.lookup(semaphore));
        w.push(wait.getCount());
        return append(tile, w, tag);
      })
      .Case([&](MatmulOp matmul) -> LogicalResult {
        SmallVector<Ref> refs;
        if (failed(local(op, tile, {"lhs", "rhs", "acc"}, refs)))
          return failure();
        const Ref &lhs = refs[0], &rhs = refs[1], &acc = refs[2];
        // A 3-D lhs and acc: groups of rows; a 2-D one is one group.
        auto rowsView = [](const Ref &r) {
          SmallVector<int64_t, 4> strides(r.strides);
          if (strides.size() == 2)
            strides.insert(strides.begin(), 0);
          return strides;
        };
        size_t rank = lhs.shape.size();
        Words w(matmul.getInit() ? kMatmulInit : kMatmul,
                matmul.getInit() ? "matmul_init" : "matmul");
        w.push(lhs.dtype);
        w.u32(rank == 3 ? lhs.shape[0] : 1, "g");
        w.u32(lhs.shape[rank - 2], "m");
        w.u32(lhs.shape[rank - 1], "k");
        w.u32(rhs.shape[1], "n");
        w.view(lhs.base, rowsView(lhs), "lhs");
        w.view(rhs.base, rhs.strides, "rhs");
        w.view(acc.base, rowsView(acc), "acc");
        return append(tile, w, tag);
      })
      .Case([&](VectorUnaryOp unary) {
        return elementwise(op, tile, tag, kVectorUnary, "vector_unary",
                           {"input", "result"}, {"in", "out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(static_cast<uint32_t>(unary.getKind()));
                             w.push(refs[0].dtype);
                             w.push(refs[1].dtype);
                           });
      })
      .Case([&](VectorBinaryOp binary) {
        return elementwise(op, tile, tag, kVectorBinary, "vector_binary",
                           {"lhs", "rhs", "result"}, {"lhs", "rhs", "out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(static_cast<uint32_t>(binary.getKind()));
                             w.push(refs[0].dtype);
                           });
      })
      .Case([&](VectorBinaryImmOp binary) {
        return elementwise(op, tile, tag, kVectorBinaryImm, "vector_binary_imm",
                           {"input", "result"}, {"in", "out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(static_cast<uint32_t>(binary.getKind()));
                             w.push(refs[0].dtype);
                             w.f32(binary.getImmAttr());
                             w.push(binary.getImmLhs() ? 1 : 0);
                           });
      })
      .Case([&](VectorFillOp fill) {
        return elementwise(op, tile, tag, kVectorFill, "vector_fill",
                           {"result"}, {"out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(refs[0].dtype);
                             w.f32(fill.getValueAttr());
                           });
      })
      .Case([&](VectorCompareOp compare) {
        return elementwise(op, tile, tag, kVectorCompare, "vector_compare",
                           {"lhs", "rhs", "result"}, {"lhs", "rhs", "out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(static_cast<uint32_t>(compare.getPredicate()));
                             w.push(refs[0].dtype);
                           });
      })
      .Case([&](VectorSelectOp) {
        return elementwise(op, tile, tag, kVectorSelect, "vector_select",
                           {"cond", "lhs", "rhs", "result"},
                           {"cond", "lhs", "rhs", "out"},
                           [&](Words &w, ArrayRef<Ref> refs) {
                             w.push(refs[1].dtype);
                           });
      })
      .Case([&](VectorReduceOp reduce) -> LogicalResult {
        SmallVector<Ref> refs;
        if (failed(local(op, tile, {"input", "result"}, refs)))
          return failure();
        const Ref &in = refs[0], &out = refs[1];
        int64_t dim = reduce.getDim();
        SmallVector<int64_t, 4> shape(in.shape), inStrides(in.strides),
            outStrides(out.strides);
        if (shape.size() > kMaxRank) {
          // Unit dimensions other than the reduced one address nothing (a
          // 3-D convolution's image batch of 1): dropped.
          SmallVector<int64_t, 4> keptShape, keptIn, keptOut;
          int64_t keptDim = 0;
          for (auto [i, n] : llvm::enumerate(in.shape)) {
            int64_t d = static_cast<int64_t>(i);
            if (n == 1 && d != dim)
              continue;
            if (d == dim)
              keptDim = keptShape.size();
            else
              keptOut.push_back(out.strides[d - (d > dim)]);
            keptShape.push_back(n);
            keptIn.push_back(in.strides[i]);
          }
          shape = std::move(keptShape);
          inStrides = std::move(keptIn);
          outStrides = std::move(keptOut);
          dim = keptDim;
        }
        if (shape.empty() || shape.size() > kMaxRank)
          return fail(llvm::formatv("{0} reduces a rank-{1} memref; the ISA "
                                    "has ranks 1 to {2}",
                                    describeOp(op), in.shape.size(), kMaxRank));
        Words w(kVectorReduce, "vector_reduce");
        w.push(static_cast<uint32_t>(reduce.getKind()));
        w.push(in.dtype);
        w.sizes(shape);
        w.u32(dim, "dim");
        w.view(in.base, inStrides, "in");
        w.view(out.base, outStrides, "out");
        return append(tile, w, tag);
      })
      .Default([&](Operation *other) -> LogicalResult {
        return fail(llvm::formatv(
            "the emitter does not know {0} in the core of tile ({1}, {2})",
            describeOp(other), tile.result.row, tile.result.col));
      });
}

} // namespace

std::optional<SourceTag> describeLocation(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    std::optional<SourceTag> child = describeLocation(named.getChildLoc());
    return SourceTag{named.getName().str(), child ? child->loc : ""};
  }
  if (auto file = dyn_cast<FileLineColRange>(loc)) {
    std::string text = llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                                     file.getStartLine(), file.getStartColumn());
    return SourceTag{text, text};
  }
  if (isa<CallSiteLoc>(loc)) {
    SmallVector<Location> frames;
    collectCallFrames(loc, frames);
    std::optional<SourceTag> first;
    for (Location frame : frames) {
      std::optional<SourceTag> described = describeLocation(frame);
      if (!described)
        continue;
      bool library = llvm::any_of(kLibraryPaths, [&](llvm::StringRef part) {
        return llvm::StringRef(described->loc).contains(part);
      });
      if (!library)
        return described;
      if (!first)
        first = std::move(described);
    }
    return first;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::optional<std::string> name, position;
    std::optional<SourceTag> firstPart;
    for (Location part : fused.getLocations()) {
      std::optional<SourceTag> described = describeLocation(part);
      if (!described)
        continue;
      if (!firstPart)
        firstPart = described;
      if (!position && !described->loc.empty())
        position = described->loc;
    }
    if (!firstPart)
      return std::nullopt;
    for (Location part : fused.getLocations())
      if (auto named = dyn_cast<NameLoc>(part)) {
        name = named.getName().str();
        break;
      }
    return SourceTag{name ? *name : firstPart->name, position.value_or("")};
  }
  return std::nullopt;
}

llvm::Expected<InstructionStreams> encodeInstructionStreams(DeviceOp device) {
  return Encoder(device).run();
}

} // namespace mlir::tessel
