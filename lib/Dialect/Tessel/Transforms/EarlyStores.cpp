//===- EarlyStores.cpp - Store each block of a result once it is final ----===//
//
// As lowered, a step stores its result slice after its last instruction, so
// the store of the last step stands after all compute: on one tile of
// systolic-32x32 a 1x1 convolution's last 401 KB take 3,254 cycles after
// its last product. But the MAC array finishes a slice block by block (a
// block of output channels, of columns), and each block is final after its
// own last product. This pass cuts such a store, along the dimension of the
// slice that gives the most, into the pieces that become final at
// different instructions and issues each piece right after the last
// instruction that writes it: only the last block's piece is left after the
// compute. Where the store was waited for, all its pieces are.
//
// A piece moves up past compute, loads, stores and waits that do not touch
// its elements, never past synchronization (a signal, a semaphore wait, a
// fence), a multicast or a gather, or a transfer of the DRAM buffer it
// writes. A piece is at least what the tile's DMA moves in four times its
// setup, so the added transfers cost little against what they hide. A
// transfer holds its DMA channel through the DRAM latency as well, so the
// pass cuts on a tile with a second DMA channel for each DRAM channel it
// uses, where consecutive pieces' latencies overlap; on a tile with DRAM
// channels of its own but no second group of DMA channels, only the core's
// last store, and only where its products outlast its transfers: nothing
// queues behind that store, and without the cut the whole slice leaves
// after the last product (the 256^3 GEMM's 256 KB on the 768 KiB tile).
//
// A convolution's blocks do not finish so: each tap's block streams every
// output row of the slice, so no row is final before the last tap's block.
// Where the blocks right before an op part's last store (no compute after
// it before the core synchronizes or ends) all accumulate into the same
// view of the stored buffer, the pass first takes them row group by row group
// (each group through every tap in turn), so that the groups become final
// one after the other and their pieces leave while the next groups are
// computed. Each element still sums the same products in the same order.
// An elementwise epilogue between the blocks and the store (a batch norm's
// scale and shift, a residual add, a ReLU) goes with them, each group on
// its own elements, so that a convolution followed by its batch norm
// leaves as its groups finish too; a constant it reads (one element
// filled, read through zero strides) stays filled above the groups.
// Smaller blocks cost the MAC array more at its SRAM port, and a piece
// hides what its bytes take at the tile's share of the DRAM, so the groups
// are as many (two to four) as save most by that estimate, and none where
// it saves less than a transfer's setup and DRAM latency (ResNet-18's
// second convolution on tessel-16x16: its 3 KB slice a tile stores at 2
// bytes a cycle, 256 tiles on 512, in three pieces).
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
#include "tessel/Dialect/Tessel/Transforms/SramPlacement.h"
#include "tessel/Dialect/Tessel/Transforms/StridedViews.h"
#include "tessel/Dialect/Tessel/Transforms/TransferOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEARLYSTORES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The address ops in `block` that compute `values` and stand at or after
/// `point`, operands before users; false if one of them is not an address
/// op (it cannot move).
bool addressOpsFrom(ValueRange values, Operation *point,
                    SmallVectorImpl<Operation *> &ops,
                    llvm::SmallPtrSetImpl<Operation *> &seen) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != point->getBlock() ||
        def->isBeforeInBlock(point) || !seen.insert(def).second)
      continue;
    if (!isAddressOp(def) ||
        !addressOpsFrom(def->getOperands(), point, ops, seen))
      return false;
    ops.push_back(def);
  }
  return true;
}

struct EarlyStores : impl::TesselEarlyStoresBase<EarlyStores> {
  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      // A transfer holds its DMA channel through the DRAM latency too; the
      // pieces' latencies overlap only where a second DMA channel reads
      // the same DRAM channels (the stores take the channels in turn,
      // tessel-split-transfers). Elsewhere each piece would add a latency
      // to a tile whose channels may already be the bottleneck; the one
      // exception is the last store of a tile that runs its transfers in
      // issue order (below).
      TileOp tile = core.getTileOp();
      unsigned own = arch.getSplitChannels(tile.getRow(), tile.getCol());
      bool inIssueOrder = runsTransfersInIssueOrder(arch, tile);
      if (arch.getTileDmaChannels() < 2 * own && !inIssueOrder)
        return;
      int64_t minPieceBytes = 4 * arch.getSetupTransferBytes();
      SmallVector<DmaOp> stores;
      for (Operation &op : core.getBody().front())
        if (isDramStore(&op))
          stores.push_back(cast<DmaOp>(op));
      // Where the channels run transfers in issue order, a piece of a store
      // would queue the next step's loads behind it (tessel-spread-stores
      // moves those stores instead): only the core's last store, which
      // nothing follows, goes out as its blocks finish, and only on a tile
      // whose products outlast its transfers (on a DRAM-bound one the
      // pieces' setups and latencies only add: the 1x1 convolution on the
      // 768 KiB tile, 937 cycles).
      if (inIssueOrder) {
        if (stores.empty() ||
            isDramBound(core, arch, arch.getTransferBytesPerCycle() * own))
          return;
        stores.erase(stores.begin(), stores.end() - 1);
      }
      // Pieces of a run taken row group by row group are worth their
      // setups at the tile's share of the DRAM.
      int64_t share = getDramShare(core, arch);
      int64_t rowMinBytes = 4 * arch.getTileDmaSetupCycles() * share;
      for (DmaOp store : stores) {
        if (canCut(store) &&
            takeLastRunByRowGroups(store, arch, share, rowMinBytes))
          storeEarly(store, rowMinBytes);
        else
          storeEarly(store, minPieceBytes);
      }
    });
  }

  /// The bytes per cycle a tile's store gets from the DRAM while every
  /// tile of the device stores: the DRAM's rate over the cores, at most
  /// what one transfer moves.
  static int64_t getDramShare(CoreOp core, ArchAttr arch) {
    int64_t cores = llvm::count_if(*core->getBlock(), [](Operation &op) {
      return isa<CoreOp>(op);
    });
    int64_t dram = arch.getDramChannels() * arch.getDramBytesPerCycle();
    return std::clamp<int64_t>(dram / std::max<int64_t>(cores, 1), 1,
                               arch.getTransferBytesPerCycle());
  }

  /// Whether no compute follows `store` before the core synchronizes with
  /// other tiles or ends: the store of an op part's last step, whose
  /// pieces the next op waits for. A store before later steps' compute
  /// leaves under that compute whole.
  static bool endsOpPart(DmaOp store) {
    for (Operation *op = store->getNextNode(); op; op = op->getNextNode()) {
      if (isa<SignalOp, WaitSemaphoreOp, FenceOp>(op) ||
          op->hasTrait<OpTrait::IsTerminator>())
        return true;
      if (!isTransfer(op) && !isAddressOp(op) &&
          !isa<memref::AllocOp, memref::DeallocOp, WaitOp>(op))
        return false;
    }
    return true;
  }

  /// Whether `store`'s slice is one `storeEarly` can cut: an allocated
  /// SRAM buffer's nesting box, into a strided DRAM view.
  static bool canCut(DmaOp store) {
    std::optional<StridedBox> box = StridedBox::of(store.getSource());
    return getViewRoot(store.getSource()).getDefiningOp<memref::AllocOp>() &&
           box && box->nests() &&
           cast<MemRefType>(store.getTarget().getType()).isStrided();
  }

  /// Whether `view` has a static strided layout whose box nests (no two
  /// of its elements share an address): two such views of one buffer with
  /// the same type are the same elements.
  static bool isStaticNestingView(Value view) {
    auto type = cast<MemRefType>(view.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return false;
    std::optional<StridedBox> box = StridedBox::of(view);
    return box && box->nests();
  }

  /// Whether `op` is an instruction of the vector unit that computes each
  /// element of its result from the same element of its operands alone.
  static bool isElementwise(Operation *op) {
    return isa<VectorUnaryOp, VectorBinaryOp, VectorBinaryImmOp, VectorFillOp,
               VectorCompareOp, VectorSelectOp>(op);
  }

  /// The dimension of `slice` whose indices are those of dimension 0 of
  /// `acc`, a view of the same buffer: the views address the same elements
  /// (the same offset, and each dimension of `acc` one of `slice` of the
  /// same extent and stride, the rest of `slice` of extent 1), and `acc`'s
  /// rows are that dimension's.
  static std::optional<unsigned> getRowDim(Value acc, Value slice) {
    std::optional<StridedBox> accBox = StridedBox::of(acc);
    std::optional<StridedBox> sliceBox = StridedBox::of(slice);
    if (!accBox || !sliceBox || accBox->offset != sliceBox->offset)
      return std::nullopt;
    SmallVector<bool> matched(sliceBox->sizes.size(), false);
    std::optional<unsigned> rowDim;
    for (auto [d, size, stride] :
         llvm::enumerate(accBox->sizes, accBox->strides)) {
      unsigned s = 0;
      while (s < matched.size() &&
             (matched[s] || sliceBox->sizes[s] != size ||
              sliceBox->strides[s] != stride))
        ++s;
      if (s == matched.size())
        return std::nullopt;
      matched[s] = true;
      if (d == 0)
        rowDim = s;
    }
    for (auto [s, used] : llvm::enumerate(matched))
      if (!used && sliceBox->sizes[s] != 1)
        return std::nullopt;
    return rowDim;
  }

  /// The elementwise epilogue between a run of blocks and the store after
  /// it (a batch norm's scale and shift, a residual add, a ReLU), which
  /// the row groups take with them: its instructions, and the waits and
  /// frees among them, which the groups move below the first group's
  /// blocks and to the store.
  struct Epilogue {
    SmallVector<Operation *> instructions;
    SmallVector<Operation *> waits;
    SmallVector<Operation *> frees;
  };

  /// Whether `epilogue`, run after the blocks of `run`, can be taken row
  /// group by row group with them along one dimension of every operand:
  /// each instruction's operands are shaped as the stored `slice`, each
  /// buffer is seen through one layout (the stored buffer through the
  /// slice's), and none is an operand the blocks read, so a group's
  /// instructions touch that group's elements of each buffer only. Its
  /// waits move above the later groups' blocks, which then stall while
  /// the transfers are under way: only transfers no longer than what the
  /// DMA moves in its setup (a batch norm's parameters) are waited for
  /// there. A residual read from DRAM, waited where the blocks end, keeps
  /// the run whole (GPT-2's block on tessel-16x16, its output projection's
  /// 1.5 KB residual a tile waited after half the blocks: 107,236 ->
  /// 107,447 cycles).
  static bool canTakeByRows(const Epilogue &epilogue, Value slice,
                            ArrayRef<MatmulOp> run, ArchAttr arch) {
    for (Operation *wait : epilogue.waits)
      for (Value token : cast<WaitOp>(wait).getTokens()) {
        auto dma = token.getDefiningOp<DmaOp>();
        if (!dma || getTransferBytes(dma) > arch.getSetupTransferBytes())
          return false;
      }
    llvm::DenseMap<Value, Type> layouts;
    layouts[getViewRoot(slice)] = slice.getType();
    for (MatmulOp block : run) {
      layouts.try_emplace(getViewRoot(block.getLhs()), Type());
      layouts.try_emplace(getViewRoot(block.getRhs()), Type());
    }
    auto shape = cast<MemRefType>(slice.getType()).getShape();
    for (Operation *op : epilogue.instructions) {
      // Each instruction writes its last operand; two of whose elements
      // shared an address, two groups would write one element.
      if (!isStaticNestingView(op->getOperands().back()))
        return false;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (!type || type.getShape() != shape)
          return false;
        auto [it, inserted] =
            layouts.try_emplace(getViewRoot(operand), operand.getType());
        if (!inserted && it->second != operand.getType())
          return false;
      }
    }
    return true;
  }

  /// How many row groups (two to four) a run of `rows` rows saves most
  /// in, by the estimate of `takeLastRunByRowGroups`; 1 for none.
  static int64_t chooseRowGroups(ArrayRef<MatmulOp> run, int64_t rows,
                                 int64_t storeBytes, ArchAttr arch,
                                 int64_t share, int64_t minPieceBytes) {
    int64_t runCycles = 0;
    for (MatmulOp block : run)
      runCycles += getRunBlockCycles(block, arch, rows);
    int64_t best = 1, bestSaving = 0;
    for (int64_t groups = 2; groups <= std::min<int64_t>(4, rows); ++groups) {
      // The smallest group's piece.
      if (rows / groups * storeBytes / rows < minPieceBytes)
        break;
      int64_t cycles = 0;
      for (int64_t g = 0; g < groups; ++g) {
        int64_t groupRows = (g + 1) * rows / groups - g * rows / groups;
        for (MatmulOp block : run)
          cycles += getRunBlockCycles(block, arch, groupRows);
      }
      int64_t hidden =
          std::min(storeBytes * (groups - 1) / groups / share,
                   runCycles * (groups - 1) / groups);
      int64_t saving = hidden - (cycles - runCycles);
      if (saving > bestSaving) {
        best = groups;
        bestSaving = saving;
      }
    }
    // Each piece is a transfer whose setup and DRAM latency the estimate
    // leaves out: a saving below one transfer's fixed cost is within its
    // error (on tessel-16x16, ResNet-18's downsampling convolutions whose
    // estimate saved 16 to 96 cycles made it 539 cycles slower).
    if (bestSaving < arch.getTileDmaSetupCycles() + arch.getDramLatencyCycles())
      return 1;
    return best;
  }

  /// Takes the run of MAC-array blocks right before `store`, and the
  /// elementwise epilogue between them, row group by row group (module
  /// comment), where every block of it accumulates into the same view of
  /// the stored buffer along the same rows, and where the groups save more
  /// than they cost: the store's bytes before the last group, at the
  /// tile's DRAM `share` (at most the run's cycles after the first group),
  /// against the smaller blocks' added cycles; each group's piece of the
  /// store at least `minPieceBytes`. Returns whether it did.
  bool takeLastRunByRowGroups(DmaOp store, ArchAttr arch, int64_t share,
                              int64_t minPieceBytes) {
    if (arch.getTileMacDataflow() != "weight_stationary" ||
        arch.getTileMacWeightBuffers() != 2 || !endsOpPart(store))
      return false;
    Value root = getViewRoot(store.getSource());
    Epilogue epilogue;
    SmallVector<MatmulOp> run;
    for (Operation *op = store->getPrevNode(); op; op = op->getPrevNode()) {
      if (isAddressOp(op))
        continue;
      // The blocks go where the last one is, so nothing may be freed
      // between them; what is freed after them stays after them.
      if (run.empty() && isa<memref::DeallocOp>(op)) {
        epilogue.frees.push_back(op);
        continue;
      }
      if (run.empty() && isa<WaitOp>(op)) {
        epilogue.waits.push_back(op);
        continue;
      }
      // A constant (one element the epilogue reads through zero strides,
      // not the stored result) stays where it is filled, above the groups.
      if (auto fill = dyn_cast<VectorFillOp>(op);
          run.empty() && fill && getViewRoot(fill.getResult()) != root &&
          cast<MemRefType>(fill.getResult().getType()).getNumElements() == 1)
        continue;
      if (run.empty() && isElementwise(op)) {
        epilogue.instructions.push_back(op);
        continue;
      }
      auto block = dyn_cast<MatmulOp>(op);
      if (!block)
        break;
      run.push_back(block);
    }
    if (run.size() < 2)
      return false;
    std::reverse(run.begin(), run.end());
    std::reverse(epilogue.instructions.begin(), epilogue.instructions.end());
    std::reverse(epilogue.waits.begin(), epilogue.waits.end());
    // Every block writes the same elements of the stored buffer and reads
    // none of them, so each element's sums keep their order.
    Type accType = run.front().getAcc().getType();
    int64_t rows = cast<MemRefType>(accType).getShape().front();
    if (rows < 2 || cast<MemRefType>(accType).getNumElements() == 0 ||
        !isStaticNestingView(run.front().getAcc()))
      return false;
    for (MatmulOp block : run)
      if (block.getAcc().getType() != accType ||
          getViewRoot(block.getAcc()) != root ||
          getViewRoot(block.getLhs()) == root ||
          getViewRoot(block.getRhs()) == root ||
          cast<MemRefType>(block.getLhs().getType()).getNumElements() == 0)
        return false;
    // Where an epilogue stands between, every operand of it is cut along
    // the stored slice's dimension that holds the blocks' rows.
    std::optional<unsigned> sliceDim;
    if (!epilogue.instructions.empty()) {
      sliceDim = getRowDim(run.front().getAcc(), store.getSource());
      if (!sliceDim || !canTakeByRows(epilogue, store.getSource(), run, arch))
        return false;
    } else if (!epilogue.waits.empty()) {
      return false;
    }

    int64_t best = chooseRowGroups(run, rows, getTransferBytes(store), arch,
                                   share, minPieceBytes);
    if (best < 2)
      return false;
    auto bounds = [&](int64_t g) {
      return std::make_pair(g * rows / best, (g + 1) * rows / best);
    };

    // The groups stand where the store is, after every view the epilogue
    // uses; its waits go below the first group's blocks, its frees after
    // the last group. The ops as they stood are remembered, to go back
    // where the buffers then live longer than the tile's SRAM holds
    // (tessel-schedule filled it as they were).
    SmallVector<Operation *> stood;
    for (Operation *op = run.front(); op != store; op = op->getNextNode())
      stood.push_back(op);
    OpBuilder builder(store);
    for (int64_t g = 0; g < best; ++g) {
      auto [begin, end] = bounds(g);
      for (MatmulOp block : run) {
        Location loc = block.getLoc();
        Value lhs = createSlab(builder, loc, block.getLhs(), 0, begin,
                               end - begin);
        Value acc = createSlab(builder, loc, block.getAcc(), 0, begin,
                               end - begin);
        auto part = MatmulOp::create(builder, loc, lhs, block.getRhs(), acc,
                                     block.getInit());
        part->setDiscardableAttrs(block->getDiscardableAttrDictionary());
      }
      if (g == 0)
        for (Operation *wait : epilogue.waits)
          wait->moveBefore(store);
      for (Operation *op : epilogue.instructions) {
        SmallVector<Value> operands;
        for (Value operand : op->getOperands())
          operands.push_back(createSlab(builder, op->getLoc(), operand,
                                        *sliceDim, begin, end - begin));
        builder.clone(*op)->setOperands(operands);
      }
    }
    for (Operation *free : llvm::reverse(epilogue.frees))
      free->moveBefore(store);
    bool moved = !epilogue.waits.empty() || !epilogue.frees.empty();
    if (moved && !sramBuffersFit(store->getParentOfType<CoreOp>())) {
      llvm::SmallPtrSet<Operation *, 32> old(stood.begin(), stood.end());
      SmallVector<Operation *> created;
      for (Operation *op = run.front(); op != store; op = op->getNextNode())
        if (!old.contains(op))
          created.push_back(op);
      for (Operation *op : llvm::reverse(created))
        op->erase();
      for (Operation *op : stood)
        op->moveBefore(store);
      return false;
    }
    for (MatmulOp block : run)
      block->erase();
    for (Operation *op : epilogue.instructions)
      op->erase();
    ++numRunsByRowGroups;
    return true;
  }

  void storeEarly(DmaOp store, int64_t minPieceBytes) {
    Value source = store.getSource();
    auto type = cast<MemRefType>(source.getType());
    if (!canCut(store))
      return;
    Value root = getViewRoot(source);
    StridedBox box = *StridedBox::of(source);
    std::optional<Extent> whole = getExtent(source);
    ArrayRef<int64_t> shape = type.getShape();

    // Walk up from the store to a barrier: for every dimension of the
    // slice, the last instruction that writes each of its indices.
    Value dramRoot = getViewRoot(store.getTarget());
    IndexClaims lastWriters(root, box);
    for (Operation *op = store->getPrevNode(); op && !lastWriters.complete();
         op = op->getPrevNode()) {
      if (isStoreBarrier(op, dramRoot) || op == root.getDefiningOp())
        break;
      if (isAddressOp(op) || isa<memref::AllocOp, memref::DeallocOp>(op) ||
          !touchesExtent(op, root, *whole))
        continue;
      if (!lastWriters.claim(op))
        return; // too many elements to tell which indices it writes
    }
    SmallVector<SmallVector<Operation *>> writer(lastWriters.getClaims());

    // Written by the instruction just before the store is final where the
    // store is.
    Operation *previous = store->getPrevNode();
    while (previous && isAddressOp(previous))
      previous = previous->getPrevNode();
    for (SmallVector<Operation *> &writers : writer)
      for (Operation *&w : writers)
        if (w == previous)
          w = nullptr;

    // Cut along the dimension that gives the most pieces (ties: the
    // outermost).
    auto later = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b) ? b : a;
    };
    SmallVector<TransferPiece> pieces;
    unsigned dim = 0;
    for (auto [d, writers] : llvm::enumerate(writer)) {
      if (writers.empty())
        continue;
      int64_t rowBytes = type.getNumElements() / shape[d] *
                         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      SmallVector<TransferPiece> cut =
          getTransferPieces(writers, store, rowBytes, minPieceBytes, later);
      if (cut.size() > pieces.size()) {
        pieces = std::move(cut);
        dim = d;
      }
    }
    if (pieces.size() < 2)
      return;

    // The store's views must be computed before the first piece.
    Operation *first = store;
    for (const TransferPiece &piece : pieces)
      if (piece.at != store && piece.at->isBeforeInBlock(first))
        first = piece.at->getNextNode();
    SmallVector<Operation *> hoisted;
    llvm::SmallPtrSet<Operation *, 8> seen;
    if (!addressOpsFrom({source, store.getTarget()}, first, hoisted, seen))
      return;
    for (Operation *op : hoisted)
      op->moveBefore(first);

    SmallVector<Value> tokens;
    llvm::DenseMap<Operation *, Operation *> lastPlaced;
    OpBuilder builder(store);
    for (const TransferPiece &piece : pieces) {
      Operation *&at = lastPlaced[piece.at];
      if (at)
        builder.setInsertionPointAfter(at);
      else if (piece.at == store)
        builder.setInsertionPoint(store);
      else
        builder.setInsertionPointAfter(piece.at);
      Location loc = store.getLoc();
      int64_t size = piece.end - piece.begin;
      Value from = createSlab(builder, loc, source, dim, piece.begin, size);
      Value to =
          createSlab(builder, loc, store.getTarget(), dim, piece.begin, size);
      auto dma = DmaOp::create(builder, loc, from, to, store.getChannelAttr());
      dma->setDiscardableAttrs(store->getDiscardableAttrDictionary());
      at = dma;
      tokens.push_back(dma.getToken());
    }
    replaceTransfer(store, tokens);
    ++numSplit;
  }
};

} // namespace
} // namespace mlir::tessel
