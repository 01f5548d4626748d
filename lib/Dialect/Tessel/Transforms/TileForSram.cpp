//===- TileForSram.cpp - Steps whose working set fits SRAM ----------------===//
//
// Chooses, per part of a partitioned op, the step (tile) sizes that let two
// steps' operand slices share the tile's SRAM, so the schedule can prefetch
// one step while computing the other. The mapper's steps, when the mapping
// has them, are where the search starts: they are kept if they fit.
//
// A mapping with resident weights keeps each tile's weight slices in SRAM
// for the whole program (tessel-promote-to-sram loads them once). They are
// not double-buffered, and every op on those tiles sizes its steps in what
// they leave free.
//
// So does the result of an op mapped `on_chip` (tessel-keep-on-chip): each
// tile of the op holds its part of the result from the op until the last op
// that reads it, and every op on that tile in between (the writer itself
// included) sizes its steps in what is left.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Epilogues.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/MathExtras.h"
#include <map>
#include <set>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELTILEFORSRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Saturated byte counts: an operand of unbounded size never fits.
constexpr int64_t kUnboundedBytes = std::numeric_limits<int64_t>::max();

/// The largest extent each loop of `op` can have: exact when static, else
/// the bound the value-bounds analysis derives (a part's slice sizes come
/// from an affine.min of the part size).
FailureOr<SmallVector<int64_t>> getLoopBounds(OpBuilder &builder,
                                              linalg::LinalgOp op) {
  SmallVector<int64_t> bounds;
  for (Range range : op.createLoopRanges(builder, op.getLoc())) {
    if (std::optional<int64_t> size = getConstantIntValue(range.size)) {
      bounds.push_back(*size);
      continue;
    }
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(range.size),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(bound))
      return op.emitOpError("has a loop whose extent cannot be bounded");
    bounds.push_back(*bound);
  }
  return bounds;
}

/// The extent of one dimension of an operand slice when each loop `d` spans
/// [0, steps[d]): the largest index plus one, for the monotone (non-negative
/// coefficient) affine accesses linalg ops use; `full` otherwise.
int64_t getSliceExtent(AffineExpr expr, ArrayRef<int64_t> steps, int64_t full) {
  SmallVector<AffineExpr> last;
  for (int64_t step : steps)
    last.push_back(getAffineConstantExpr(step - 1, expr.getContext()));
  bool monotone = true;
  expr.walk([&](AffineExpr e) {
    if (isa<AffineBinaryOpExpr>(e) && e.getKind() != AffineExprKind::Add &&
        e.getKind() != AffineExprKind::Mul)
      monotone = false;
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      if (c.getValue() < 0)
        monotone = false;
  });
  if (!monotone)
    return full;
  auto value = dyn_cast<AffineConstantExpr>(
      expr.replaceDims(last).replaceSymbols({}));
  if (!value)
    return full;
  return std::min(value.getValue() + 1, full);
}

/// Bytes of the slices of the operands `selected` accepts for one step of
/// `steps`; saturates at INT64_MAX (an operand of unbounded size never
/// fits).
int64_t getSliceBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps,
                      function_ref<bool(OpOperand &)> selected) {
  auto multiply = [](int64_t a, int64_t b) {
    int64_t product;
    return llvm::MulOverflow(a, b, product) ? kUnboundedBytes : product;
  };
  int64_t bytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !selected(operand))
      continue; // a scalar operand lives in the instruction
    AffineMap map = op.getMatchingIndexingMap(&operand);
    int64_t elements = 1;
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      int64_t full = type.isDynamicDim(dim) ? kUnboundedBytes : type.getDimSize(dim);
      elements = multiply(elements, getSliceExtent(expr, steps, full));
    }
    int64_t operandBytes =
        multiply(elements, llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    if (llvm::AddOverflow(bytes, operandBytes, bytes))
      return kUnboundedBytes;
  }
  return bytes;
}

/// The partitioned broadcast that sets `op`'s output, when one does (a
/// bias, tessel-fold-bias-adds): each accumulator then loads the
/// broadcast's input slice (tessel-promote-to-sram), or, a weight of a
/// resident op, keeps its part's slice with the weights.
linalg::BroadcastOp getSeedBroadcast(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return {};
  Value init = op.getDpsInitOperand(0)->get();
  while (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
    init = slice.getSource();
  auto arg = dyn_cast<BlockArgument>(init);
  auto forall =
      arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp()) : nullptr;
  OpOperand *tied = forall ? forall.getTiedOpOperand(arg) : nullptr;
  auto setter = tied ? tied->get().getDefiningOp<scf::ForallOp>() : nullptr;
  if (!setter)
    return {};
  auto broadcasts = setter.getBody()->getOps<linalg::BroadcastOp>();
  return broadcasts.empty() ? linalg::BroadcastOp() : *broadcasts.begin();
}

/// The extents of the slice of `op`'s only output that one step of `steps`
/// writes, per dimension of the output.
SmallVector<int64_t> getResultSliceExtents(linalg::LinalgOp op,
                                           ArrayRef<int64_t> steps) {
  OpOperand *output = op.getDpsInitOperand(0);
  auto type = cast<ShapedType>(output->get().getType());
  SmallVector<int64_t> extents;
  for (auto [dim, expr] :
       llvm::enumerate(op.getMatchingIndexingMap(output).getResults())) {
    int64_t full = type.isDynamicDim(dim) ? kUnboundedBytes : type.getDimSize(dim);
    extents.push_back(getSliceExtent(expr, steps, full));
  }
  return extents;
}

/// Bytes of the slice of the seed that sets `op`'s output (getSeedBroadcast)
/// for one step of `steps`, 0 without one; only a weight's when `weights`.
int64_t getSeedBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps,
                     bool weights = false) {
  linalg::BroadcastOp broadcast = getSeedBroadcast(op);
  if (!broadcast || (weights && !getWeightArgument(broadcast.getInput())))
    return 0;
  ArrayRef<int64_t> added = broadcast.getDimensions();
  int64_t elements = 1;
  for (auto [dim, extent] : llvm::enumerate(getResultSliceExtents(op, steps))) {
    if (!llvm::is_contained(added, static_cast<int64_t>(dim)) &&
        llvm::MulOverflow(elements, extent, elements))
      return kUnboundedBytes;
  }
  int64_t bytes;
  int64_t elementBytes = llvm::divideCeil(
      cast<ShapedType>(broadcast.getInput().getType()).getElementTypeBitWidth(),
      8);
  if (llvm::MulOverflow(elements, elementBytes, bytes))
    return kUnboundedBytes;
  return bytes;
}

/// Bytes of the SRAM temporaries `tessel-lower-to-instructions` allocates
/// for one step of `op` (an upper bound), saturating like getSliceBytes:
/// - a generic evaluates its body one vector instruction per op over the
///   step's iteration space, each result (and each float constant the body
///   uses) in a temporary, plus one temporary per reduced loop;
/// - a depthwise convolution multiplies each tap into a temporary of the
///   output step's size;
/// - a depthwise convolution or a pooling of narrow inputs (bf16, f16)
///   into a wider output widens each window into one more such temporary,
///   and a depthwise convolution its weights into one of their size.
int64_t getScratchBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps) {
  int64_t count = 0;
  int64_t elements = 1;
  int64_t extra = 0;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    Block &body = generic.getRegion().front();
    llvm::SmallPtrSet<Value, 8> captured;
    for (Operation &bodyOp : body.without_terminator()) {
      ++count;
      for (Value operand : bodyOp.getOperands())
        if (operand.getParentBlock() != &body)
          captured.insert(operand);
    }
    count += captured.size() + generic.getNumReductionLoops();
    for (int64_t step : steps)
      if (llvm::MulOverflow(elements, step, elements))
        return kUnboundedBytes;
  } else if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
                 linalg::PoolingNchwSumOp>(op.getOperation())) {
    bool depthwise = isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation());
    bool widened = getElementTypeOrSelf(op.getDpsInputs()[0].getType()) !=
                   getElementTypeOrSelf(op.getDpsInits()[0].getType());
    count = int64_t(depthwise) + int64_t(widened);
    for (auto [step, iterator] : llvm::zip(steps, op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::parallel &&
          llvm::MulOverflow(elements, step, elements))
        return kUnboundedBytes;
    // The weights' slice (C x KH x KW) of the step.
    if (depthwise && widened) {
      extra = 4;
      AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
      for (unsigned dim = 0; dim < map.getNumResults(); ++dim)
        if (llvm::MulOverflow(extra, steps[map.getDimPosition(dim)], extra))
          return kUnboundedBytes;
    }
  }
  // Temporaries hold at most 32-bit elements (the vector unit's widest).
  int64_t bytes;
  if (llvm::MulOverflow(elements, count * 4, bytes) ||
      llvm::AddOverflow(bytes, extra, bytes))
    return kUnboundedBytes;
  return bytes;
}

/// Bytes an epilogue (tessel-fuse-epilogues) of `op`'s partition needs on
/// a slice of `op`'s result for one step of `steps`: its inputs' slices
/// (but the weights', which stay with a `resident` op's), its temporaries,
/// and its output's slice where its element type is not the result's; 0
/// without one. With `residentWeights`, only the slices of its weights,
/// which a resident op keeps.
int64_t getEpilogueBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps,
                         bool resident, bool residentWeights = false) {
  auto forall = op->getParentOfType<scf::ForallOp>();
  scf::ForallOp epilogue = forall ? getEpilogue(forall) : scf::ForallOp();
  linalg::GenericOp generic =
      epilogue ? getEpilogueOp(epilogue) : linalg::GenericOp();
  if (!generic || op.getNumDpsInits() != 1)
    return 0;
  // The result slice's extents are the epilogue's loops.
  SmallVector<int64_t> slice = getResultSliceExtents(op, steps);
  // getSliceBytes counts the input that reads the result too: the result's
  // own buffer holds it, so that slice is an overestimate, left as margin.
  int64_t inputs = getSliceBytes(generic, slice, [&](OpOperand &operand) {
    bool kept = resident && getWeightArgument(operand.get());
    return generic.isDpsInput(&operand) && kept == residentWeights;
  });
  if (residentWeights)
    return inputs;
  int64_t scratch = getScratchBytes(generic, slice);
  // A result of another element type is computed into a slice of its own.
  if (getElementTypeOrSelf(generic.getDpsInits()[0].getType()) !=
      getElementTypeOrSelf(op.getDpsInits()[0].getType())) {
    int64_t output = getSliceBytes(generic, slice, [&](OpOperand &operand) {
      return generic.isDpsInit(&operand);
    });
    if (llvm::AddOverflow(scratch, output, scratch))
      return kUnboundedBytes;
  }
  int64_t bytes;
  if (llvm::AddOverflow(inputs, scratch, bytes))
    return kUnboundedBytes;
  return bytes;
}

/// The SRAM a step of `steps` needs with double buffering: two steps'
/// operands (one computing, one arriving; resident weights are neither),
/// the computing step's temporaries, its accumulator's seed slice and its
/// epilogue's slices and temporaries; kUnboundedBytes when that overflows.
int64_t getDoubleBufferedBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps,
                               bool resident) {
  int64_t operands = getSliceBytes(op, steps, [&](OpOperand &operand) {
    return !isResidentWeight(op, operand, resident);
  });
  int64_t scratch = getScratchBytes(op, steps);
  // A resident op's weight seed lies with its weights.
  int64_t seed = getSeedBytes(op, steps) -
                 (resident ? getSeedBytes(op, steps, /*weights=*/true) : 0);
  int64_t epilogue = getEpilogueBytes(op, steps, resident);
  if (operands > kUnboundedBytes / 4 || scratch > kUnboundedBytes / 4 ||
      seed > kUnboundedBytes / 4 || epilogue > kUnboundedBytes / 4)
    return kUnboundedBytes;
  return 2 * operands + scratch + seed + epilogue;
}

/// A partitioned op: one tile's part and the mapping it was split by.
struct Part {
  linalg::LinalgOp op;
  MappingAttr mapping;
};

/// The bytes of resident weights each tile holds for the whole program: for
/// every op mapped with `resident`, its part's weight slices on each tile of
/// its rectangle.
FailureOr<std::map<std::pair<int64_t, int64_t>, int64_t>>
getResidentBytesPerTile(OpBuilder &builder, ArrayRef<Part> parts) {
  std::map<std::pair<int64_t, int64_t>, int64_t> reserved;
  for (auto [op, mapping] : parts) {
    if (!mapping.getResident())
      continue;
    builder.setInsertionPoint(op);
    FailureOr<SmallVector<int64_t>> bounds = getLoopBounds(builder, op);
    if (failed(bounds))
      return failure();
    int64_t bytes = getSliceBytes(op, *bounds, [&](OpOperand &operand) {
      return isResidentWeight(op, operand, /*resident=*/true);
    });
    int64_t seed = getSeedBytes(op, *bounds, /*weights=*/true);
    int64_t epilogue = getEpilogueBytes(op, *bounds, /*resident=*/true,
                                        /*residentWeights=*/true);
    if (llvm::AddOverflow(bytes, seed, bytes) ||
        llvm::AddOverflow(bytes, epilogue, bytes))
      bytes = kUnboundedBytes;
    for (int64_t part = 0; part < mapping.getNumTiles(); ++part) {
      int64_t &total = reserved[mapping.getTileOfPart(part)];
      if (llvm::AddOverflow(total, bytes, total))
        total = kUnboundedBytes;
    }
  }
  return reserved;
}

/// The part of an on-chip result each tile of its writer holds, and the
/// ops (positions in the function, both ends included) it is held over.
struct HeldResult {
  int64_t first, last;
  std::set<std::pair<int64_t, int64_t>> tiles;
  int64_t bytes;
};

/// The position in `func`'s body of the op `op` is, or is inside.
int64_t getPosition(func::FuncOp func, Operation *op,
                    const DenseMap<Operation *, int64_t> &positions) {
  while (op->getParentOp() != func)
    op = op->getParentOp();
  return positions.lookup(op);
}

/// The results of the foralls mapped `on_chip` in `func`: each tile's part
/// (its largest output slice, the outputs of the part's ops taken whole)
/// held from the forall to the last op that reads its results, directly
/// or through reshapes and slices outside any op and through epilogues.
FailureOr<SmallVector<HeldResult>>
getHeldResults(func::FuncOp func, OpBuilder &builder, int64_t alignment,
               const DenseMap<Operation *, int64_t> &positions) {
  SmallVector<HeldResult> held;
  for (auto forall : func.getBody().getOps<scf::ForallOp>()) {
    auto mapping = forall->getAttrOfType<MappingAttr>(
        TesselDialect::getPartitionAttrName());
    if (!mapping || !mapping.getOnChip())
      continue;
    HeldResult result{positions.lookup(forall), positions.lookup(forall), {}, 0};
    for (int64_t part = 0; part < mapping.getNumTiles(); ++part)
      result.tiles.insert(mapping.getTileOfPart(part));
    WalkResult walk = forall.getBody()->walk([&](linalg::LinalgOp op) {
      builder.setInsertionPoint(op);
      FailureOr<SmallVector<int64_t>> bounds = getLoopBounds(builder, op);
      if (failed(bounds))
        return WalkResult::interrupt();
      int64_t bytes = getSliceBytes(op, *bounds, [&](OpOperand &operand) {
        return op.isDpsInit(&operand);
      });
      if (bytes != kUnboundedBytes)
        bytes = llvm::alignTo(bytes, alignment);
      result.bytes = std::max(result.bytes, bytes);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    SmallVector<Value> values(forall.getResults());
    while (!values.empty()) {
      for (Operation *user : values.pop_back_val().getUsers()) {
        int64_t position = getPosition(func, user, positions);
        result.last = std::max(result.last, position);
        // A reshape or slice outside the ops, or an epilogue (which runs on
        // the writer's slices before they are stored,
        // tessel-fuse-epilogues): what reads it reads the result.
        Operation *top = user;
        while (top->getParentOp() != func)
          top = top->getParentOp();
        if ((top == user && !isa<scf::ForallOp>(user)) ||
            top->hasAttr(TesselDialect::getEpilogueAttrName()))
          values.append(top->result_begin(), top->result_end());
      }
    }
    held.push_back(std::move(result));
  }
  return held;
}

struct TileForSram : impl::TesselTileForSramBase<TileForSram> {
  void runOnOperation() override {
    ArchAttr arch = lookupArchOrError(getOperation());
    if (!arch)
      return signalPassFailure();
    int64_t sramBytes = arch.getTileSramBytes();

    SmallVector<Part> parts;
    getOperation().walk([&](scf::ForallOp forall) {
      auto mapping = forall->getAttrOfType<MappingAttr>(
          TesselDialect::getPartitionAttrName());
      if (!mapping)
        return;
      forall.getBody()->walk(
          [&](linalg::LinalgOp op) { parts.push_back({op, mapping}); });
    });

    IRRewriter rewriter(&getContext());
    FailureOr<std::map<std::pair<int64_t, int64_t>, int64_t>> reserved =
        getResidentBytesPerTile(rewriter, parts);
    if (failed(reserved))
      return signalPassFailure();
    // Each op's place in the function, for the spans results are held.
    DenseMap<Operation *, int64_t> positions;
    for (auto [index, op] : llvm::enumerate(getOperation().getBody().front()))
      positions[&op] = static_cast<int64_t>(index);
    FailureOr<SmallVector<HeldResult>> held = getHeldResults(
        getOperation(), rewriter, arch.getTileSramAlignment(), positions);
    if (failed(held))
      return signalPassFailure();
    for (auto [op, mapping] : parts) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<int64_t>> bounds = getLoopBounds(rewriter, op);
      if (failed(bounds))
        return signalPassFailure();
      // What the resident weights and the on-chip results held at this op
      // leave free on its busiest tile.
      int64_t position = getPosition(getOperation(), op, positions);
      int64_t residentBytes = 0, heldBytes = 0;
      for (int64_t part = 0; part < mapping.getNumTiles(); ++part) {
        std::pair<int64_t, int64_t> tile = mapping.getTileOfPart(part);
        auto it = reserved->find(tile);
        int64_t resident = it != reserved->end() ? it->second : 0;
        int64_t onChip = 0;
        for (const HeldResult &result : *held)
          if (result.first <= position && position <= result.last &&
              result.tiles.count(tile) &&
              llvm::AddOverflow(onChip, result.bytes, onChip))
            onChip = kUnboundedBytes;
        int64_t total;
        if (llvm::AddOverflow(resident, onChip, total))
          total = kUnboundedBytes;
        if (total >= residentBytes + heldBytes) {
          residentBytes = resident;
          heldBytes = onChip;
        }
      }
      int64_t reservedBytes = residentBytes;
      if (llvm::AddOverflow(reservedBytes, heldBytes, reservedBytes))
        reservedBytes = kUnboundedBytes;
      int64_t freeBytes = sramBytes - std::min(reservedBytes, sramBytes);
      bool resident = mapping.getResident();
      // The mapping's steps, where it has them, else the whole part.
      SmallVector<int64_t> steps = *bounds;
      ArrayRef<int64_t> chosen = mapping.getSteps();
      if (chosen.size() == steps.size())
        for (auto [step, mapped] : llvm::zip(steps, chosen))
          step = std::min(step, mapped);
      // Halve the loop whose halving shrinks the working set most; ties go
      // to the outermost loop, which keeps slices contiguous.
      while (getDoubleBufferedBytes(op, steps, resident) > freeBytes) {
        std::optional<size_t> best;
        int64_t bestBytes = 0;
        for (size_t loop = 0; loop < steps.size(); ++loop) {
          if (steps[loop] == 1)
            continue;
          SmallVector<int64_t> trial = steps;
          trial[loop] = llvm::divideCeil(trial[loop], 2);
          int64_t bytes = getDoubleBufferedBytes(op, trial, resident);
          if (!best || bytes < bestBytes) {
            best = loop;
            bestBytes = bytes;
          }
        }
        if (!best) {
          int64_t needed = getDoubleBufferedBytes(op, steps, resident);
          InFlightDiagnostic diag = op.emitOpError() << "needs ";
          if (needed == kUnboundedBytes)
            diag << "an unbounded amount of SRAM";
          else
            diag << needed << " bytes of SRAM";
          diag << " for two single-element steps and their temporaries, but "
                  "a tile has "
               << sramBytes << " bytes";
          auto amount = [](int64_t bytes) {
            return bytes == kUnboundedBytes ? std::string("an unbounded amount")
                                            : std::to_string(bytes);
          };
          if (residentBytes)
            diag << ", of which resident weights hold " << amount(residentBytes)
                 << "; keep fewer weights resident";
          if (heldBytes)
            diag << (residentBytes ? " (" : ", of which ")
                 << "results kept on chip hold " << amount(heldBytes)
                 << (residentBytes ? ")" : "")
                 << "; keep fewer results on chip (on_chip in their mappings)";
          return signalPassFailure();
        }
        steps[*best] = llvm::divideCeil(steps[*best], 2);
      }
      if (steps == *bounds)
        continue;

      SmallVector<OpFoldResult> sizes;
      for (auto [step, bound] : llvm::zip(steps, *bounds))
        sizes.push_back(rewriter.getIndexAttr(step == bound ? 0 : step));
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) {
        op.emitOpError("could not be tiled into SRAM-sized steps");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, tiled->replacements);
      ++numOpsTiled;
    }
  }
};

} // namespace
} // namespace mlir::tessel
