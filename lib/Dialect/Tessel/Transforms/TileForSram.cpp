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
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Epilogues.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/MathExtras.h"
#include <map>

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
///   output step's size.
int64_t getScratchBytes(linalg::LinalgOp op, ArrayRef<int64_t> steps) {
  int64_t count = 0;
  int64_t elements = 1;
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
  } else if (isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation())) {
    count = 1;
    for (auto [step, iterator] : llvm::zip(steps, op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::parallel &&
          llvm::MulOverflow(elements, step, elements))
        return kUnboundedBytes;
  }
  // Temporaries hold at most 32-bit elements (the vector unit's widest).
  int64_t bytes;
  if (llvm::MulOverflow(elements, count * 4, bytes))
    return kUnboundedBytes;
  return bytes;
}

/// Bytes an epilogue (tessel-fuse-epilogues) of `op`'s partition needs on
/// a slice of `op`'s result for one step of `steps`: its inputs' slices
/// (but the weights', which stay with a `resident` op's) and its
/// temporaries; 0 without one. With `residentWeights`, only the slices of
/// its weights, which a resident op keeps.
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
    for (auto [op, mapping] : parts) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<int64_t>> bounds = getLoopBounds(rewriter, op);
      if (failed(bounds))
        return signalPassFailure();
      // What the resident weights on the op's busiest tile leave free.
      int64_t residentBytes = 0;
      for (int64_t part = 0; part < mapping.getNumTiles(); ++part) {
        auto it = reserved->find(mapping.getTileOfPart(part));
        if (it != reserved->end())
          residentBytes = std::max(residentBytes, it->second);
      }
      int64_t freeBytes = sramBytes - std::min(residentBytes, sramBytes);
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
          if (residentBytes)
            diag << ", of which resident weights hold "
                 << (residentBytes == kUnboundedBytes
                         ? std::string("an unbounded amount")
                         : std::to_string(residentBytes))
                 << "; keep fewer weights resident";
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
