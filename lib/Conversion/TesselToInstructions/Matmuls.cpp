//===- Matmuls.cpp - Matmuls, broadcasts and transposes ------------------===//
//
// linalg.matmul and linalg.batch_matmul become MAC-array blocks in the
// ISA's accumulation order (as written or transposed, whichever the timing
// model says is faster); linalg.broadcast and linalg.transpose vector copies
// through strided views.
//
//===----------------------------------------------------------------------===//

#include "InstructionLowering.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tessel::instructions {

FailureOr<InstructionLowering::Strided2D>
InstructionLowering::loopView(Value buffer, AffineMap map, unsigned row,
                              unsigned col, int64_t batch) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides = stridesOf(buffer);
  Strided2D view{buffer, 0, {0, 0}, {0, 0}};
  std::array<bool, 2> found = {false, false};
  for (auto [dim, result] : llvm::enumerate(map.getResults())) {
    auto loop = dyn_cast<AffineDimExpr>(result);
    if (!loop)
      return failure();
    unsigned position = loop.getPosition();
    if (position == 0 && position != row && position != col) {
      view.offset += batch * strides[dim];
      continue;
    }
    if (position != row && position != col)
      return failure();
    unsigned side = position == row ? 0 : 1;
    if (found[side])
      return failure();
    found[side] = true;
    view.sizes[side] = type.getDimSize(dim);
    view.strides[side] = strides[dim];
  }
  if (!found[0] || !found[1])
    return failure();
  return view;
}

InstructionLowering::Strided2D InstructionLowering::transposed(Strided2D view) {
  assert(view.groups == 1 && "only a view of one group transposes");
  std::swap(view.sizes[0], view.sizes[1]);
  std::swap(view.strides[0], view.strides[1]);
  return view;
}

Value InstructionLowering::block(Location loc, const Strided2D &view,
                                 RowBlock rows, int64_t c0, int64_t cols) {
  int64_t base = view.offset + rows.group * view.groupStride +
                 rows.row * view.strides[0] + c0 * view.strides[1];
  if (rows.groups == 1)
    return window(loc, view.buffer, base, {rows.rows, cols},
                  {view.strides[0], view.strides[1]});
  return window(loc, view.buffer, base, {rows.groups, rows.rows, cols},
                {view.groupStride, view.strides[0], view.strides[1]});
}

void InstructionLowering::forEachMatmulBlock(
    int64_t groups, int64_t m, int64_t k, int64_t n,
    llvm::function_ref<void(RowBlock, int64_t, int64_t, int64_t, int64_t)>
        body) {
  int64_t rows = arch.getTileMacRows(), cols = arch.getTileMacCols();
  bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
  SmallVector<RowBlock> rowBlocks;
  if (weightStationary) {
    rowBlocks.push_back({0, groups, 0, m});
  } else if (groups > 1 && m <= rows) {
    for (int64_t g = 0, per = rows / m; g < groups; g += per)
      rowBlocks.push_back({g, std::min(per, groups - g), 0, m});
  } else {
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t r = 0; r < m; r += rows)
        rowBlocks.push_back({g, 1, r, std::min(rows, m - r)});
  }
  int64_t kBlock = weightStationary ? rows : k;
  for (RowBlock rowBlock : rowBlocks)
    for (int64_t n0 = 0; n0 < n; n0 += cols)
      for (int64_t k0 = 0; k0 < k; k0 += kBlock)
        body(rowBlock, k0, std::min(kBlock, k - k0), n0,
             std::min(cols, n - n0));
}

int64_t InstructionLowering::estimateMatmulCycles(int64_t m, int64_t k,
                                                  int64_t n, Type elementType,
                                                  int64_t repeats,
                                                  int64_t groups) {
  bool weightStationary = arch.getTileMacDataflow() == "weight_stationary";
  bool doubleBuffered = arch.getTileMacWeightBuffers() == 2;
  int64_t streamed = 0, end = 0;
  std::optional<int64_t> previousStream;
  auto addBlock = [&](RowBlock rows, int64_t, int64_t ks, int64_t,
                      int64_t ns) {
    int64_t ms = rows.groups * rows.rows;
    int64_t fill = weightStationary ? ks : ms + ns - 2;
    int64_t drain = weightStationary ? ks + ns - 1 : ms;
    int64_t stream = arch.getMatmulStreamCycles(ms, ks, ns, elementType);
    if (!doubleBuffered) {
      streamed += fill + stream + drain;
      end = streamed;
      return;
    }
    streamed += (previousStream ? std::max<int64_t>(0, fill - *previousStream)
                                : fill) +
                stream;
    end = std::max(end, streamed + drain);
    previousStream = stream;
  };
  // From the second product on, each is timed alike and adds the same
  // cycles: three are enough to extrapolate the rest (a convolution
  // repeats its product per tap and output row, hundreds of times).
  int64_t timed = std::min<int64_t>(repeats, 3), before = 0;
  for (int64_t i = 0; i < timed; ++i) {
    before = streamed;
    forEachMatmulBlock(groups, m, k, n, addBlock);
  }
  return end + (repeats - timed) * (streamed - before);
}

void InstructionLowering::emitMatmulBlocks(Location loc, const Strided2D &lhs,
                                           const Strided2D &rhs,
                                           const Strided2D &acc, bool init) {
  forEachMatmulBlock(
      lhs.groups, lhs.sizes[0], lhs.sizes[1], rhs.sizes[1],
      [&](RowBlock rows, int64_t k0, int64_t ks, int64_t n0, int64_t ns) {
        // One statement per view: argument evaluation order is
        // unspecified, and the IR must not depend on the compiler.
        Value lhsBlock = block(loc, lhs, rows, k0, ks);
        Value rhsBlock = block(loc, rhs, {0, 1, k0, ks}, n0, ns);
        Value accBlock = block(loc, acc, rows, n0, ns);
        MatmulOp::create(rewriter, loc, lhsBlock, rhsBlock, accBlock,
                         /*init=*/init && k0 == 0);
      });
}

void InstructionLowering::emitMatmul(Location loc, const Strided2D &lhs,
                                     const Strided2D &rhs, const Strided2D &acc,
                                     Type elementType, bool init) {
  int64_t m = lhs.sizes[0], k = lhs.sizes[1], n = rhs.sizes[1];
  if (estimateMatmulCycles(n, k, m, elementType) <
      estimateMatmulCycles(m, k, n, elementType))
    emitMatmulBlocks(loc, transposed(rhs), transposed(lhs), transposed(acc),
                     init);
  else
    emitMatmulBlocks(loc, lhs, rhs, acc, init);
}

bool InstructionLowering::takeZeroFill(linalg::LinalgOp op) {
  Value output = op.getDpsInits()[0];
  Value buffer = getViewRoot(output);
  if (llvm::any_of(op.getDpsInputs(), [&](Value input) {
        return getViewRoot(input) == buffer;
      }))
    return false;
  for (Operation *prev = op->getPrevNode();
       prev && prev != buffer.getDefiningOp(); prev = prev->getPrevNode()) {
    if (isa<ViewLikeOpInterface, memref::TransposeOp, memref::AllocOp,
            arith::ConstantOp>(prev))
      continue;
    bool touches = llvm::any_of(prev->getOperands(), [&](Value v) {
      return isa<MemRefType>(v.getType()) && getViewRoot(v) == buffer;
    });
    if (!touches)
      continue;
    auto fill = dyn_cast<VectorFillOp>(prev);
    // +0 only: the sums of a -0 fill start at -0.
    if (!fill || fill.getResult() != output ||
        !fill.getValue().isPosZero())
      return false;
    rewriter.eraseOp(fill);
    return true;
  }
  return false;
}

LogicalResult InstructionLowering::lowerMatmul(linalg::MatmulOp matmul) {
  rewriter.setInsertionPoint(matmul);
  if (failed(checkStatic(matmul)))
    return failure();
  // Loops (m, n, k).
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  Value lhs = matmul.getInputs()[0];
  FailureOr<Strided2D> lhsView = loopView(lhs, maps[0], 0, 2);
  FailureOr<Strided2D> rhsView = loopView(matmul.getInputs()[1], maps[1], 2, 1);
  FailureOr<Strided2D> accView = loopView(matmul.getOutputs()[0], maps[2], 0, 1);
  if (failed(lhsView) || failed(rhsView) || failed(accView))
    return matmul.emitOpError("reads an operand through an indexing map that "
                              "is not a permutation of its loops");
  bool init = foldMatmulFills && takeZeroFill(matmul);
  emitMatmul(matmul.getLoc(), *lhsView, *rhsView, *accView,
             getElementTypeOrSelf(lhs), init);
  rewriter.eraseOp(matmul);
  return success();
}

Value InstructionLowering::window(Location loc, Value buffer, int64_t base,
                                  ArrayRef<int64_t> sizes,
                                  ArrayRef<int64_t> steps) {
  int64_t offset =
      getStridesAndOffset(cast<MemRefType>(buffer.getType())).second;
  return stridedView(rewriter, loc, buffer, offset + base, sizes, steps);
}

SmallVector<int64_t> InstructionLowering::stridesOf(Value buffer) {
  return getStridesAndOffset(cast<MemRefType>(buffer.getType())).first;
}

LogicalResult InstructionLowering::checkStatic(Operation *op) {
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape() || !type.isStrided())
      return op->emitOpError("needs statically shaped, strided operands");
    auto [strides, offset] = getStridesAndOffset(type);
    if (ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return op->emitOpError("needs static strides and offsets");
  }
  return success();
}

LogicalResult InstructionLowering::lowerBroadcast(linalg::BroadcastOp op) {
  rewriter.setInsertionPoint(op);
  Value output = op.getInit();
  FailureOr<Value> view = getLoopView(
      rewriter, op.getLoc(), op.getInput(),
      op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
      cast<MemRefType>(output.getType()).getShape());
  if (failed(view))
    return op.emitOpError("cannot be read through a strided view");
  VectorUnaryOp::create(rewriter, op.getLoc(), VectorUnaryKind::copy, *view,
                        output);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult InstructionLowering::lowerBatchMatmul(linalg::BatchMatmulOp op) {
  if (failed(checkStatic(op)))
    return failure();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value lhs = op.getInputs()[0], rhs = op.getInputs()[1],
        acc = op.getOutputs()[0];
  // Loops (b, m, n, k).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t batches = op.getStaticLoopRanges()[0];
  for (int64_t b = 0; b < batches; ++b) {
    FailureOr<Strided2D> lhsView = loopView(lhs, maps[0], 1, 3, b);
    FailureOr<Strided2D> rhsView = loopView(rhs, maps[1], 3, 2, b);
    FailureOr<Strided2D> accView = loopView(acc, maps[2], 1, 2, b);
    if (failed(lhsView) || failed(rhsView) || failed(accView))
      return op.emitOpError("reads an operand through an indexing map that "
                            "is not a permutation of its loops");
    emitMatmul(loc, *lhsView, *rhsView, *accView, getElementTypeOrSelf(lhs));
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult InstructionLowering::lowerTranspose(
    linalg::TransposeOp transpose) {
  rewriter.setInsertionPoint(transpose);
  auto permutation = AffineMap::getPermutationMap(
      transpose.getPermutation(), rewriter.getContext());
  // Dimension k of the output is dimension perm[k] of the input: the
  // input seen through the permutation map (d_perm[0], d_perm[1], ...).
  Value view = memref::TransposeOp::create(rewriter, transpose.getLoc(),
                                           transpose.getInput(),
                                           AffineMapAttr::get(permutation));
  VectorUnaryOp::create(rewriter, transpose.getLoc(), VectorUnaryKind::copy,
                        view, transpose.getInit());
  rewriter.eraseOp(transpose);
  return success();
}

namespace {

/// linalg.matmul -> tessel.matmul blocks.
using MatmulToMacBlocks =
    LowerWith<linalg::MatmulOp, &InstructionLowering::lowerMatmul>;

/// linalg.batch_matmul -> tessel.matmul blocks per batch.
using BatchMatmulToMacBlocks =
    LowerWith<linalg::BatchMatmulOp, &InstructionLowering::lowerBatchMatmul>;

/// linalg.broadcast -> a vector copy from a stride-0 view.
using BroadcastToVectorCopy =
    LowerWith<linalg::BroadcastOp, &InstructionLowering::lowerBroadcast>;

/// linalg.transpose -> a vector copy from a permuted view.
using TransposeToVectorCopy =
    LowerWith<linalg::TransposeOp, &InstructionLowering::lowerTranspose>;

} // namespace

void populateMatmulPatterns(RewritePatternSet &patterns,
                            InstructionLowering &lowering) {
  patterns.add<MatmulToMacBlocks, BatchMatmulToMacBlocks,
               BroadcastToVectorCopy, TransposeToVectorCopy>(
      patterns.getContext(), lowering);
}

} // namespace mlir::tessel::instructions
