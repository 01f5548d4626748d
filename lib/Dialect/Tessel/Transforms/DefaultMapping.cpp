//===- DefaultMapping.cpp - Map ops over the grid before a mapper does ----===//
//
// A simple, predictable mapping that lets every later stage run without the
// CP-SAT mapper: each op is data-parallel along its largest parallel loop.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELDEFAULTMAPPING
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether splitting `extent` into `parts` (each ceil(extent / parts) long)
/// leaves no part empty: 10 in 9 parts of 2 would use only 5 tiles.
bool usesEveryPart(int64_t extent, int64_t parts) {
  return llvm::divideCeil(extent, llvm::divideCeil(extent, parts)) == parts;
}

/// The largest rectangle of tiles, anchored at (0, 0), whose tiles all get a
/// non-empty part of `extent`; for equal areas the one with fewer rows
/// (nearer the north edge).
std::pair<int64_t, int64_t> largestRectangle(int64_t gridRows, int64_t gridCols,
                                             int64_t extent) {
  std::pair<int64_t, int64_t> best = {1, 1};
  for (int64_t rows = 1; rows <= gridRows; ++rows)
    for (int64_t cols = 1; cols <= gridCols; ++cols)
      if (rows * cols > best.first * best.second &&
          usesEveryPart(extent, rows * cols))
        best = {rows, cols};
  return best;
}

/// Whether, split along `loop`, several parts of `op` read the same slice
/// of an input: one whose indexing does not involve the loop (a matmul's
/// right operand split by rows, a bias). Those parts share their loads.
bool readsSharedSlices(linalg::LinalgOp op, size_t loop) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return isa<ShapedType>(input->get().getType()) &&
           !op.getMatchingIndexingMap(input).isFunctionOfDim(loop);
  });
}

struct DefaultMapping : impl::TesselDefaultMappingBase<DefaultMapping> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ArchAttr arch = lookupArchOrError(module);
    if (!arch)
      return signalPassFailure();
    int64_t gridRows = arch.getGridRows(), gridCols = arch.getGridCols();
    StringRef mappingName = TesselDialect::getMappingAttrName();

    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(mappingName))
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      // The outermost of the largest parallel loops: splitting it keeps each
      // tile's slice contiguous in row-major tensors.
      std::optional<size_t> splitLoop;
      for (auto [loop, range] : llvm::enumerate(ranges)) {
        // Loops of extent 0 or 1 have nothing to split.
        if (iterators[loop] != utils::IteratorType::parallel ||
            ShapedType::isDynamic(range) || range < 2)
          continue;
        if (!splitLoop || range > ranges[*splitLoop])
          splitLoop = loop;
      }
      SmallVector<int64_t> parts(ranges.size(), 1);
      std::pair<int64_t, int64_t> shape = {1, 1};
      if (splitLoop) {
        shape = largestRectangle(gridRows, gridCols, ranges[*splitLoop]);
        parts[*splitLoop] = shape.first * shape.second;
      }
      op->setAttr(mappingName,
                  MappingAttr::get(op->getContext(), /*row=*/0, /*col=*/0,
                                   shape.first, shape.second, parts,
                                   /*stage=*/0, /*steps=*/{}, /*order=*/{},
                                   /*resident=*/false,
                                   /*shared=*/shape.first * shape.second > 1 &&
                                       readsSharedSlices(op, *splitLoop),
                                   /*onChip=*/false));
      ++numOpsMapped;
    });
  }
};

} // namespace
} // namespace mlir::tessel
