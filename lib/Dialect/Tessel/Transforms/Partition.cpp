//===- Partition.cpp - Split mapped ops into one part per tile ------------===//
//
// Applies an op's #tessel.mapping with the upstream tiling machinery: the
// parts become the iterations of an scf.forall, each computing one slice of
// the result, so the later stages see per-tile work as ordinary tensor IR.
// A split reduction loop becomes partial results, one per part along a new
// innermost dimension, which a linalg.reduce then adds to the op's init: the
// fill of the partials and that reduce are mapped and partitioned in turn.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPARTITION
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Tile sizes that cut each loop into its number of parts; a loop in one part
/// is not tiled (size 0). An op in a single part is "split" along its first
/// parallel loop into one piece, so that it too becomes a forall.
FailureOr<SmallVector<OpFoldResult>>
getPartSizes(RewriterBase &rewriter, TilingInterface op, MappingAttr mapping) {
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  ArrayRef<int64_t> parts = mapping.getParts();
  SmallVector<OpFoldResult> sizes(domain.size(), rewriter.getIndexAttr(0));
  bool split = false;
  for (auto [loop, range] : llvm::enumerate(domain)) {
    if (parts[loop] == 1)
      continue;
    std::optional<int64_t> extent = getConstantIntValue(range.size);
    if (!extent)
      return op.emitOpError() << "splits loop #" << loop
                              << ", whose extent is not static, into "
                              << parts[loop] << " parts";
    sizes[loop] = rewriter.getIndexAttr(llvm::divideCeil(*extent, parts[loop]));
    split = true;
  }
  if (!split) {
    // Only reached with a parallel loop (see wrapInSingleIterationForall).
    auto parallel = llvm::find(iterators, utils::IteratorType::parallel);
    size_t loop = std::distance(iterators.begin(), parallel);
    sizes[loop] = domain[loop].size;
  }
  return sizes;
}

/// An op split with a reduction loop among the split ones: the forall of
/// its parts, the ops that create and add up the partial results, and what
/// replaces the op's results.
struct PartialSplit {
  scf::ForallOp forall;
  SmallVector<Operation *> partOps;
  SmallVector<Operation *> helpers;
  SmallVector<Value> replacements;
};

/// Splits `op` when its mapping splits a reduction loop, alone or together
/// with parallel loops: one scf.forall over every split loop, each part
/// computing its parallel slice's partial result over its share of the
/// reduction into a tensor of partials (one more dimension per split
/// reduction loop, filled with the reduction's identity), which the merge op
/// then adds up. Upstream's partial-reduction tiling (tileUsingSCF) tiles no
/// parallel loop in the same loop nest; the PartialReductionOpInterface it
/// calls takes every loop's offset and size, so this builds the forall
/// itself. The split must divide each split loop evenly.
FailureOr<PartialSplit> splitWithPartials(RewriterBase &rewriter,
                                          TilingInterface op,
                                          MappingAttr mapping) {
  auto partial = dyn_cast<PartialReductionOpInterface>(op.getOperation());
  if (!partial)
    return op.emitOpError("splits a reduction loop, but has no partial "
                          "reduction to compute per part");
  // Upstream's partial reductions place each part's partials by the loops
  // that index the result, and take every result dimension to be one.
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op.getOperation()))
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      for (auto [dim, expr] :
           llvm::enumerate(linalgOp.getMatchingIndexingMap(&init).getResults()))
        if (!isa<AffineDimExpr>(expr)) {
          std::string index;
          llvm::raw_string_ostream(index) << expr;
          return op.emitOpError()
                 << "splits a reduction loop, but dimension #" << dim
                 << " of its result is indexed by `" << index
                 << "`, not by a loop, so its partial results have no place; "
                    "map it without splitting a reduction loop";
        }
  Location loc = op.getLoc();
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  ArrayRef<int64_t> parts = mapping.getParts();
  const auto strategy = ReductionTilingStrategy::PartialReductionOuterParallel;

  SetVector<unsigned> reductionDims;
  SmallVector<unsigned> splitLoops;
  SmallVector<int64_t> partSizes;
  // The partials' extent along each loop: a split reduction loop's is its
  // number of parts.
  SmallVector<OpFoldResult> partialsSizes;
  for (auto [loop, range] : llvm::enumerate(domain)) {
    bool reduction = iterators[loop] == utils::IteratorType::reduction;
    partialsSizes.push_back(range.size);
    if (parts[loop] == 1)
      continue;
    std::optional<int64_t> extent = getConstantIntValue(range.size);
    if (!extent || *extent % parts[loop] != 0)
      return op.emitOpError()
             << "splits loop #" << loop << " into " << parts[loop]
             << " parts together with a reduction loop; each split loop's "
                "extent must be static and divide evenly (it is "
             << (extent ? std::to_string(*extent) : std::string("dynamic"))
             << ")";
    splitLoops.push_back(loop);
    partSizes.push_back(*extent / parts[loop]);
    if (reduction) {
      reductionDims.insert(loop);
      partialsSizes.back() = rewriter.getIndexAttr(parts[loop]);
    }
  }
  FailureOr<SmallVector<Value>> inits =
      partial.generateInitialTensorForPartialReduction(
          rewriter, loc, partialsSizes, reductionDims);
  if (failed(inits))
    return op.emitOpError("could not create the tensor of its partial results");

  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (auto [loop, size] : llvm::zip(splitLoops, partSizes)) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(domain[loop].size);
    steps.push_back(rewriter.getIndexAttr(size));
  }
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps, *inits,
                                      /*mapping=*/std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  SmallVector<OpFoldResult> offsets, sizes, splitIvs;
  for (Range &range : domain) {
    offsets.push_back(range.offset);
    sizes.push_back(range.size);
  }
  AffineExpr iv = rewriter.getAffineDimExpr(0);
  for (auto [loop, size, forallIv] :
       llvm::zip(splitLoops, partSizes, forall.getInductionVars())) {
    offsets[loop] = forallIv;
    sizes[loop] = rewriter.getIndexAttr(size);
    // The reduction part's index, where its partial result goes.
    if (reductionDims.contains(loop))
      splitIvs.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, iv.floorDiv(size), {forallIv}));
  }
  FailureOr<TilingResult> tiled = partial.tileToPartialReduction(
      rewriter, loc, strategy, forall.getRegionIterArgs(), offsets, sizes,
      reductionDims, splitIvs);
  if (failed(tiled))
    return op.emitOpError("could not compute a part's partial result");
  SmallVector<SmallVector<OpFoldResult>> resultOffsets, resultSizes;
  for (size_t result = 0; result < tiled->tiledValues.size(); ++result) {
    if (failed(partial.getPartialResultTilePosition(
            rewriter, result, strategy, offsets, sizes, reductionDims,
            splitIvs, resultOffsets.emplace_back(),
            resultSizes.emplace_back())))
      return op.emitOpError("could not place a part's partial result");
  }
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [value, shared, resultOffset, resultSize] :
       llvm::zip(tiled->tiledValues, forall.getRegionIterArgs(), resultOffsets,
                 resultSizes)) {
    SmallVector<OpFoldResult> strides(resultOffset.size(),
                                      rewriter.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(rewriter, loc, value, shared,
                                          resultOffset, resultSize, strides);
  }

  rewriter.setInsertionPointAfter(forall);
  FailureOr<MergeResult> merged = partial.mergeReductions(
      rewriter, loc, forall.getResults(), reductionDims);
  if (failed(merged))
    return op.emitOpError("could not add up its partial results");
  PartialSplit split{forall, tiled->tiledOps, merged->mergeOps,
                     merged->replacements};
  for (Value init : *inits)
    if (Operation *fill = init.getDefiningOp())
      split.helpers.push_back(fill);
  return split;
}

/// Wraps an op without parallel loops (a full reduction) in a one-iteration
/// scf.forall, the form every other mapped op takes after partitioning.
FailureOr<scf::ForallOp> wrapInSingleIterationForall(RewriterBase &rewriter,
                                                    TilingInterface op) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
  if (!dps || !dps.hasPureTensorSemantics())
    return op.emitOpError("has no parallel loop and is not a destination-"
                          "style op on tensors, so it cannot be placed");
  Location loc = op.getLoc();
  SmallVector<Value> inits = llvm::to_vector(dps.getDpsInits());
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, inits,
      /*mapping=*/std::nullopt);
  Block *body = forall.getBody();
  rewriter.setInsertionPointToStart(body);
  IRMapping map;
  for (auto [init, shared] : llvm::zip(inits, forall.getRegionIterArgs()))
    map.map(init, shared);
  Operation *part = rewriter.clone(*op.getOperation(), map);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [result, shared] :
       llvm::zip(part->getResults(), forall.getRegionIterArgs())) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = llvm::map_to_vector(
        type.getShape(), [&](int64_t d) -> OpFoldResult {
          return rewriter.getIndexAttr(d);
        });
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared,
                                          offsets, sizes, strides);
  }
  part->removeAttr(TesselDialect::getMappingAttrName());
  rewriter.replaceOp(op, forall.getResults());
  return forall;
}

/// A mapping for an op the partitioning of `mapped` created (the fill of
/// its partial results, the reduce that adds them up): its largest parallel
/// loop split over `mapped`'s rectangle where it divides evenly, else the
/// rectangle's first tile. It keeps weights resident where `mapped` does:
/// the reduce starts from the op's init, which may be a weight's broadcast
/// (a bias, tessel-fold-bias-adds).
MappingAttr getHelperMapping(TilingInterface op, MappingAttr mapped,
                             OpBuilder &builder) {
  SmallVector<Range> domain = op.getIterationDomain(builder);
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  SmallVector<int64_t> parts(domain.size(), 1);
  int64_t tiles = mapped.getNumTiles();
  std::optional<size_t> widest;
  int64_t widestExtent = 0;
  for (auto [loop, range] : llvm::enumerate(domain)) {
    std::optional<int64_t> extent = getConstantIntValue(range.size);
    if (iterators[loop] == utils::IteratorType::parallel && extent &&
        *extent > widestExtent) {
      widest = loop;
      widestExtent = *extent;
    }
  }
  bool spread = widest && widestExtent % tiles == 0;
  if (spread)
    parts[*widest] = tiles;
  return MappingAttr::get(op->getContext(), mapped.getRow(), mapped.getCol(),
                          spread ? mapped.getRows() : 1,
                          spread ? mapped.getCols() : 1, parts,
                          mapped.getStage(), /*steps=*/{}, /*order=*/{},
                          mapped.getResident(), /*shared=*/false,
                          /*onChip=*/false);
}

struct Partition : impl::TesselPartitionBase<Partition> {
  void runOnOperation() override {
    StringRef mappingName = TesselDialect::getMappingAttrName();
    SmallVector<TilingInterface> mapped;
    getOperation().walk([&](TilingInterface op) {
      if (op->hasAttr(mappingName))
        mapped.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    // Ops are appended while partitioning (the helpers of split reductions).
    for (size_t next = 0; next < mapped.size(); ++next) {
      TilingInterface op = mapped[next];
      auto mapping = cast<MappingAttr>(op->getAttr(mappingName));
      rewriter.setInsertionPoint(op);
      // An empty tensor has no parts to give the tiles.
      for (auto [loop, range] : llvm::enumerate(op.getIterationDomain(rewriter)))
        if (getConstantIntValue(range.size) == 0) {
          op.emitOpError() << "computes an empty tensor (loop #" << loop
                           << " has extent 0); remove it from the model, "
                              "or give the dimension a size";
          return signalPassFailure();
        }
      bool splitsReduction = llvm::any_of(
          llvm::zip(op.getLoopIteratorTypes(), mapping.getParts()),
          [](auto loop) {
            return std::get<0>(loop) == utils::IteratorType::reduction &&
                   std::get<1>(loop) > 1;
          });
      if (!splitsReduction &&
          !llvm::is_contained(op.getLoopIteratorTypes(),
                              utils::IteratorType::parallel)) {
        FailureOr<scf::ForallOp> forall =
            wrapInSingleIterationForall(rewriter, op);
        if (failed(forall))
          return signalPassFailure();
        (*forall)->setAttr(TesselDialect::getPartitionAttrName(), mapping);
        ++numOpsPartitioned;
        continue;
      }
      if (splitsReduction) {
        FailureOr<PartialSplit> split =
            splitWithPartials(rewriter, op, mapping);
        if (failed(split))
          return signalPassFailure();
        split->forall->setAttr(TesselDialect::getPartitionAttrName(), mapping);
        for (Operation *part : split->partOps)
          part->removeAttr(mappingName);
        // The partials' fill and the merge that adds them up run next to
        // the op, partitioned like any mapped op.
        for (Operation *helper : split->helpers) {
          auto helperOp = dyn_cast<TilingInterface>(helper);
          if (!helperOp)
            continue;
          helper->setAttr(mappingName,
                          getHelperMapping(helperOp, mapping, rewriter));
          mapped.push_back(helperOp);
        }
        rewriter.replaceOp(op, split->replacements);
        ++numOpsPartitioned;
        continue;
      }
      FailureOr<SmallVector<OpFoldResult>> sizes =
          getPartSizes(rewriter, op, mapping);
      if (failed(sizes))
        return signalPassFailure();

      scf::SCFTilingOptions options;
      options.setTileSizes(*sizes);
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, op, options);
      if (failed(tiled)) {
        op.emitOpError() << "could not be split into the parts of its mapping";
        return signalPassFailure();
      }
      // The mapping now describes the loop; each tiled op is one tile's part.
      tiled->loops.front()->setAttr(TesselDialect::getPartitionAttrName(),
                                    mapping);
      // So does an epilogue's mark (tessel-fuse-epilogues).
      if (Attribute epilogue =
              op->getAttr(TesselDialect::getEpilogueAttrName())) {
        tiled->loops.front()->setAttr(TesselDialect::getEpilogueAttrName(),
                                      epilogue);
        for (Operation *part : tiled->tiledOps)
          part->removeAttr(TesselDialect::getEpilogueAttrName());
      }
      for (Operation *part : tiled->tiledOps)
        part->removeAttr(mappingName);
      rewriter.replaceOp(op, tiled->replacements);
      ++numOpsPartitioned;
    }
  }
};

} // namespace
} // namespace mlir::tessel
