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
// rectangle of tiles shares (tessel-share-loads, after this pass) are left
// whole, as are loads from another tile's SRAM.
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
#include "llvm/ADT/MapVector.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEARLYLOADS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The most pieces a load is cut into, and a first block split into.
constexpr int64_t kMaxPieces = 4;

/// Whether `op` only issues or waits for transfers, or names memory: the
/// ops a load may move past without delaying work.
bool isControl(Operation *op) {
  return isa<DmaOp, WaitOp, memref::DeallocOp>(op) || isAddressOp(op);
}

/// A load from DRAM that no other tile shares into an SRAM buffer only
/// this tile reads (not a slice it keeps on chip for others).
bool isOwnLoad(DmaOp dma) {
  auto buffer = getViewRoot(dma.getTarget()).getDefiningOp<memref::AllocOp>();
  return isInSpace(dma.getSource(), MemorySpace::dram) && buffer &&
         isInSpace(dma.getTarget(), MemorySpace::sram) &&
         !buffer->hasAttr(TesselDialect::getHeldAsAttrName()) &&
         !dma->hasAttr(TesselDialect::getShareAttrName());
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

struct EarlyLoads : impl::TesselEarlyLoadsBase<EarlyLoads> {
  void runOnOperation() override {
    getOperation().walk([&](CoreOp core) {
      ArchAttr arch = lookupArch(core);
      minPieceBytes = 4 * arch.getSetupTransferBytes();
      splitBlocks = arch.getTileMacDataflow() == "weight_stationary";
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
      SmallVector<SmallVector<DmaOp>> groups(1);
      SmallVector<Value> groupRoots;
      for (Operation &op : core.getBody().front()) {
        if (!isa<DmaOp>(op) && !isAddressOp(&op) && !groups.back().empty() &&
            !(passFills && isFillOfOthers(&op, groupRoots))) {
          groups.emplace_back();
          groupRoots.clear();
        }
        auto dma = dyn_cast<DmaOp>(op);
        if (dma && isOwnLoad(dma) && getHeadWait(dma, passFills)) {
          groups.back().push_back(dma);
          groupRoots.push_back(getViewRoot(dma.getTarget()));
        }
      }
      for (ArrayRef<DmaOp> group : groups)
        if (!group.empty())
          loadEarly(group);
    });
  }

  /// Cuts the loads of `group` and issues their pieces, after the last of
  /// them, in the order they are read.
  void loadEarly(ArrayRef<DmaOp> group) {
    // First the blocks that stream a whole load, in rows (a load's first
    // reader may be another's too, so all are split before any is cut).
    for (DmaOp load : group) {
      Value root = getViewRoot(load.getTarget());
      auto block =
          dyn_cast_or_null<MatmulOp>(getFirstToucher(getHeadWait(load, passFills), root));
      if (splitBlocks && block && getViewRoot(block.getLhs()) == root &&
          getViewRoot(block.getRhs()) != root &&
          getViewRoot(block.getAcc()) != root && splitRows(block, load))
        block.erase();
    }
    SmallVector<CutLoad> cuts;
    for (DmaOp load : group)
      if (std::optional<CutLoad> cut = cutByFirstReader(load, getHeadWait(load, passFills)))
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

  /// `load` cut along the dimension of its slice that gives the most
  /// pieces read first by different instructions after `wait`; none where
  /// that is one piece, or the readers cannot be told.
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
    IndexClaims firstReaders(root, *box);
    for (Operation *op = wait->getNextNode(); op && !firstReaders.complete();
         op = op->getNextNode()) {
      if (isAddressOp(op) || isa<memref::DeallocOp>(op) ||
          !touchesExtent(op, root, *whole))
        continue;
      if (!firstReaders.claim(op))
        return std::nullopt;
    }
    ArrayRef<SmallVector<Operation *>> reader = firstReaders.getClaims();

    // Never read: waited where the load was.
    auto earlier = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b) ? a : b;
    };
    int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    CutLoad best{load, 0, {}};
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
      if (cut.size() > best.pieces.size()) {
        best.pieces = std::move(cut);
        best.dim = d;
      }
    }
    if (best.pieces.size() < 2)
      return std::nullopt;
    return best;
  }

  int64_t minPieceBytes = 0;
  bool splitBlocks = false;
  bool passFills = false;
};

} // namespace
} // namespace mlir::tessel
