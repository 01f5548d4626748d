//===- ConvertToDevice.cpp - A function's parts become per-tile cores -----===//
//
// The bufferized function runs its partitioned ops in program order; each
// part of each op runs on the tile its mapping names. This pass makes that
// explicit: a tessel.device with the function's DRAM buffers, and per tile a
// core holding, in program order, the parts that run there, step loops
// unrolled into straight-line code.
//
// Tiles synchronize only where data flows through DRAM: an op waits for the
// ops that last wrote what it reads or writes and for those that read what
// it overwrites, not for every op before it. Ops on disjoint tiles with no
// data between them run at the same time, which is what lets pipeline
// stages overlap when the program computes a stream of inputs. Resident
// weights (tessel-promote-to-sram) are loaded by the first input's parts and
// freed by the last's; the inputs between read them where they are.
//
// The result of an op mapped `on_chip` stays in its tiles' SRAM
// (tessel-keep-on-chip). Its buffers are marked, and each tile of the op
// gets a release fence where it may free its slices: placed as an op that
// overwrites the buffer would be, after every op that reads it.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"
#include <functional>
#include <map>
#include <set>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCONVERTTODEVICE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

using Coord = std::pair<int64_t, int64_t>;

/// One tile's program under construction.
struct TileProgram {
  TileOp tile;
  CoreOp core;

  Block &block() { return core.getBody().front(); }
};

/// The DRAM buffers that one input of the stream sees.
struct StreamCopy {
  /// Function values (arguments, allocations, globals, reshapes of them) as
  /// the cores see them.
  IRMapping views;
  /// The device buffer under each function-level buffer: what dependences
  /// are tracked on.
  DenseMap<Value, Value> buffers;
};

/// The SRAM buffers of resident weights placed so far, by their allocation
/// in the function and the part: every input of a stream after the first
/// reads the first input's.
using ResidentBuffers = DenseMap<std::pair<Operation *, int64_t>, Value>;

/// The function-level buffers a partitioned op reads and writes.
struct Access {
  SmallVector<Value> reads, writes;
};

/// A partitioned op placed on its tiles for one input of the stream.
struct PlacedOp {
  /// Its tiles, in part order: the first collects the others' completion.
  SmallVector<Coord> tiles;
  /// Per tile, the last op placed for it in the tile's core (null: the start
  /// of the core): where the signals saying it is done go.
  std::map<Coord, Operation *> done;
  /// The semaphore on the first tile counting the tiles that are done,
  /// made when a later op first depends on this one.
  Value arrived;
  /// Every placed op this one waits for, directly or through others.
  llvm::BitVector ancestors;
};

/// The placed ops each placed op must wait for, from the DRAM buffers they
/// touch: the last writer of a buffer it reads or writes, and the readers of
/// a buffer since its last write, if it writes it.
class Dependences {
public:
  /// Records that placed op `index` has `access`, its function-level
  /// buffers seen through `buffers`; returns the earlier ops it depends on.
  SmallVector<unsigned> record(unsigned index, const Access &access,
                               const DenseMap<Value, Value> &buffers) {
    SmallVector<unsigned> deps;
    auto depend = [&](unsigned earlier) {
      if (!llvm::is_contained(deps, earlier))
        deps.push_back(earlier);
    };
    for (Value root : access.reads)
      if (Value buffer = buffers.lookup(root))
        if (auto it = lastWriter.find(buffer); it != lastWriter.end())
          depend(it->second);
    for (Value root : access.writes)
      if (Value buffer = buffers.lookup(root)) {
        if (auto it = lastWriter.find(buffer); it != lastWriter.end())
          depend(it->second);
        for (unsigned reader : readers.lookup(buffer))
          depend(reader);
      }
    for (Value root : access.reads)
      if (Value buffer = buffers.lookup(root))
        readers[buffer].push_back(index);
    for (Value root : access.writes)
      if (Value buffer = buffers.lookup(root)) {
        lastWriter[buffer] = index;
        readers[buffer].clear();
      }
    return deps;
  }

private:
  DenseMap<Value, unsigned> lastWriter;
  DenseMap<Value, SmallVector<unsigned>> readers;
};

/// The result of an op mapped `on_chip`: its buffer in the function, the op
/// that writes it and the last op that reads it (indices into the
/// partitioned ops; the writer itself where none reads it).
struct OnChipResult {
  Value buffer;
  unsigned writer, lastReader;
};

/// The DRAM buffers of the function that `forall` reads and writes. An op
/// whose effects are unknown, or on memory it does not name, is taken to
/// read and write every buffer it names.
Access getAccess(scf::ForallOp forall) {
  Access access;
  Region *funcBody = forall->getParentRegion();
  auto record = [&](SmallVectorImpl<Value> &list, Value value) {
    // The buffer a view is a view of.
    auto memref = dyn_cast<TypedValue<BaseMemRefType>>(value);
    Value root = memref ? getViewRoot(memref) : value;
    if (root.getParentRegion() == funcBody && !llvm::is_contained(list, root))
      list.push_back(root);
  };
  forall.getBody()->walk([&](Operation *op) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      // An effect on no value in particular could touch any buffer.
      bool known = llvm::all_of(instances, [](auto &instance) {
        return instance.getValue() ||
               !isa<MemoryEffects::Read, MemoryEffects::Write>(
                   instance.getEffect());
      });
      for (MemoryEffects::EffectInstance &instance : instances) {
        Value value = instance.getValue();
        if (!known || !value || !isa<MemRefType>(value.getType()))
          continue;
        if (isa<MemoryEffects::Read>(instance.getEffect()))
          record(access.reads, value);
        else if (isa<MemoryEffects::Write>(instance.getEffect()))
          record(access.writes, value);
      }
      if (known)
        return;
    } else if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      return;
    }
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType())) {
        record(access.reads, operand);
        record(access.writes, operand);
      }
  });
  return access;
}

/// `name` for copy `index` of `count` copies of a buffer.
std::string getCopyName(StringRef name, int64_t index, int64_t count) {
  if (count == 1)
    return name.str();
  return (name + "[" + Twine(index) + "]").str();
}

/// Inserts `OpTy` after `cursor` in `block` (at its start if null) and moves
/// the cursor to it.
template <typename OpTy, typename... Args>
void appendAfter(Operation *&cursor, Block &block, Location loc,
                 Args &&...args) {
  OpBuilder builder(block.getParent()->getContext());
  if (cursor)
    builder.setInsertionPointAfter(cursor);
  else
    builder.setInsertionPointToStart(&block);
  cursor = OpTy::create(builder, loc, std::forward<Args>(args)...);
}

/// The forall iterations of `forall`, each with its induction values and the
/// index of the part it computes (row-major over the forall's dimensions,
/// which are the mapping's split loops in order).
FailureOr<SmallVector<SmallVector<int64_t>>>
getIterations(scf::ForallOp forall) {
  ArrayRef<int64_t> lbs = forall.getStaticLowerBound();
  ArrayRef<int64_t> ubs = forall.getStaticUpperBound();
  ArrayRef<int64_t> steps = forall.getStaticStep();
  auto isDynamic = [](ArrayRef<int64_t> values) {
    return llvm::any_of(values, ShapedType::isDynamic);
  };
  if (isDynamic(lbs) || isDynamic(ubs) || isDynamic(steps))
    return forall.emitOpError("must have static bounds to be placed on tiles");
  if (llvm::any_of(steps, [](int64_t step) { return step < 1; }))
    return forall.emitOpError("must have positive steps to be placed on tiles");
  SmallVector<SmallVector<int64_t>> iterations = {{}};
  for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &prefix : iterations)
      for (int64_t iv = lb; iv < ub; iv += step) {
        next.push_back(prefix);
        next.back().push_back(iv);
      }
    iterations = std::move(next);
  }
  // Part i runs on the tile the partition gives part i: one iteration each.
  auto mapping =
      cast<MappingAttr>(forall->getAttr(TesselDialect::getPartitionAttrName()));
  int64_t parts = 1;
  for (int64_t count : mapping.getParts())
    parts *= count;
  if (static_cast<int64_t>(iterations.size()) != parts)
    return forall.emitOpError()
           << "has " << iterations.size() << " iterations, but its "
           << TesselDialect::getPartitionAttrName() << " has " << parts
           << " parts; each iteration is one part (run tessel-partition to "
              "split an op)";
  return iterations;
}

struct ConvertToDevice : impl::TesselConvertToDeviceBase<ConvertToDevice> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (stream < 1) {
      module.emitError() << "tessel-convert-to-device: stream must be at "
                            "least 1 input, got "
                         << stream;
      return signalPassFailure();
    }
    ArchAttr arch = lookupArchOrError(module);
    if (!arch)
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs =
        llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() != 1) {
      module.emitError() << "expected one function to place on the chip, got "
                         << funcs.size();
      return signalPassFailure();
    }
    if (failed(convert(funcs.front(), arch)))
      return signalPassFailure();
  }

  LogicalResult convert(func::FuncOp func, ArchAttr arch) {
    Location loc = func.getLoc();
    OpBuilder builder(func);
    auto device = DeviceOp::create(builder, loc, func.getSymName(), arch);
    Block &body = device.getBody().front();
    builder.setInsertionPointToStart(&body);

    SmallVector<scf::ForallOp> parts;
    for (Operation &op : func.getBody().front()) {
      auto forall = dyn_cast<scf::ForallOp>(op);
      if (forall && forall->hasAttr(TesselDialect::getPartitionAttrName())) {
        parts.push_back(forall);
        continue;
      }
      // Constants and views of DRAM buffers (reshapes, slices) carry no
      // work: the cores that use them get their own copies.
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
              func::ReturnOp, arith::ConstantOp, ViewLikeOpInterface,
              memref::TransposeOp>(op))
        continue;
      return op.emitOpError()
             << "is outside any partitioned op; run tessel-partition first";
    }
    if (failed(checkStages(parts)))
      return failure();
    SmallVector<Access> accesses =
        llvm::map_to_vector(parts, [](scf::ForallOp f) { return getAccess(f); });
    FailureOr<SmallVector<OnChipResult>> onChip =
        getOnChipResults(func, parts, accesses);
    if (failed(onChip))
      return failure();
    llvm::SmallPtrSet<Value, 4> kept;
    for (const OnChipResult &result : *onChip)
      kept.insert(result.buffer);

    SmallVector<StreamCopy> copies(stream);
    if (failed(createBuffers(func, builder, copies, kept)))
      return failure();
    for (const OnChipResult &result : *onChip)
      for (StreamCopy &copy : copies)
        copy.buffers.lookup(result.buffer)
            .getDefiningOp()
            ->setAttr(TesselDialect::getOnChipAttrName(),
                      builder.getUnitAttr());

    // Tiles: every tile some mapping names, in row-major order.
    SmallVector<SmallVector<Coord>> partTiles = llvm::map_to_vector(
        parts, [](scf::ForallOp f) { return getTiles(f); });
    std::set<Coord> coords;
    for (ArrayRef<Coord> opTiles : partTiles)
      coords.insert(opTiles.begin(), opTiles.end());
    if (coords.empty())
      coords.insert({0, 0});
    std::map<Coord, TileProgram> tiles;
    for (Coord c : coords)
      tiles[c].tile = TileOp::create(builder, loc, c.first, c.second);
    for (auto &[c, program] : tiles)
      program.core = CoreOp::create(builder, loc, program.tile);
    // Semaphores are declared before the cores that use them.
    OpBuilder semaphores(tiles.begin()->second.core);

    SmallVector<SmallVector<SmallVector<int64_t>>> iterations;
    for (scf::ForallOp forall : parts) {
      FailureOr<SmallVector<SmallVector<int64_t>>> ivs = getIterations(forall);
      if (failed(ivs))
        return failure();
      iterations.push_back(std::move(*ivs));
    }
    size_t numPlaced = stream * (parts.size() + onChip->size());
    std::vector<PlacedOp> placed;
    placed.reserve(numPlaced);
    Dependences dependences;
    ResidentBuffers resident;

    // Each input's ops in program order; each part's body, with the
    // iteration's induction values as constants, goes to the core of its
    // tile, after the waits for the ops it depends on.
    for (auto [input, copy] : llvm::enumerate(copies)) {
      Residency residency{resident, input == 0, input + 1 == copies.size()};
      for (auto [position, forall, access, opTiles, partIvs] :
           llvm::enumerate(parts, accesses, partTiles, iterations)) {
        auto index = static_cast<unsigned>(placed.size());
        PlacedOp &op = placed.emplace_back();
        op.tiles = opTiles;
        op.ancestors.resize(numPlaced);

        SmallVector<unsigned> deps =
            dependences.record(index, access, copy.buffers);
        synchronize(placed, op, deps, tiles, semaphores, forall.getLoc());

        auto mapping = cast<MappingAttr>(
            forall->getAttr(TesselDialect::getPartitionAttrName()));
        for (auto [part, ivs] : llvm::enumerate(partIvs)) {
          Coord coord = mapping.getTileOfPart(part);
          Block &block = tiles[coord].block();
          placePart(forall, part, ivs, copy.views, residency, func, block,
                    mapping.getShared() ? std::optional<unsigned>(index)
                                        : std::nullopt);
          op.done[coord] = block.getTerminator()->getPrevNode();
        }
        for (const OnChipResult &result : *onChip)
          if (result.lastReader == position)
            placeRelease(placed, numPlaced, dependences, copy, result,
                         partTiles[result.writer], tiles, semaphores,
                         forall.getLoc());
      }
    }

    func.erase();
    return unrollSteps(device);
  }

  /// The results of the ops mapped `on_chip`, checked: each an allocation
  /// that is not returned (an error otherwise); one that another op writes
  /// too, or that its op reads, stays in DRAM with a warning.
  static FailureOr<SmallVector<OnChipResult>>
  getOnChipResults(func::FuncOp func, ArrayRef<scf::ForallOp> parts,
                   ArrayRef<Access> accesses) {
    auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<OnChipResult> results;
    for (auto [writer, part] : llvm::enumerate(parts)) {
      scf::ForallOp forall = part;
      auto mapping = cast<MappingAttr>(
          forall->getAttr(TesselDialect::getPartitionAttrName()));
      if (!mapping.getOnChip())
        continue;
      for (Value buffer : accesses[writer].writes) {
        auto fail = [&](const Twine &why) {
          return forall.emitOpError()
                 << "is mapped on_chip, but its result " << why
                 << "; drop on_chip from its mapping";
        };
        if (!buffer.getDefiningOp<memref::AllocOp>())
          return fail("is not a tensor between ops");
        if (llvm::any_of(returnOp.getOperands(), [&](Value value) {
              auto view = dyn_cast<TypedValue<BaseMemRefType>>(value);
              return view && getViewRoot(view) == buffer;
            }))
          return fail("is a model output, which goes to DRAM");
        // What the passes before made of the op (an accumulator loaded
        // rather than set in SRAM, a buffer shared with another op) keeps
        // the result in DRAM, with a warning.
        auto stays = [&](const Twine &why) {
          return forall.emitWarning()
                 << "op mapped on_chip whose result " << why
                 << ": the result stays in DRAM";
        };
        if (llvm::is_contained(accesses[writer].reads, buffer)) {
          stays("is read by the op itself (an accumulator loaded from DRAM)");
          continue;
        }
        OnChipResult result{buffer, static_cast<unsigned>(writer),
                            static_cast<unsigned>(writer)};
        std::optional<unsigned> otherWriter;
        for (auto [index, access] : llvm::enumerate(accesses)) {
          if (index != writer && llvm::is_contained(access.writes, buffer))
            otherWriter = index;
          if (llvm::is_contained(access.reads, buffer))
            result.lastReader = std::max<unsigned>(result.lastReader, index);
        }
        if (otherWriter) {
          stays("is also written by another op")
                  .attachNote(scf::ForallOp(parts[*otherWriter]).getLoc())
              << "written here";
          continue;
        }
        results.push_back(result);
      }
    }
    return results;
  }

  /// After the last reader of `result` (for the input `copy` sees): on
  /// each tile of its writer, a fence marked as the buffer's release,
  /// placed as an op that overwrites the buffer, so after every op that
  /// reads it is done on all its tiles.
  void placeRelease(std::vector<PlacedOp> &placed, size_t numPlaced,
                    Dependences &dependences, StreamCopy &copy,
                    const OnChipResult &result, ArrayRef<Coord> writerTiles,
                    std::map<Coord, TileProgram> &tiles,
                    OpBuilder &semaphores, Location loc) {
    auto index = static_cast<unsigned>(placed.size());
    PlacedOp &release = placed.emplace_back();
    release.tiles = llvm::to_vector(writerTiles);
    release.ancestors.resize(numPlaced);
    Access access;
    access.writes.push_back(result.buffer);
    SmallVector<unsigned> deps =
        dependences.record(index, access, copy.buffers);
    synchronize(placed, release, deps, tiles, semaphores, loc);
    auto buffer = copy.buffers.lookup(result.buffer).getDefiningOp<DramBufferOp>();
    for (Coord c : release.tiles) {
      OpBuilder core = OpBuilder::atBlockTerminator(&tiles[c].block());
      auto fence = FenceOp::create(core, loc);
      fence->setAttr(TesselDialect::getReleaseAttrName(),
                     FlatSymbolRefAttr::get(buffer.getSymNameAttr()));
      release.done[c] = fence;
    }
  }

  /// The distinct tiles of `forall`'s parts, in part order.
  static SmallVector<Coord> getTiles(scf::ForallOp forall) {
    auto mapping =
        cast<MappingAttr>(forall->getAttr(TesselDialect::getPartitionAttrName()));
    SmallVector<Coord> coords;
    for (int64_t i = 0; i < mapping.getNumTiles(); ++i)
      if (!llvm::is_contained(coords, mapping.getTileOfPart(i)))
        coords.push_back(mapping.getTileOfPart(i));
    return coords;
  }

  /// Pipeline stages run at the same time, so no tile may run ops of two.
  static LogicalResult checkStages(ArrayRef<scf::ForallOp> parts) {
    std::map<Coord, scf::ForallOp> owner;
    for (scf::ForallOp forall : parts) {
      auto mapping = cast<MappingAttr>(
          forall->getAttr(TesselDialect::getPartitionAttrName()));
      for (Coord c : getTiles(forall)) {
        scf::ForallOp other = owner.try_emplace(c, forall).first->second;
        int64_t otherStage =
            cast<MappingAttr>(
                other->getAttr(TesselDialect::getPartitionAttrName()))
                .getStage();
        if (otherStage == mapping.getStage())
          continue;
        InFlightDiagnostic diag =
            forall.emitOpError()
            << "runs pipeline stage " << mapping.getStage() << " on tile ("
            << c.first << ", " << c.second << "), which stage " << otherStage
            << " also uses; stages run at the same time, so each needs tiles "
               "of its own";
        diag.attachNote(other.getLoc()) << "stage " << otherStage << " runs here";
        return diag;
      }
    }
    return success();
  }

  /// Makes `op` wait for each of `deps` that no other of them implies.
  void synchronize(std::vector<PlacedOp> &placed, PlacedOp &op,
                   ArrayRef<unsigned> deps,
                   std::map<Coord, TileProgram> &tiles, OpBuilder &semaphores,
                   Location loc) {
    for (unsigned dep : deps) {
      op.ancestors |= placed[dep].ancestors;
      op.ancestors.set(dep);
    }
    SmallVector<unsigned> direct;
    for (unsigned dep : deps) {
      bool implied = llvm::any_of(
          deps, [&](unsigned other) { return placed[other].ancestors.test(dep); });
      // Two ops on the same single tile are ordered by its program.
      PlacedOp &earlier = placed[dep];
      bool sameTile = earlier.tiles.size() == 1 && op.tiles.size() == 1 &&
                      earlier.tiles.front() == op.tiles.front();
      if (!implied && !sameTile)
        direct.push_back(dep);
    }
    llvm::sort(direct);
    if (direct.empty())
      return;
    numDependences += direct.size();

    std::map<Coord, Value> go;
    for (Coord c : op.tiles)
      go[c] = SemaphoreOp::create(semaphores, loc, tiles[c].tile, 0);
    // The first tile of each earlier op tells the relays (getRelays), each
    // of which tells the rest of its row: rows + columns signals one after
    // another instead of one per tile (256 on a 16x16 grid).
    std::map<Coord, SmallVector<Coord>> relayed = getRelays(op.tiles);
    for (unsigned dep : direct) {
      PlacedOp &earlier = placed[dep];
      Coord first = earlier.tiles.front();
      // The first tile of a multi-tile op learns that all are done.
      if (earlier.tiles.size() > 1 && !earlier.arrived) {
        earlier.arrived =
            SemaphoreOp::create(semaphores, loc, tiles[first].tile, 0);
        for (Coord c : earlier.tiles)
          appendAfter<SignalOp>(earlier.done[c], tiles[c].block(), loc,
                                earlier.arrived, 1);
        appendAfter<WaitSemaphoreOp>(
            earlier.done[first], tiles[first].block(), loc, earlier.arrived,
            static_cast<int32_t>(earlier.tiles.size()));
      }
      for (auto &[relay, row] : relayed)
        appendAfter<SignalOp>(earlier.done[first], tiles[first].block(), loc,
                              go[relay], 1);
    }
    for (auto &[relay, row] : relayed) {
      OpBuilder core = OpBuilder::atBlockTerminator(&tiles[relay].block());
      WaitSemaphoreOp::create(core, loc, go[relay],
                              static_cast<int32_t>(direct.size()));
      for (Coord c : row) {
        SignalOp::create(core, loc, go[c], 1);
        OpBuilder other = OpBuilder::atBlockTerminator(&tiles[c].block());
        WaitSemaphoreOp::create(other, loc, go[c], 1);
      }
    }
  }

  /// The tiles that learn first that an op on `tiles` may start, each with
  /// the tiles it tells in turn: where the op spans several rows and some
  /// row holds several of its tiles, the first of each row in part order,
  /// which tells the others of its row; otherwise every tile, told
  /// directly (a relay would only add a hop).
  static std::map<Coord, SmallVector<Coord>>
  getRelays(ArrayRef<Coord> tiles) {
    std::map<int64_t, SmallVector<Coord>> rows;
    for (Coord c : tiles)
      rows[c.first].push_back(c);
    bool relay = rows.size() > 1 && llvm::any_of(rows, [](auto &row) {
                   return row.second.size() > 1;
                 });
    std::map<Coord, SmallVector<Coord>> relays;
    for (auto &[index, row] : rows) {
      if (!relay) {
        for (Coord c : row)
          relays[c];
        continue;
      }
      relays[row.front()].append(row.begin() + 1, row.end());
    }
    return relays;
  }

  /// Where in the stream a part is placed, for its resident weights: the
  /// first input loads them, the last frees them.
  struct Residency {
    ResidentBuffers &buffers;
    bool firstInput, lastInput;
  };

  /// Clones iteration `ivs` (part `part`) of `forall` at the end of
  /// `block`, the function's values seen through `views`. With `shareGroup`
  /// (the op is mapped `shared`), its loads from DRAM are marked with it for
  /// tessel-share-loads.
  static void placePart(scf::ForallOp forall, int64_t part,
                        ArrayRef<int64_t> ivs, const IRMapping &views,
                        Residency residency, func::FuncOp func, Block &block,
                        std::optional<unsigned> shareGroup) {
    OpBuilder core = OpBuilder::atBlockTerminator(&block);
    // After another op's part, unless a synchronization op (which the
    // schedule does not move loads across either) already separates them:
    // the schedule must not prefetch into the other op (each op's steps were
    // sized for SRAM on their own).
    Operation *last = block.getTerminator()->getPrevNode();
    if (last && !isa<SignalOp, WaitSemaphoreOp>(last))
      FenceOp::create(core, forall.getLoc());
    IRMapping map = views;
    for (auto [iv, value] : llvm::zip(forall.getInductionVars(), ivs))
      map.map(iv,
              arith::ConstantIndexOp::create(core, forall.getLoc(), value)
                  .getResult());
    // Values the body captures from the function: constants and views of
    // DRAM buffers, cloned (with what they use) into the core.
    std::function<void(Value)> capture = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (map.contains(value) || !def ||
          def->getBlock() != &func.getBody().front() ||
          !isa<arith::ConstantOp, ViewLikeOpInterface, memref::TransposeOp>(def))
        return;
      for (Value operand : def->getOperands())
        capture(operand);
      core.clone(*def, map);
    };
    forall.getBody()->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        capture(operand);
    });
    // An epilogue's loads are not shared: small, at the end of a step, and
    // sharing them would hold the tiles in step there.
    auto markLoad = [&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      if (source && getMemorySpace(source) == MemorySpace::dram &&
          !copy->hasAttr(TesselDialect::getEpilogueAttrName()))
        copy->setAttr(TesselDialect::getShareAttrName(),
                      core.getI64IntegerAttr(*shareGroup));
    };
    for (Operation &op : forall.getBody()->without_terminator()) {
      if (op.hasAttr(TesselDialect::getResidentAttrName())) {
        if (isa<memref::AllocOp>(op)) {
          Value &buffer = residency.buffers[{&op, part}];
          if (buffer)
            map.map(op.getResult(0), buffer);
          else
            buffer = core.clone(op, map)->getResult(0);
          continue;
        }
        if (!(isa<memref::DeallocOp>(op) ? residency.lastInput
                                         : residency.firstInput))
          continue;
      }
      Operation *clone = core.clone(op, map);
      if (shareGroup)
        clone->walk(markLoad);
    }
  }

  /// The device's DRAM buffers, as each input of the stream sees them:
  /// arguments are inputs (weights once the frontend marks them), returned
  /// allocations outputs, other allocations scratch. Inputs and outputs are
  /// one per input of the stream; scratch alternates between two copies
  /// (input n reuses input n - 2's once its readers are done), but for the
  /// results `kept` on chip, one per input too (tessel-keep-on-chip keeps
  /// each input's slices apart, and erases the buffers); weights and
  /// constants are shared.
  LogicalResult createBuffers(func::FuncOp func, OpBuilder &builder,
                              MutableArrayRef<StreamCopy> copies,
                              const llvm::SmallPtrSetImpl<Value> &kept) {
    auto numInputs = static_cast<int64_t>(copies.size());
    // Makes `count` buffers and gives input n the one at n % count.
    auto addBuffers = [&](Value key, int64_t count, auto create) {
      SmallVector<Value> buffers;
      for (int64_t i = 0; i < count; ++i)
        buffers.push_back(create(i, count));
      for (auto [n, copy] : llvm::enumerate(copies)) {
        copy.buffers[key] = buffers[n % count];
        copy.views.map(key, buffers[n % count]);
      }
      return buffers;
    };

    auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    llvm::SmallPtrSet<Value, 4> returned(returnOp.getOperands().begin(),
                                         returnOp.getOperands().end());
    for (BlockArgument arg : func.getArguments()) {
      // An argument the program never reads (a lifted buffer such as
      // batchnorm's num_batches_tracked) needs no place in DRAM.
      if (arg.use_empty())
        continue;
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return func.emitOpError() << "argument #" << arg.getArgNumber()
                                  << " is not a memref after bufferization";
      if (returned.contains(arg))
        return func.emitOpError()
               << "returns its argument #" << arg.getArgNumber()
               << "; an output must be its own DRAM buffer";
      DramBufferKind kind = isWeightArgument(func, arg.getArgNumber())
                                ? DramBufferKind::weight
                                : DramBufferKind::input;
      auto nameAttr =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tessel.name");
      std::string name = nameAttr ? nameAttr.getValue().str()
                                  : "arg" + std::to_string(arg.getArgNumber());
      // A weight stored transposed (tessel-fold-weight-transposes).
      auto permutation = func.getArgAttrOfType<DenseI64ArrayAttr>(
          arg.getArgNumber(), "tessel.permutation");
      addBuffers(arg, kind == DramBufferKind::weight ? 1 : numInputs,
                 [&](int64_t i, int64_t count) -> Value {
                   return DramBufferOp::create(
                       builder, arg.getLoc(), type, getCopyName(name, i, count),
                       kind, /*address=*/nullptr, /*value=*/nullptr,
                       permutation);
                 });
    }
    // An output returned through a reshape of an allocation (a matmul's
    // result expanded back to the batch shape) is one DRAM buffer of the
    // output's shape; the allocation becomes the inverse reshape of it.
    llvm::DenseMap<Value, std::pair<unsigned, Operation *>> reshapedOutputs;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      Operation *def = value.getDefiningOp();
      if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
        continue;
      Value source = def->getOperand(0);
      if (source.getDefiningOp<memref::AllocOp>())
        reshapedOutputs[source] = {static_cast<unsigned>(index), def};
    }
    int64_t scratch = 0;
    for (auto alloc : func.getBody().getOps<memref::AllocOp>()) {
      std::optional<unsigned> output;
      auto result = llvm::find(returnOp.getOperands(), alloc.getResult());
      if (result != returnOp.getOperands().end())
        output = std::distance(returnOp.getOperands().begin(), result);
      auto reshaped = reshapedOutputs.find(alloc.getResult());
      if (reshaped != reshapedOutputs.end())
        output = reshaped->second.first;
      std::string name;
      if (output) {
        auto nameAttr =
            func.getResultAttrOfType<StringAttr>(*output, "tessel.name");
        name = nameAttr ? nameAttr.getValue().str()
                        : "result" + std::to_string(*output);
      } else {
        name = "scratch" + std::to_string(scratch++);
      }
      MemRefType type = alloc.getType();
      Operation *reshape =
          reshaped != reshapedOutputs.end() ? reshaped->second.second : nullptr;
      if (reshape)
        type = cast<MemRefType>(reshape->getResult(0).getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return alloc.emitOpError("must be statically shaped and contiguous to "
                                 "be a DRAM buffer");
      SmallVector<Value> buffers = addBuffers(
          alloc.getResult(),
          output || kept.contains(alloc.getResult())
              ? numInputs
              : std::min<int64_t>(numInputs, 2),
          [&](int64_t i, int64_t count) -> Value {
            return DramBufferOp::create(
                builder, alloc.getLoc(), type, getCopyName(name, i, count),
                output ? DramBufferKind::output : DramBufferKind::scratch,
                /*address=*/nullptr, /*value=*/nullptr,
                /*permutation=*/nullptr);
          });
      if (!reshape)
        continue;
      // The allocation is seen through the inverse reshape of its buffer.
      for (auto [n, copy] : llvm::enumerate(copies)) {
        Value buffer = buffers[n % buffers.size()];
        Value allocView;
        if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
          allocView = memref::CollapseShapeOp::create(
              builder, alloc.getLoc(), buffer, expand.getReassociationIndices());
        else
          allocView = memref::ExpandShapeOp::create(
              builder, alloc.getLoc(), alloc.getType(), buffer,
              cast<memref::CollapseShapeOp>(reshape).getReassociationIndices());
        copy.views.map(alloc.getResult(), allocView);
        copy.views.map(reshape->getResult(0), buffer);
      }
    }
    // Constant tensors (a folded mask) were bufferized into globals; each
    // becomes a constant DRAM buffer holding its value.
    if (failed(convertGlobals(func, builder, copies)))
      return failure();
    for (Value value : returnOp.getOperands())
      if (!copies.front().views.contains(value))
        return returnOp.emitOpError(
            "returns a value that is not a DRAM allocation of the function");
    return success();
  }

  LogicalResult convertGlobals(func::FuncOp func, OpBuilder &builder,
                               MutableArrayRef<StreamCopy> copies) {
    auto module = func->getParentOfType<ModuleOp>();
    llvm::StringMap<Value> buffers;
    for (auto get : func.getBody().getOps<memref::GetGlobalOp>()) {
      // Not a SymbolTable: the device, named after the function, is not
      // yet alone under its name.
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      auto value = global ? dyn_cast_or_null<ElementsAttr>(
                                global.getInitialValueAttr())
                          : nullptr;
      if (!value || !global.getConstant())
        return get.emitOpError()
               << "reads @" << get.getName()
               << ", which is not a constant global with a value";
      MemRefType type = get.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return get.emitOpError("must be statically shaped and contiguous to "
                               "be a DRAM buffer");
      Value &buffer = buffers[get.getName()];
      if (!buffer)
        buffer = DramBufferOp::create(builder, get.getLoc(), type,
                                      get.getName(), DramBufferKind::constant,
                                      /*address=*/nullptr, value,
                                      /*permutation=*/nullptr);
      for (StreamCopy &copy : copies) {
        copy.views.map(get.getResult(), buffer);
        copy.buffers[get.getResult()] = buffer;
      }
    }
    // The globals' values now live in the device's buffers.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (buffers.contains(global.getSymName()))
        global.erase();
    return success();
  }

  /// Straight-line cores: unrolls the step loops outermost first; folding
  /// after each round makes the inner loops' bounds (affine.min of an outer
  /// induction value) constant.
  LogicalResult unrollSteps(DeviceOp device) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet canonicalization(std::move(patterns));

    GreedyRewriteConfig first;
    first.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(device, canonicalization, first)))
      return device.emitOpError("did not converge while folding steps");
    // Each round unrolls the outermost loops left and folds what their
    // bodies became (an inner loop's bounds among it); the rest of the
    // device was folded before and is not visited again, but for the ops
    // outside a loop that its body reads, so that one no longer read once
    // the copies fold is erased as a whole-device fold would erase it.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    while (true) {
      SmallVector<scf::ForOp> outermost;
      device.walk([&](scf::ForOp loop) {
        if (!loop->getParentOfType<scf::ForOp>())
          outermost.push_back(loop);
      });
      if (outermost.empty())
        return success();
      SetVector<Operation *> unrolled;
      for (scf::ForOp loop : outermost) {
        Block *block = loop->getBlock();
        Operation *before = loop->getPrevNode(), *after = loop->getNextNode();
        loop->walk([&](Operation *op) {
          for (Value operand : op->getOperands())
            if (Operation *def = operand.getDefiningOp())
              if (!loop->isAncestor(def))
                unrolled.insert(def);
        });
        if (failed(loopUnrollFull(loop)))
          return loop.emitOpError("has a trip count that is not constant, so "
                                  "the tile's program cannot be unrolled");
        for (Operation *op = before ? before->getNextNode() : &block->front();
             op != after; op = op->getNextNode())
          op->walk([&](Operation *nested) { unrolled.insert(nested); });
      }
      if (failed(applyOpPatternsGreedily(unrolled.getArrayRef(),
                                         canonicalization, config)))
        return device.emitOpError("did not converge while folding steps");
    }
  }
};

} // namespace
} // namespace mlir::tessel
