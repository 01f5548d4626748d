//===- EarlyLoads.cpp - Start a step on the first piece of its loads ------===//
//
// After tessel-schedule a step's loads are issued a step ahead, under the
// previous step's compute, but the first step of an op on a tile has
// nothing to run under: the tile issues its loads and waits for all of
// them. On one tile of systolic-32x32 a 1x1 convolution's first step waits
// 1,220 cycles for its 93 KB window and 32 KB of weights, yet its first
// block of products reads a fifth of the weights.
//
// This pass cuts each such load (one whose wait follows it with no compute
// in between) into the pieces that different instructions read first, and
// waits for each piece just before its first reader: the tile starts on
// the first piece while the rest arrive. Where the first reader is a
// weight-stationary matmul block that streams the whole load (the window a
// 1x1 convolution's first block streams), the block is first split into
// blocks of fewer rows, each reading its own piece. The pieces of a tile's
// loads at one point are issued in the order they are read, so the DMA
// channels deliver first what is needed first. On a tile whose channels run
// the pieces strictly in issue order (DRAM channels of its own, no second
// group of DMA channels for them), loads with a padded window's border
// fills between them count as issued at one point: a 3x3 convolution's
// first weights are cut too, not only its window.
//
// A piece is at least what the tile's DMA moves in four times its setup,
// and a load is cut into at most `kMaxPieces`: each piece holds its DMA
// channel through a setup and the DRAM latency of its own. Loads a
// rectangle of tiles shares (tessel-share-loads, after this pass, multicasts
// each piece as it would the whole load) are cut only where the first
// products take twice the loads, the loads twice their pieces' setups and
// latencies (`hasSlackForSharedPieces`), and every tile loading them cuts
// them alike (`getCuttableShares`); there the first step's matmul blocks
// first take turns over their accumulators, so the first ones read one
// piece of the reduction of both operands. Loads from another tile's SRAM
// stay whole.
//
// Before tessel-allocate-sram, while every SRAM buffer is its own
// allocation: which elements an instruction touches is read from its views'
// strided layouts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/StridedViews.h"
#include "tessel/Dialect/Tessel/Transforms/TransferOrder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEARLYLOADS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The most pieces a load is cut into, and a first block split into.
constexpr int64_t kMaxPieces = 4;

/// How many times longer than its loads an op's first blocks must compute,
/// and its loads take than their pieces' setups and latencies, for its
/// shared loads to be cut (`hasSlackForSharedPieces`).
constexpr int64_t kSharedPieceSlack = 2;

/// Whether `op` only issues or waits for transfers, or names memory: the
/// ops a load may move past without delaying work.
bool isControl(Operation *op) {
  return isa<DmaOp, WaitOp, memref::DeallocOp>(op) || isAddressOp(op);
}

/// Whether `type`'s layout has static strides and offset.
bool isStaticStrided(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getStridesAndOffset(type, strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// Whether `dma` is marked to be shared with other tiles' loads of the same
/// slice (tessel-share-loads).
bool isShared(DmaOp dma) {
  return static_cast<bool>(
      dma->getAttrOfType<IntegerAttr>(TesselDialect::getShareAttrName()));
}

/// A load from DRAM into an SRAM buffer only this tile reads (not a slice
/// it keeps on chip for others), shared with other tiles or not.
bool isFirstLoadCandidate(DmaOp dma) {
  auto buffer = getViewRoot(dma.getTarget()).getDefiningOp<memref::AllocOp>();
  return isInSpace(dma.getSource(), MemorySpace::dram) && buffer &&
         isInSpace(dma.getTarget(), MemorySpace::sram) &&
         !buffer->hasAttr(TesselDialect::getHeldAsAttrName());
}

/// Whether `op` fills memory none of `roots` is with a constant: a pad
/// border's few columns, too short to hide a load under.
bool isFillOfOthers(Operation *op, ArrayRef<Value> roots) {
  return isa<VectorFillOp>(op) && llvm::none_of(roots, [&](Value root) {
           return touchesBuffer(op, root);
         });
}

/// The wait for `load` if it follows the load with nothing but control in
/// between, or with `passFills` fills of other buffers too (the tile would
/// stall on the whole load there); else null.
WaitOp getHeadWait(DmaOp load, bool passFills) {
  Value root = getViewRoot(load.getTarget());
  for (Operation *op = load->getNextNode(); op; op = op->getNextNode()) {
    if (auto wait = dyn_cast<WaitOp>(op))
      if (llvm::is_contained(wait.getTokens(), load.getToken()))
        return wait;
    if (!isControl(op) && !(passFills && isFillOfOthers(op, root)))
      return {};
  }
  return {};
}

/// The first instruction after `from` that touches `root`.
Operation *getFirstToucher(Operation *from, Value root) {
  for (Operation *op = from->getNextNode(); op; op = op->getNextNode())
    if (touchesBuffer(op, root))
      return op;
  return nullptr;
}

/// A load cut along `dim` into `pieces`, each read first by its `at`.
struct CutLoad {
  DmaOp load;
  unsigned dim;
  SmallVector<TransferPiece> pieces;
};

/// The matmul blocks an op's first step runs after the waits for its loads,
/// up to other work, and the address ops between them (those after the
/// last block are not the blocks' views).
struct FirstRun {
  Operation *first = nullptr;
  SmallVector<MatmulOp> blocks;
  SmallVector<Operation *> views;
};

/// The loads a core issues together before an op's first step, and the
/// core's arch facts the cuts depend on.
struct LoadGroup {
  SmallVector<DmaOp> loads;
  ArchAttr arch;
  bool passFills = false;
  /// Whether cutting its shared loads pays (`hasSlackForSharedPieces`), and
  /// the types of the blocks that first read them, in order: tiles whose
  /// groups match cut them alike.
  bool sharedCutPays = false;
  SmallVector<Type> firstBlockTypes;
};

struct EarlyLoads : impl::TesselEarlyLoadsBase<EarlyLoads> {
  void runOnOperation() override {
    firstLoadBytes.clear();
    firstLoadSlices.clear();
    SmallVector<LoadGroup> groups;
    auto newGroup = [&](ArchAttr arch) {
      LoadGroup group;
      group.arch = arch;
      group.passFills = passFills;
      return group;
    };
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      // Where the tile's DRAM channels are its own and its DMA channels make
      // no second group for them, each channel runs the pieces of a step's
      // loads in the order they are issued (tessel-split-transfers spreads
      // each piece over all of them), so a load behind a pad border's fills
      // is cut too: its later pieces queue behind the first ones. With a
      // second group (systolic-32x32), or DMA channels sharing one DRAM
      // channel, later pieces run beside the first ones and take their
      // share of DRAM: there the fills end the group.
      passFills = runsTransfersInIssueOrder(arch, core.getTileOp());
      // The loads issued together, with nothing but other transfers, address
      // ops (and, where `passFills`, fills of other buffers) between them,
      // each followed by its wait before any work.
      groups.push_back(newGroup(arch));
      SmallVector<Value> groupRoots;
      for (Operation &op : core.getBody().front()) {
        if (!isa<DmaOp>(op) && !isAddressOp(&op) &&
            !groups.back().loads.empty() &&
            !(passFills && isFillOfOthers(&op, groupRoots))) {
          groups.push_back(newGroup(arch));
          groupRoots.clear();
        }
        auto dma = dyn_cast<DmaOp>(op);
        if (dma && isFirstLoadCandidate(dma) && headWait(dma)) {
          groups.back().loads.push_back(dma);
          groupRoots.push_back(getViewRoot(dma.getTarget()));
        }
      }
    });
    countFirstLoadBytes(groups);
    for (LoadGroup &group : groups) {
      useArch(group);
      FirstRun run = getFirstRun(group.loads);
      group.sharedCutPays =
          hasSlackForSharedPieces(group.loads, run, group.arch);
      for (MatmulOp block : run.blocks)
        for (Value operand : block->getOperands())
          group.firstBlockTypes.push_back(operand.getType());
    }
    llvm::DenseSet<int64_t> cuttable = getCuttableShares(groups);
    for (LoadGroup &group : groups) {
      useArch(group);
      SmallVector<DmaOp> loads;
      bool sharedCut = false;
      for (DmaOp load : group.loads) {
        bool shared = isShared(load);
        if (shared &&
            !(group.sharedCutPays && cuttable.contains(getShareId(load))))
          continue;
        sharedCut |= shared;
        loads.push_back(load);
      }
      if (!loads.empty())
        loadEarly(loads, /*takeTurns=*/sharedCut);
    }
  }

  /// The arch facts of `group`'s tile the cuts depend on.
  void useArch(const LoadGroup &group) {
    ArchAttr arch = group.arch;
    minPieceBytes = 4 * arch.getSetupTransferBytes();
    splitBlocks = arch.getTileMacDataflow() == "weight_stationary";
    fixedTransferCycles = arch.getIntField("tile.dma.setup_cycles") +
                          arch.getIntField("dram.latency_cycles");
    dramChannels = std::max<int64_t>(1, arch.getIntField("dram.channels"));
    dramBytesPerCycle = std::max<int64_t>(
        1, arch.getIntField("dram.bytes_per_cycle") * dramChannels);
    passFills = group.passFills;
  }

  static int64_t getShareId(DmaOp load) {
    return load->getAttrOfType<IntegerAttr>(TesselDialect::getShareAttrName())
        .getInt();
  }

  /// The `tessel.share` marks whose loads are cut alike on every core:
  /// tessel-share-loads pairs the n-th load of a mark on each core, so a
  /// core cutting its loads into pieces and another loading them whole
  /// would pair pieces with other loads and share none of them (the
  /// stream of 8 BERT FFN inputs on tessel-4x4, its first steps cut on
  /// some tiles only, read 17 % more from DRAM). A mark is cut where, on
  /// every core that loads it, its first load is in a group, every group
  /// holding its loads is worth cutting (`sharedCutPays`), and each core's
  /// groups load the same shapes under the mark and first run blocks of
  /// the same types: the same cuts.
  llvm::DenseSet<int64_t> getCuttableShares(ArrayRef<LoadGroup> groups) {
    llvm::DenseMap<Operation *, const LoadGroup *> groupOf;
    for (const LoadGroup &group : groups)
      for (DmaOp load : group.loads)
        groupOf[load] = &group;
    // Per mark, each core's groups holding it, as one signature.
    llvm::DenseMap<int64_t, SmallVector<const void *>> signatures;
    llvm::DenseSet<int64_t> refused;
    getOperation().walk([&](CoreOp core) {
      llvm::MapVector<int64_t, SmallVector<const void *>> mine;
      llvm::DenseSet<int64_t> started;
      llvm::DenseSet<const LoadGroup *> counted;
      core.walk([&](DmaOp load) {
        if (!isShared(load))
          return;
        int64_t id = getShareId(load);
        const LoadGroup *group = groupOf.lookup(load);
        // A mark's first load on the core starts its first step.
        if (started.insert(id).second && !group)
          refused.insert(id);
        if (!group)
          return;
        if (!group->sharedCutPays)
          refused.insert(id);
        SmallVector<const void *> &signature = mine[id];
        signature.push_back(load.getTarget().getType().getAsOpaquePointer());
        if (counted.insert(group).second)
          for (Type type : group->firstBlockTypes)
            signature.push_back(type.getAsOpaquePointer());
      });
      for (auto &[id, signature] : mine) {
        auto [it, inserted] = signatures.try_emplace(id, signature);
        if (!inserted && it->second != signature)
          refused.insert(id);
      }
    });
    llvm::DenseSet<int64_t> cuttable;
    for (auto &[id, signature] : signatures)
      if (!refused.contains(id))
        cuttable.insert(id);
    return cuttable;
  }

  /// The wait for `load` before any work (`getHeadWait`); a shared load's
  /// wait may come after fills of other buffers (an accumulator's zeros):
  /// every tile that shares it stalls there alike.
  WaitOp headWait(DmaOp load) {
    return getHeadWait(load, passFills || isShared(load));
  }

  /// The bytes the grid's first steps load from each DRAM buffer, each
  /// slice once however many tiles load it (shared loads are one DRAM
  /// read each).
  void countFirstLoadBytes(ArrayRef<LoadGroup> groups) {
    llvm::DenseSet<std::pair<Value, Type>> seen;
    for (const LoadGroup &group : groups)
      for (DmaOp load : group.loads) {
        Value source = load.getSource();
        auto type = cast<MemRefType>(source.getType());
        int64_t bytes = getSizeInBytes(type);
        // A static layout names the slice: its type is uniqued.
        Value root = getViewRoot(source);
        if (!type.hasStaticShape() || !isStaticStrided(type) ||
            seen.insert({root, type}).second) {
          firstLoadBytes[root] += bytes;
          ++firstLoadSlices[root];
        }
      }
  }

  /// Whether `loads`, some of them shared, are worth cutting: the blocks that
  /// read them first (`run`) take at least `kSharedPieceSlack` times as long
  /// as the grid's first steps take to load the buffers they load from, at
  /// all of DRAM's bandwidth, and those loads take at least as many times the
  /// setups and latencies of their pieces on each DRAM channel. Every tile
  /// sharing a load waits for each of its pieces: where DRAM is about as busy
  /// as the array, or the pieces' fixed costs are as long as their bytes, the
  /// tiles whose pieces queue last start later than they did on the whole
  /// loads. Measured on tessel-16x16: the 1024^3 GEMM's first step (4,608
  /// cycles of products, its 1 MB in 2,048 cycles, 960 of pieces' setups and
  /// latencies per channel) went 46,099 -> 44,692 cycles; cut, ResNet-18's
  /// second convolution (1,026 cycles of products a step for 791 of loads)
  /// ran 7,047 -> 7,415, and on tessel-4x4 the 256^3 GEMM (2,304 cycles of
  /// products, its loads 1,024, the pieces' 960) 11,074 -> 11,134: its first
  /// products started after 516 to 1,577 cycles instead of 1,166, as the
  /// pieces of eight loads queued on four DRAM channels.
  bool hasSlackForSharedPieces(ArrayRef<DmaOp> loads, const FirstRun &run,
                               ArchAttr arch) {
    if (llvm::none_of(loads, isShared))
      return false;
    int64_t compute = 0;
    for (MatmulOp block : run.blocks)
      compute += getRunBlockCycles(block, arch);
    llvm::SmallDenseSet<Value, 4> roots;
    int64_t bytes = 0, slices = 0;
    for (DmaOp load : loads)
      if (Value root = getViewRoot(load.getSource());
          roots.insert(root).second) {
        bytes += firstLoadBytes.lookup(root);
        slices += firstLoadSlices.lookup(root);
      }
    int64_t dramCycles = llvm::divideCeil(bytes, dramBytesPerCycle);
    int64_t fixedCycles = llvm::divideCeil(slices, dramChannels) * kMaxPieces *
                          fixedTransferCycles;
    return compute >= kSharedPieceSlack * dramCycles &&
           dramCycles >= kSharedPieceSlack * fixedCycles;
  }

  /// Cuts the loads of `group` and issues their pieces, after the last of
  /// them, in the order they are read; with `takeTurns` (shared loads cut),
  /// the first blocks' accumulators first take turns.
  void loadEarly(ArrayRef<DmaOp> group, bool takeTurns) {
    // First the order the loads are read in: each accumulator's blocks in
    // turn, so the first reads cover a piece of each load. A tile's own
    // loads keep the blocks' order: taken in turns, the first steps of the
    // stream of 8 BERT FFN inputs on tessel-4x4 ran 0.13 % slower.
    if (takeTurns)
      interleaveFirstBlocks(group);
    // Then the blocks that stream a whole load, in rows (a load's first
    // reader may be another's too, so all are split before any is cut).
    // Blocks taking turns read a piece of the reduction first, which the
    // cut along it serves: a block is split only where it streams all of
    // the load.
    for (DmaOp load : group) {
      Value root = getViewRoot(load.getTarget());
      auto block =
          dyn_cast_or_null<MatmulOp>(getFirstToucher(headWait(load), root));
      if (splitBlocks && block && getViewRoot(block.getLhs()) == root &&
          getViewRoot(block.getRhs()) != root &&
          getViewRoot(block.getAcc()) != root &&
          (!takeTurns || streamsWhole(block, load)) && splitRows(block, load))
        block.erase();
    }
    SmallVector<CutLoad> cuts;
    for (DmaOp load : group)
      if (std::optional<CutLoad> cut = cutByFirstReader(load, headWait(load)))
        cuts.push_back(std::move(*cut));
    if (cuts.empty())
      return;

    // Each piece's views, then the pieces in the order they are read, on
    // the channel their load was on.
    Operation *issue = group.back();
    OpBuilder builder(issue->getNextNode());
    struct Piece {
      Value from, to;
      DmaOp load;
      Operation *reader;
    };
    SmallVector<Piece> pieces;
    for (CutLoad &cut : cuts)
      for (const TransferPiece &piece : cut.pieces) {
        Location loc = cut.load.getLoc();
        int64_t size = piece.end - piece.begin;
        pieces.push_back(
            {createSlab(builder, loc, cut.load.getSource(), cut.dim,
                        piece.begin, size),
             createSlab(builder, loc, cut.load.getTarget(), cut.dim,
                        piece.begin, size),
             cut.load, piece.at});
      }
    llvm::stable_sort(pieces, [](const Piece &a, const Piece &b) {
      return a.reader != b.reader && a.reader->isBeforeInBlock(b.reader);
    });
    llvm::MapVector<Operation *, SmallVector<Value>> waitsBefore;
    for (Piece &piece : pieces) {
      auto dma = DmaOp::create(builder, piece.load.getLoc(), piece.from,
                               piece.to, piece.load.getChannelAttr());
      dma->setDiscardableAttrs(piece.load->getDiscardableAttrDictionary());
      dma->setAttr(TesselDialect::getFirstLoadAttrName(), builder.getUnitAttr());
      waitsBefore[piece.reader].push_back(dma.getToken());
    }
    for (auto &[reader, tokens] : waitsBefore) {
      builder.setInsertionPoint(reader);
      WaitOp::create(builder, reader->getLoc(), tokens);
    }
    for (CutLoad &cut : cuts) {
      replaceTransfer(cut.load, {});
      ++numCut;
    }
  }

  /// The matmul blocks after the last of `loads`' waits (`FirstRun`).
  FirstRun getFirstRun(ArrayRef<DmaOp> loads) {
    FirstRun run;
    Operation *lastWait = nullptr;
    for (DmaOp load : loads)
      if (WaitOp wait = headWait(load))
        if (!lastWait || lastWait->isBeforeInBlock(wait))
          lastWait = wait;
    if (!lastWait)
      return run;
    run.first = lastWait->getNextNode();
    while (run.first && isControl(run.first))
      run.first = run.first->getNextNode();
    SmallVector<Operation *> views;
    for (Operation *op = run.first; op; op = op->getNextNode()) {
      if (auto block = dyn_cast<MatmulOp>(op)) {
        run.blocks.push_back(block);
        llvm::append_range(run.views, views);
        views.clear();
      } else if (isAddressOp(op)) {
        views.push_back(op);
      } else {
        break;
      }
    }
    return run;
  }

  /// Reorders the run of matmul blocks that first read `group`'s loads so
  /// that the blocks of different accumulators take turns: the first
  /// block of each, then the second of each, and so on. A matmul step's
  /// blocks are emitted each accumulator's reduction in order (its output
  /// columns outer, the reduction inner), so the first columns' blocks
  /// read the whole step's slice of the rows' operand before the second
  /// columns' start: taken in turns, the first blocks read one reduction
  /// piece of both operands, which the cut below loads first. Each
  /// accumulator's blocks keep their order, so every sum is added in the
  /// same order (the same bits). Left as it is where blocks' accumulators
  /// overlap other than exactly, or a block reads what another writes.
  void interleaveFirstBlocks(ArrayRef<DmaOp> group) {
    FirstRun run = getFirstRun(group);
    SmallVector<MatmulOp> &blocks = run.blocks;
    SmallVector<Value> roots;
    for (DmaOp load : group)
      roots.push_back(getViewRoot(load.getTarget()));
    if (!llvm::any_of(blocks, [&](MatmulOp block) {
          return llvm::is_contained(roots, getViewRoot(block.getLhs())) ||
                 llvm::is_contained(roots, getViewRoot(block.getRhs()));
        }))
      return;

    // Each block's accumulator as one of the distinct boxes (a view's static
    // layout is in its type), which must not overlap, nor be read as an
    // operand.
    SmallVector<std::pair<Value, Type>> accs;
    SmallVector<StridedBox> boxes;
    SmallVector<int64_t> rank;
    SmallVector<int64_t> count;
    for (MatmulOp block : blocks) {
      std::pair<Value, Type> acc = {getViewRoot(block.getAcc()),
                                    block.getAcc().getType()};
      auto *it = llvm::find(accs, acc);
      if (it == accs.end()) {
        std::optional<StridedBox> box = StridedBox::of(block.getAcc());
        if (!box)
          return;
        accs.push_back(acc);
        boxes.push_back(*box);
        count.push_back(0);
        it = accs.end() - 1;
      }
      rank.push_back(count[it - accs.begin()]++);
    }
    if (accs.size() < 2 || llvm::all_of(count, [](int64_t n) { return n < 2; }))
      return;
    auto readsAcc = [&](Value view) {
      Value root = getViewRoot(view);
      return llvm::any_of(accs, [&](auto &acc) { return acc.first == root; });
    };
    for (MatmulOp block : blocks)
      if (readsAcc(block.getLhs()) || readsAcc(block.getRhs()))
        return;
    int64_t visited = 0;
    llvm::DenseSet<std::pair<Value, int64_t>> seen;
    for (auto [acc, box] : llvm::zip(accs, boxes)) {
      if ((visited += box.elements()) > kMaxElementsVisited)
        return;
      bool overlap = false;
      box.forEachElement(
          [&](int64_t e) { overlap |= !seen.insert({acc.first, e}).second; });
      if (overlap)
        return;
    }

    // The views first, in their order, then the blocks by rank.
    for (Operation *view : run.views)
      view->moveBefore(run.first);
    SmallVector<unsigned> order(blocks.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(
        order, [&](unsigned a, unsigned b) { return rank[a] < rank[b]; });
    Operation *after = blocks.front()->getPrevNode();
    for (unsigned i : order) {
      blocks[i]->moveAfter(after);
      after = blocks[i];
    }
    ++numInterleaved;
  }

  /// Whether `block` streams all of `load`'s buffer: its left operand
  /// spans as many elements as the load.
  static bool streamsWhole(MatmulOp block, DmaOp load) {
    std::optional<StridedBox> lhs = StridedBox::of(block.getLhs());
    std::optional<StridedBox> loaded = StridedBox::of(load.getTarget());
    return lhs && loaded && lhs->elements() == loaded->elements();
  }

  /// Splits `block`, a matmul that streams all of `load`'s buffer as its
  /// rows, into blocks of fewer rows (along the first dimension of its left
  /// operand and accumulator). The blocks end where a row of the load
  /// does (along the load's dimension that the block's rows step through
  /// in order, the one with the most indices), so each reads its own rows
  /// of the load, and each reads at least a piece's bytes of it. They
  /// stand before `block`, which the caller erases. False where the load
  /// is too small to cut or its rows cannot be told.
  bool splitRows(MatmulOp block, DmaOp load) {
    Value lhs = block.getLhs();
    auto lhsType = cast<MemRefType>(lhs.getType());
    int64_t rows = lhsType.getDimSize(0);
    std::optional<StridedBox> lhsBox = StridedBox::of(lhs);
    std::optional<StridedBox> loadBox = StridedBox::of(load.getTarget());
    if (rows < 2 || !lhsBox || !loadBox || !loadBox->nests())
      return false;
    // Each row's index along each dimension of the load (of its first
    // element).
    SmallVector<SmallVector<int64_t>> indices;
    SmallVector<int64_t> index;
    for (int64_t row = 0; row < rows; ++row) {
      if (!loadBox->indexOf(lhsBox->offset + row * lhsBox->strides[0], index))
        return false;
      indices.push_back(index);
    }
    std::optional<unsigned> dim;
    int64_t distinct = 1;
    for (unsigned d = 0; d < index.size(); ++d) {
      int64_t values = 1;
      bool ordered = true;
      for (int64_t row = 1; row < rows && ordered; ++row) {
        ordered = indices[row][d] >= indices[row - 1][d];
        values += indices[row][d] != indices[row - 1][d];
      }
      if (ordered && values > distinct) {
        dim = d;
        distinct = values;
      }
    }
    auto type = cast<MemRefType>(load.getTarget().getType());
    int64_t loadBytes = getSizeInBytes(type);
    int64_t count = std::min(
        {kMaxPieces, distinct, loadBytes / std::max<int64_t>(1, minPieceBytes)});
    if (!dim || count < 2)
      return false;
    // Block i takes the rows whose index along `dim` is among the i-th
    // `count`-th of the indices the rows step through.
    SmallVector<int64_t> bounds = {0};
    int64_t seen = 0;
    for (int64_t row = 1; row < rows; ++row) {
      if (indices[row][*dim] == indices[row - 1][*dim])
        continue;
      ++seen;
      if (seen * count / distinct > (seen - 1) * count / distinct)
        bounds.push_back(row);
    }
    bounds.push_back(rows);
    OpBuilder builder(block);
    Location loc = block.getLoc();
    for (auto [begin, end] : llvm::zip(ArrayRef(bounds).drop_back(),
                                       ArrayRef(bounds).drop_front())) {
      Value rowsOfLhs = createSlab(builder, loc, lhs, 0, begin, end - begin);
      Value rowsOfAcc =
          createSlab(builder, loc, block.getAcc(), 0, begin, end - begin);
      auto part = MatmulOp::create(builder, loc, rowsOfLhs, block.getRhs(),
                                   rowsOfAcc, block.getInit());
      part->setDiscardableAttrs(block->getDiscardableAttrDictionary());
    }
    ++numBlocksSplit;
    return true;
  }

  /// `load` cut into the pieces read first by different instructions after
  /// `wait`, along the dimension of its slice whose pieces leave the most
  /// bytes for later readers; none where that is one piece, or the readers
  /// cannot be told.
  std::optional<CutLoad> cutByFirstReader(DmaOp load, WaitOp wait) {
    Value target = load.getTarget();
    auto type = cast<MemRefType>(target.getType());
    Value root = getViewRoot(target);
    std::optional<StridedBox> box = StridedBox::of(target);
    std::optional<Extent> whole = getExtent(target);
    if (!box || !box->nests() || !whole ||
        !cast<MemRefType>(load.getSource().getType()).isStrided())
      return std::nullopt;
    ArrayRef<int64_t> shape = type.getShape();

    // For every dimension of the slice, the first instruction that touches
    // each of its indices (a write into the buffer orders after the load
    // as a read does).
    // Each reader's place after the wait (address ops aside; the wait,
    // where a piece is never read, is place 0).
    IndexClaims firstReaders(root, *box);
    llvm::DenseMap<Operation *, int64_t> place;
    int64_t count = 0;
    for (Operation *op = wait->getNextNode(); op && !firstReaders.complete();
         op = op->getNextNode()) {
      if (isAddressOp(op))
        continue;
      ++count;
      if (isa<memref::DeallocOp>(op) || !touchesExtent(op, root, *whole))
        continue;
      if (!firstReaders.claim(op))
        return std::nullopt;
      place[op] = count;
    }
    ArrayRef<SmallVector<Operation *>> reader = firstReaders.getClaims();

    // Never read: waited where the load was.
    auto earlier = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b) ? a : b;
    };
    int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    CutLoad best{load, 0, {}};
    int64_t bestLateness = -1;
    for (auto [d, readers] : llvm::enumerate(reader)) {
      if (readers.empty())
        continue;
      int64_t rowBytes = type.getNumElements() / shape[d] * elementBytes;
      // The least piece doubled until there are few enough.
      SmallVector<TransferPiece> cut;
      for (int64_t pieceBytes = std::max<int64_t>(1, minPieceBytes);
           cut.empty() || static_cast<int64_t>(cut.size()) > kMaxPieces;
           pieceBytes *= 2)
        cut = getTransferPieces(readers, wait, rowBytes, pieceBytes, earlier);
      // The cut that leaves the most bytes for later readers: its pieces'
      // bytes times their first readers' places. Cut along the reduction,
      // a matmul's first blocks read a piece of its weights; along the
      // weights' columns, they would read each piece at once.
      int64_t lateness = 0;
      for (const TransferPiece &piece : cut)
        lateness +=
            (piece.end - piece.begin) * rowBytes * place.lookup(piece.at);
      if (cut.size() >= 2 &&
          (lateness > bestLateness ||
           (lateness == bestLateness && cut.size() > best.pieces.size()))) {
        best.pieces = std::move(cut);
        best.dim = d;
        bestLateness = lateness;
      }
    }
    if (best.pieces.size() < 2)
      return std::nullopt;
    return best;
  }

  int64_t minPieceBytes = 0;
  bool splitBlocks = false;
  bool passFills = false;
  int64_t dramBytesPerCycle = 1;
  int64_t fixedTransferCycles = 0;
  int64_t dramChannels = 1;
  /// The bytes of each DRAM buffer the grid's first steps load, and the
  /// distinct slices they load of it (countFirstLoadBytes).
  llvm::DenseMap<Value, int64_t> firstLoadBytes;
  llvm::DenseMap<Value, int64_t> firstLoadSlices;
};

} // namespace
} // namespace mlir::tessel
