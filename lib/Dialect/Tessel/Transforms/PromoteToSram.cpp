//===- PromoteToSram.cpp - Each step's operands in SRAM -------------------===//
//
// After bufferization a step's operands are views of DRAM buffers. The MAC
// array and vector unit only reach their tile's SRAM, so each step gets SRAM
// buffers, filled and drained by copies that become DMA transfers.
//
// An output that stays the same over the innermost step loops (the
// accumulator of a reduction split into steps) gets its buffer once, outside
// those loops: it stays in SRAM across the reduction's steps and is stored
// once, after the last, instead of being loaded and stored by every step.
// An input that no step loop changes (a convolution's weights under steps
// of output rows that take every channel) gets its buffer once too, loaded
// before the loops and kept across them, instead of loaded again by every
// step, where it is at least what one transfer moves in its DMA setup and
// DRAM latency. Other inputs keep a buffer per step: loading an input once for
// several steps (once per iteration of the outer loops) was measured
// slower than the traffic it saved (MobileNetV2's block on tessel-16x16:
// 13 % more cycles for 41 KB less DRAM traffic).
//
// An accumulator whose DRAM buffer a partitioned fill has just set to a
// constant (the zero init of a matmul or convolution, a max pooling's
// -inf) is filled in SRAM instead of loaded, where it is loaded once per
// output element; the fill in DRAM then has no reader and is erased. This
// saves writing and reading the whole output once. So is one a partitioned
// broadcast of a function argument has set (a bias, tessel-fold-bias-adds):
// each accumulator loads the slice of the argument it covers and broadcasts
// it in SRAM.
//
// A weight the mapping keeps resident goes further: its whole part
// slice gets one SRAM buffer, loaded before the first step, and each step
// reads its slice of that buffer. The allocation, the load and the
// deallocation carry `tessel.resident`, so that a stream of inputs
// (tessel-convert-to-device) loads the weights for its first input only and
// keeps them until its last.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Epilogues.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPROMOTETOSRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

bool isInSram(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && getMemorySpace(type) == MemorySpace::sram;
}

/// An SRAM buffer for `value`, which `operand` reads or writes (a step's
/// slice, or a resident weight's part slice): of its static shape, or, for a
/// dynamically sized step (the last, shorter one of an uneven split), of the
/// largest shape it takes, viewed at the step's actual sizes. Fails, with an
/// error naming the operand, when that largest shape cannot be bounded.
FailureOr<std::pair<Value, Value>>
allocateInSram(RewriterBase &rewriter, OpOperand &operand, Value value) {
  Location loc = operand.getOwner()->getLoc();
  auto type = cast<MemRefType>(value.getType());
  SmallVector<int64_t> bound;
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim)) {
      bound.push_back(type.getDimSize(dim));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(dim)));
      continue;
    }
    FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(value, dim),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(ub))
      return operand.getOwner()->emitOpError()
             << "operand #" << operand.getOperandNumber()
             << " has a size that cannot be bounded, so it gets no SRAM "
                "buffer";
    bound.push_back(*ub);
    sizes.push_back(memref::DimOp::create(rewriter, loc, value, dim).getResult());
  }
  auto sram = MemorySpaceAttr::get(rewriter.getContext(), MemorySpace::sram);
  auto allocType = MemRefType::get(bound, type.getElementType(),
                                   MemRefLayoutAttrInterface(), sram);
  Value buffer = memref::AllocOp::create(rewriter, loc, allocType);
  if (!type.hasStaticShape()) {
    SmallVector<OpFoldResult> zeros(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(type.getRank(), rewriter.getIndexAttr(1));
    Value view =
        memref::SubViewOp::create(rewriter, loc, buffer, zeros, sizes, ones);
    return std::make_pair(buffer, view);
  }
  return std::make_pair(buffer, buffer);
}

/// The step loops around `op` inside its partition, innermost first (none
/// when the part is a single step).
SmallVector<scf::ForOp> getStepLoops(Operation *op, scf::ForallOp forall) {
  SmallVector<scf::ForOp> loops;
  for (auto loop = op->getParentOfType<scf::ForOp>();
       loop && forall->isProperAncestor(loop);
       loop = loop->getParentOfType<scf::ForOp>())
    loops.push_back(loop);
  return loops;
}

/// Moves the views and index arithmetic that do not change from one step to
/// the next out of the step loops (innermost first), so that each operand's
/// view sits outside every loop it does not depend on.
void hoistInvariantViews(ArrayRef<scf::ForOp> stepLoops) {
  for (scf::ForOp loop : stepLoops)
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
}

/// The one op in `body` (loops looked into) that touches memory, or null
/// when there is none or more than one.
Operation *getOnlyMemoryOp(Block *body) {
  Operation *only = nullptr;
  WalkResult result = body->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::YieldOp, scf::InParallelOp>(op) ||
        isMemoryEffectFree(op))
      return WalkResult::advance();
    if (only)
      return WalkResult::interrupt();
    only = op;
    return WalkResult::advance();
  });
  return result.wasInterrupted() ? nullptr : only;
}

/// The outermost of the innermost step loops of `op` whose iterations all
/// see the same `value`, or null when the innermost loop changes it (or
/// there is no step loop).
scf::ForOp getInvariantLoops(Value value, Operation *op,
                             ArrayRef<scf::ForOp> stepLoops) {
  scf::ForOp outermost;
  for (scf::ForOp loop : stepLoops) {
    // No other op may see the DRAM copy out of date while the buffer stays
    // in SRAM across the loop's iterations.
    if (!loop.isDefinedOutsideOfLoop(value) ||
        getOnlyMemoryOp(loop.getBody()) != op)
      break;
    outermost = loop;
  }
  return outermost;
}

/// `value` seen from outside the step loops in `loops` (null: none): the
/// part's slice, which no step changes, and the subviews inside the loops
/// that take each step's slice of it, outermost first. Fails for any other
/// view inside the loops.
FailureOr<std::pair<Value, SmallVector<memref::SubViewOp>>>
getPartSlice(Value value, scf::ForOp loops) {
  SmallVector<memref::SubViewOp> steps;
  while (loops && loops->isAncestor(value.getParentBlock()->getParentOp())) {
    auto subview = value.getDefiningOp<memref::SubViewOp>();
    if (!subview || subview.getSourceType().getRank() !=
                        subview.getType().getRank())
      return failure();
    steps.push_back(subview);
    value = subview.getSource();
  }
  std::reverse(steps.begin(), steps.end());
  return std::make_pair(value, steps);
}

/// Gives `value`, a step's slice of a resident weight that `operand` of
/// `op` reads, its part's slice in SRAM, loaded before the step loops.
/// Returns the buffer, to be freed after the loops, and the step's slice of
/// it.
FailureOr<std::pair<Value, Value>>
promoteResidentSlice(RewriterBase &rewriter, linalg::LinalgOp op,
                     OpOperand &operand, Value value, scf::ForOp loops,
                     bool epilogue = false) {
  FailureOr<std::pair<Value, SmallVector<memref::SubViewOp>>> slice =
      getPartSlice(value, loops);
  if (failed(slice))
    return op.emitOpError()
           << "reads its resident weight (operand #"
           << operand.getOperandNumber()
           << ") through a view other than a subview in its step loops";
  auto [partSlice, stepViews] = *slice;
  Location loc = op.getLoc();
  StringRef tag = TesselDialect::getResidentAttrName();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loops ? loops.getOperation() : op.getOperation());
  FailureOr<std::pair<Value, Value>> promoted =
      allocateInSram(rewriter, operand, partSlice);
  if (failed(promoted))
    return failure();
  auto [buffer, view] = *promoted;
  buffer.getDefiningOp()->setAttr(tag, rewriter.getUnitAttr());
  auto copy = memref::CopyOp::create(rewriter, loc, partSlice, view);
  copy->setAttr(tag, rewriter.getUnitAttr());
  if (epilogue)
    copy->setAttr(TesselDialect::getEpilogueAttrName(), rewriter.getUnitAttr());
  // Each step's slice, taken the way the step took it from DRAM.
  Value step = view;
  for (memref::SubViewOp subview : stepViews) {
    rewriter.setInsertionPointAfter(subview);
    step = memref::SubViewOp::create(
        rewriter, subview.getLoc(), step, subview.getMixedOffsets(),
        subview.getMixedSizes(), subview.getMixedStrides());
  }
  return std::make_pair(buffer, step);
}

/// Gives the resident weight `operand` of `op` its part's slice in SRAM,
/// loaded before the step loops, and points the operand at this step's
/// slice of it. Returns the buffer, to be freed after the loops.
FailureOr<Value> promoteResident(RewriterBase &rewriter, linalg::LinalgOp op,
                                 OpOperand &operand, scf::ForOp loops) {
  FailureOr<std::pair<Value, Value>> promoted =
      promoteResidentSlice(rewriter, op, operand, operand.get(), loops);
  if (failed(promoted))
    return failure();
  operand.set(promoted->second);
  return promoted->first;
}

/// The only op of partition `forall`, if it is a linalg op and nothing else
/// in the partition touches memory.
linalg::LinalgOp getPartitionOp(scf::ForallOp forall) {
  if (!forall->hasAttr(TesselDialect::getPartitionAttrName()))
    return {};
  return dyn_cast_or_null<linalg::LinalgOp>(getOnlyMemoryOp(forall.getBody()));
}

/// Whether `value` is a memref that views `buffer`.
bool isViewOf(Value value, Value buffer) {
  auto memref = dyn_cast<TypedValue<BaseMemRefType>>(value);
  return memref && getViewRoot(memref) == buffer;
}

/// The DRAM buffer `view` is a view of, if it is allocated in the function
/// `forall` belongs to.
memref::AllocOp getFunctionBuffer(Value view, scf::ForallOp forall) {
  auto root = getViewRoot(view).getDefiningOp<memref::AllocOp>();
  if (!root || root->getBlock() != forall->getBlock() || isInSram(root))
    return {};
  return root;
}

/// Whether `op`, or an op nested in it, reads or writes a view of `buffer`.
bool usesBuffer(Operation *op, Value buffer) {
  WalkResult result = op->walk([&](Operation *inner) {
    return llvm::any_of(inner->getOperands(),
                        [&](Value v) { return isViewOf(v, buffer); })
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// A partitioned op that sets a whole buffer, which the next partition reads
/// only as its accumulator's initial value: a fill with a constant, or a
/// broadcast of a function argument (a bias, tessel-fold-bias-adds).
struct FilledAccumulator {
  scf::ForallOp fill;
  arith::ConstantOp value;
  /// The broadcast's whole input, in DRAM, and the dimensions it adds.
  Value seed;
  ArrayRef<int64_t> broadcastDims;
};

/// The function argument whose view `input` of partition `forall` is,
/// through subviews alone (each dimension of the view is one of the
/// argument's), or null.
BlockArgument getArgumentViewed(Value input, scf::ForallOp forall) {
  while (auto subview = input.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getDroppedDims().any())
      return {};
    input = subview.getSource();
  }
  auto arg = dyn_cast<BlockArgument>(input);
  return arg && forall.isDefinedOutsideOfLoop(arg) &&
                 isa<func::FuncOp>(arg.getOwner()->getParentOp())
             ? arg
             : BlockArgument();
}

/// Whether `view` is `buffer` seen through subviews of unit strides that
/// keep every dimension, so that its element (i, j, ...) is the buffer's
/// (i, j, ...) shifted by the subviews' offsets.
bool isShiftedViewOf(Value view, Value buffer) {
  while (view != buffer) {
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview || subview.getDroppedDims().any() ||
        !llvm::all_of(subview.getStaticStrides(),
                      [](int64_t stride) { return stride == 1; }))
      return false;
    view = subview.getSource();
  }
  return true;
}

/// `target` viewed the way `view`, a shifted view of `buffer`
/// (isShiftedViewOf), views `buffer`: a subview after each of `view`'s,
/// whose offset and size along each dimension of `target` are those along
/// the dimension of `buffer` that `map` reads there (0 and 1 where it reads
/// a constant 0: a broadcast along that dimension).
Value mirrorViews(RewriterBase &rewriter, Value view, Value buffer,
                  Value target, AffineMap map) {
  SmallVector<memref::SubViewOp> chain;
  for (; view != buffer; view = chain.back().getSource())
    chain.push_back(view.getDefiningOp<memref::SubViewOp>());
  OpBuilder::InsertionGuard guard(rewriter);
  for (memref::SubViewOp subview : llvm::reverse(chain)) {
    SmallVector<OpFoldResult> offsets, sizes;
    SmallVector<OpFoldResult> viewOffsets = subview.getMixedOffsets();
    SmallVector<OpFoldResult> viewSizes = subview.getMixedSizes();
    for (AffineExpr result : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(result)) {
        offsets.push_back(viewOffsets[dim.getPosition()]);
        sizes.push_back(viewSizes[dim.getPosition()]);
        continue;
      }
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(1));
    }
    SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
    rewriter.setInsertionPointAfter(subview);
    target = memref::SubViewOp::create(rewriter, subview.getLoc(), target,
                                       offsets, sizes, strides);
  }
  return target;
}

/// The map from the dimensions of a broadcast's output to those of its
/// input: every dimension but the `added` ones, in order.
AffineMap getBroadcastInputMap(MLIRContext *ctx, int64_t rank,
                               ArrayRef<int64_t> added) {
  SmallVector<AffineExpr> kept;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(added, dim))
      kept.push_back(getAffineDimExpr(dim, ctx));
  return AffineMap::get(rank, 0, kept, ctx);
}

/// For each accumulating op (a reduction that reads its output) that is the
/// only op of its partition, whose output is a whole DRAM buffer of the
/// function that only a partitioned fill of a constant has written before:
/// that fill. Partitions cover their op's whole iteration space, so the op
/// writes every element the fill wrote, and nothing reads the fill's
/// values but the op.
DenseMap<Operation *, FilledAccumulator>
findFilledAccumulators(func::FuncOp func) {
  DenseMap<Operation *, FilledAccumulator> found;
  for (auto forall : func.getBody().getOps<scf::ForallOp>()) {
    linalg::LinalgOp op = getPartitionOp(forall);
    if (!op || op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
        !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      continue;
    // The whole buffer: every view of it the op's output goes through lies
    // in the partition.
    Value output = op.getDpsInitOperand(0)->get();
    memref::AllocOp buffer = getFunctionBuffer(output, forall);
    if (!buffer)
      continue;
    Value view = output;
    while (view != buffer.getResult()) {
      auto viewLike = view.getDefiningOp<ViewLikeOpInterface>();
      if (!viewLike || !forall->isProperAncestor(viewLike))
        break;
      view = viewLike.getViewSource();
    }
    if (view != buffer.getResult())
      continue;
    // Read only as the accumulator: an input of the same buffer would still
    // read the fill's values from DRAM.
    if (llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          return isViewOf(input->get(), buffer);
        }))
      continue;
    // Between the buffer's allocation and the partition, one op touches the
    // buffer: a partitioned fill of it with a constant.
    SmallVector<Operation *> users;
    for (Operation *prev = forall->getPrevNode(); prev != buffer;
         prev = prev->getPrevNode())
      if (usesBuffer(prev, buffer))
        users.push_back(prev);
    auto fill = users.size() == 1 ? dyn_cast<scf::ForallOp>(users.front())
                                  : scf::ForallOp();
    Operation *setter = fill ? getPartitionOp(fill).getOperation() : nullptr;
    if (auto fillOp = dyn_cast_or_null<linalg::FillOp>(setter)) {
      auto value = fillOp.getInputs()[0].getDefiningOp<arith::ConstantOp>();
      if (value && isViewOf(fillOp.getDpsInitOperand(0)->get(), buffer))
        found[op] = {fill, value, Value(), {}};
      continue;
    }
    // A broadcast: its input is read again at each accumulator's offsets,
    // so the accumulator's views must be shifts of the buffer.
    auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(setter);
    if (!broadcast || !isViewOf(broadcast.getInit(), buffer) ||
        !isShiftedViewOf(output, buffer))
      continue;
    if (BlockArgument seed = getArgumentViewed(broadcast.getInput(), fill))
      found[op] = {fill, arith::ConstantOp(), seed,
                   broadcast.getDimensions()};
  }
  return found;
}

/// An elementwise partition that runs on each slice of the result of the
/// partition before it (tessel-fuse-epilogues), seen from that partition:
/// the op, the producer's result buffer it reads, the buffer it writes, and
/// for each of its inputs the value outside its partition it reads (null
/// for the result).
struct Epilogue {
  scf::ForallOp partition;
  linalg::GenericOp op;
  Value result;
  Value output;
  SmallVector<Value> inputs;
  /// Whether the output buffer is one the producer reads (bufferization
  /// let the consumer overwrite a tensor that is dead after the producer):
  /// run inside the producer, the epilogue writes a fresh buffer instead.
  bool overwritesProducerInput = false;
};

/// `view`, a view of `old` (or `old` itself), taken again of `fresh` by
/// clones of its view ops at `builder`'s insertion point; each view once.
Value viewAgain(OpBuilder &builder, Value view, Value old, Value fresh,
                DenseMap<Value, Value> &taken) {
  if (view == old)
    return fresh;
  if (Value again = taken.lookup(view))
    return again;
  // A view-like op, or a memref.transpose (a view too, without the
  // interface).
  Operation *def = view.getDefiningOp();
  Value source = isa<memref::TransposeOp>(def)
                     ? cast<memref::TransposeOp>(def).getIn()
                     : cast<ViewLikeOpInterface>(def).getViewSource();
  IRMapping mapping;
  mapping.map(source, viewAgain(builder, source, old, fresh, taken));
  Value again = builder.clone(*def, mapping)
                    ->getResult(cast<OpResult>(view).getResultNumber());
  taken[view] = again;
  return again;
}

/// Gives `epilogue` a fresh output buffer, allocated before `producer`,
/// which every op after the epilogue's partition reads instead of the old
/// one: the producer reads the old one to its last step. Views of the old
/// buffer taken before the partition (a padded view that CSE made one for
/// two convolutions) are taken again of the fresh one for the ops after it.
void giveFreshOutput(Epilogue &epilogue, Operation *producer) {
  Value old = epilogue.output;
  auto alloc = old.getDefiningOp<memref::AllocOp>();
  OpBuilder builder(producer);
  Value fresh = memref::AllocOp::create(builder, alloc.getLoc(),
                                        alloc.getType(),
                                        alloc.getAlignmentAttr());
  Operation *partition = epilogue.partition;
  Block *block = partition->getBlock();
  SmallVector<OpOperand *> uses;
  for (Operation *later = partition->getNextNode(); later;
       later = later->getNextNode())
    later->walk([&](Operation *inner) {
      for (OpOperand &use : inner->getOpOperands()) {
        Operation *def = use.get().getDefiningOp();
        bool definedBefore = use.get() == old ||
                             (def && def->getBlock() == block &&
                              def->isBeforeInBlock(partition));
        if (definedBefore && isViewOf(use.get(), old))
          uses.push_back(&use);
      }
    });
  builder.setInsertionPointAfter(partition);
  DenseMap<Value, Value> taken;
  for (OpOperand *use : uses)
    use->set(viewAgain(builder, use->get(), old, fresh, taken));
  epilogue.output = fresh;
  epilogue.overwritesProducerInput = false;
}

/// The value outside `forall` that `view`, inside it, takes subviews of
/// (keeping their rank), or null.
Value getViewedFromOutside(Value view, scf::ForallOp forall) {
  while (!forall.isDefinedOutsideOfLoop(view)) {
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview || subview.getDroppedDims().any())
      return {};
    view = subview.getSource();
  }
  return view;
}

/// The op defining `value` in `producer`'s block after it, or null.
Operation *getDefinitionAfter(Value value, Operation *producer) {
  Operation *def = value.getDefiningOp();
  return def && def->getBlock() == producer->getBlock() &&
                 producer->isBeforeInBlock(def)
             ? def
             : nullptr;
}

/// Whether `value` is defined before `producer`, or can be moved there: an
/// allocation, or a view of such values.
bool canDefineBefore(Value value, Operation *producer) {
  Operation *def = getDefinitionAfter(value, producer);
  return !def || (isa<memref::AllocOp, ViewLikeOpInterface, memref::TransposeOp>(def) &&
                  llvm::all_of(def->getOperands(), [&](Value operand) {
                    return canDefineBefore(operand, producer);
                  }));
}

/// Moves what defines `value` (canDefineBefore) before `producer`.
void defineBefore(Value value, Operation *producer) {
  Operation *def = getDefinitionAfter(value, producer);
  if (!def)
    return;
  for (Value operand : def->getOperands())
    defineBefore(operand, producer);
  def->moveBefore(producer);
}

/// For each op whose partition has an epilogue it can run (see Epilogue):
/// that epilogue. The producer's result buffer must be a function buffer
/// that nothing after the epilogue touches, seen by the producer through
/// shifted views; the epilogue's body may use from outside only values
/// from outside its partition, or constants.
DenseMap<Operation *, Epilogue> findEpilogues(func::FuncOp func) {
  DenseMap<Operation *, Epilogue> found;
  for (auto producer : func.getBody().getOps<scf::ForallOp>()) {
    scf::ForallOp partition = getEpilogue(producer);
    linalg::LinalgOp op = getPartitionOp(producer);
    auto generic =
        partition ? dyn_cast_or_null<linalg::GenericOp>(
                        getPartitionOp(partition).getOperation())
                  : linalg::GenericOp();
    if (!op || !generic || op.getNumDpsInits() != 1 ||
        generic.getNumDpsInits() != 1)
      continue;
    Value output = op.getDpsInitOperand(0)->get();
    memref::AllocOp buffer = getFunctionBuffer(output, producer);
    if (!buffer || !isShiftedViewOf(output, buffer))
      continue;
    Epilogue epilogue{partition, generic, buffer.getResult(), Value(), {}};
    int reads = 0;
    bool readable = true;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      if (isViewOf(input->get(), buffer)) {
        readable &= generic.getMatchingIndexingMap(input).isIdentity();
        epilogue.inputs.push_back(Value());
        ++reads;
        continue;
      }
      Value outside = getViewedFromOutside(input->get(), partition);
      readable &= outside && cast<MemRefType>(outside.getType()).getRank() ==
                                 generic.getMatchingIndexingMap(input)
                                     .getNumResults();
      epilogue.inputs.push_back(outside);
    }
    epilogue.output =
        getViewedFromOutside(generic.getDpsInitOperand(0)->get(), partition);
    // Of the result's shape and layout; its element type may differ.
    if (!readable || reads != 1 || !epilogue.output ||
        cast<MemRefType>(epilogue.output.getType())
                .clone(buffer.getType().getElementType()) != buffer.getType())
      continue;
    // An output the producer reads must be a buffer of its own, to be
    // replaced by a fresh one.
    Value outputBuffer = getViewRoot(epilogue.output);
    epilogue.overwritesProducerInput = usesBuffer(producer, outputBuffer);
    if (epilogue.overwritesProducerInput &&
        (outputBuffer != epilogue.output ||
         !outputBuffer.getDefiningOp<memref::AllocOp>()))
      continue;
    // The producer stores into the output and reads the other inputs.
    SmallVector<Value> outside{epilogue.output};
    llvm::append_range(outside, llvm::make_filter_range(
                                    epilogue.inputs, [](Value v) { return v; }));
    if (!llvm::all_of(outside, [&](Value value) {
          return canDefineBefore(value, producer);
        }))
      continue;
    bool captures = false;
    generic.getRegion().walk([&](Operation *inner) {
      for (Value used : inner->getOperands()) {
        Operation *def = used.getDefiningOp();
        captures |= def && !generic->isAncestor(def) &&
                    partition->isAncestor(def) &&
                    !def->hasTrait<OpTrait::ConstantLike>();
      }
    });
    bool readLater = false;
    for (Operation *later = partition->getNextNode(); later;
         later = later->getNextNode())
      readLater |= !isa<memref::DeallocOp>(later) && usesBuffer(later, buffer);
    if (captures || readLater)
      continue;
    for (Value value : outside)
      defineBefore(value, producer);
    found[op] = std::move(epilogue);
  }
  return found;
}

/// The SRAM slice of a resident weight that `slice` (a view of it) is, or
/// null where it is not one: see PromoteToSram's `residentSlice`.
using ResidentSliceFn = function_ref<FailureOr<Value>(Value slice)>;

/// Runs `epilogue` on the SRAM slice `view` of its producer's result, the
/// slice `value` of the result in DRAM, and stores what it computes in the
/// same slice of the epilogue's output: its other inputs' slices loaded
/// into SRAM (or, resident weights, taken from where they stay), its op
/// computed in place. Returns the last op inserted.
FailureOr<Operation *> runEpilogue(RewriterBase &rewriter, OpOperand &operand,
                                   Value value, Value view,
                                   const Epilogue &epilogue,
                                   ResidentSliceFn residentSlice) {
  linalg::GenericOp op = epilogue.op;
  Location loc = op.getLoc();
  SmallVector<Value> inputs, temporaries;
  for (auto [input, outside] :
       llvm::zip_equal(op.getDpsInputOperands(), epilogue.inputs)) {
    if (!outside) {
      inputs.push_back(view);
      continue;
    }
    Value slice = mirrorViews(rewriter, value, epilogue.result, outside,
                              op.getMatchingIndexingMap(input));
    FailureOr<Value> kept = residentSlice(slice);
    if (failed(kept))
      return failure();
    if (*kept) {
      inputs.push_back(*kept);
      continue;
    }
    FailureOr<std::pair<Value, Value>> promoted =
        allocateInSram(rewriter, operand, slice);
    if (failed(promoted))
      return failure();
    memref::CopyOp::create(rewriter, loc, slice, promoted->second)
        ->setAttr(TesselDialect::getEpilogueAttrName(), rewriter.getUnitAttr());
    inputs.push_back(promoted->second);
    temporaries.push_back(promoted->first);
  }
  Value target = mirrorViews(rewriter, value, epilogue.result,
                             epilogue.output,
                             rewriter.getMultiDimIdentityMap(
                                 cast<MemRefType>(value.getType()).getRank()));
  // Computed in place, unless its result has another element type than the
  // producer's (an f32 accumulator truncated to bf16): then into a slice of
  // its own.
  Value computed = view;
  if (getElementTypeOrSelf(target.getType()) !=
      getElementTypeOrSelf(view.getType())) {
    FailureOr<std::pair<Value, Value>> own =
        allocateInSram(rewriter, operand, target);
    if (failed(own))
      return failure();
    computed = own->second;
    temporaries.push_back(own->first);
  }
  linalg::GenericOp::create(
      rewriter, loc, TypeRange(), inputs, ValueRange{computed},
      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &builder, Location, ValueRange args) {
        IRMapping mapping;
        mapping.map(op.getBody()->getArguments(), args);
        for (Operation &inner : *op.getBody())
          for (Value used : inner.getOperands())
            if (Operation *def = used.getDefiningOp();
                def && !mapping.contains(used) && !op->isAncestor(def) &&
                epilogue.partition->isAncestor(def))
              mapping.map(used, builder.clone(*def)->getResult(0));
        for (Operation &inner : *op.getBody())
          builder.clone(inner, mapping);
      });
  Operation *last = memref::CopyOp::create(rewriter, loc, computed, target);
  for (Value temporary : temporaries)
    last = memref::DeallocOp::create(rewriter, loc, temporary);
  return last;
}

/// Whether `value` is computed from `iv`.
bool dependsOn(Value value, Value iv) {
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    if (next == iv)
      return true;
    if (Operation *def = next.getDefiningOp(); def && seen.insert(next).second)
      llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// Whether a copy of `view` placed inside `loops` (and no other step loop)
/// would run once per element of the view's buffer: every loop around it
/// takes another slice.
bool isCopiedOncePerElement(Value view, ArrayRef<scf::ForOp> loops) {
  return llvm::all_of(loops, [&](scf::ForOp loop) {
    return dependsOn(view, loop.getInductionVar());
  });
}

/// The slice of `filled`'s seed that sets the accumulator `operand` reads.
Value getSeedSlice(RewriterBase &rewriter, OpOperand &operand,
                   const FilledAccumulator &filled) {
  Value value = operand.get();
  Value buffer = getViewRoot(value);
  int64_t rank = cast<MemRefType>(value.getType()).getRank();
  return mirrorViews(rewriter, value, buffer, filled.seed,
                     getBroadcastInputMap(rewriter.getContext(), rank,
                                          filled.broadcastDims));
}

/// Stores the SRAM buffer `view` of an output into its DRAM slice `value`:
/// through `epilogue` when given, else as it is. Returns the last op
/// inserted.
FailureOr<Operation *> storeOutput(RewriterBase &rewriter, OpOperand &operand,
                                   Value value, Value view,
                                   const Epilogue *epilogue,
                                   ResidentSliceFn residentSlice) {
  if (epilogue)
    return runEpilogue(rewriter, operand, value, view, *epilogue,
                       residentSlice);
  return memref::CopyOp::create(rewriter, operand.getOwner()->getLoc(), view,
                                value)
      .getOperation();
}

/// Sets the SRAM buffer `view` of output `operand` to what the payload reads
/// first: what `filled` has set it to, when given (its constant, or its
/// broadcast of the seed's slice: `seedInSram` where the seed is resident,
/// else loaded into SRAM first), else its DRAM value.
LogicalResult initializeOutput(RewriterBase &rewriter, OpOperand &operand,
                               Value view, const FilledAccumulator *filled,
                               Value seedInSram = {}) {
  Location loc = operand.getOwner()->getLoc();
  if (!filled) {
    memref::CopyOp::create(rewriter, loc, operand.get(), view);
    return success();
  }
  if (filled->value) {
    Value constant = rewriter.clone(*filled->value)->getResult(0);
    linalg::FillOp::create(rewriter, loc, constant, view);
    return success();
  }
  if (seedInSram) {
    linalg::BroadcastOp::create(rewriter, loc, seedInSram, view,
                                filled->broadcastDims);
    return success();
  }
  Value seed = getSeedSlice(rewriter, operand, *filled);
  FailureOr<std::pair<Value, Value>> promoted =
      allocateInSram(rewriter, operand, seed);
  if (failed(promoted))
    return failure();
  auto [seedBuffer, seedView] = *promoted;
  memref::CopyOp::create(rewriter, loc, seed, seedView);
  linalg::BroadcastOp::create(rewriter, loc, seedView, view,
                              filled->broadcastDims);
  memref::DeallocOp::create(rewriter, loc, seedBuffer);
  return success();
}

/// Gives output `operand` of `op`, the same in every iteration of `loops`,
/// one SRAM buffer for all of them: initialized before the loops (if the op
/// reads it; as `filled` set it when given), stored after them (through
/// `epilogue` when given), freed after that.
LogicalResult promoteOutputAcrossSteps(RewriterBase &rewriter,
                                       linalg::LinalgOp op, OpOperand &operand,
                                       scf::ForOp loops,
                                       const FilledAccumulator *filled,
                                       Value seedInSram,
                                       const Epilogue *epilogue,
                                       ResidentSliceFn residentSlice) {
  Location loc = op.getLoc();
  Value value = operand.get();
  rewriter.setInsertionPoint(loops);
  FailureOr<std::pair<Value, Value>> promoted =
      allocateInSram(rewriter, operand, value);
  if (failed(promoted))
    return failure();
  auto [buffer, view] = *promoted;
  if (op.payloadUsesValueFromOperand(&operand) &&
      failed(initializeOutput(rewriter, operand, view, filled, seedInSram)))
    return failure();
  operand.set(view);
  rewriter.setInsertionPointAfter(loops);
  if (failed(storeOutput(rewriter, operand, value, view, epilogue,
                         residentSlice)))
    return failure();
  memref::DeallocOp::create(rewriter, loc, buffer);
  return success();
}

/// What `found` holds for the op of output `operand` (its filled
/// accumulator, its epilogue), where that output is copied once per element
/// within `around`, the step loops around its copies; null otherwise.
template <typename T>
T *findForOutput(DenseMap<Operation *, T> &found, OpOperand &operand,
                 ArrayRef<scf::ForOp> around) {
  auto op = cast<linalg::LinalgOp>(operand.getOwner());
  auto it = found.find(op);
  if (it == found.end() || !op.isDpsInit(&operand) ||
      !isCopiedOncePerElement(operand.get(), around))
    return nullptr;
  return &it->second;
}

struct PromoteToSram : impl::TesselPromoteToSramBase<PromoteToSram> {
  int64_t fixedTransferBytes = 0;

  void runOnOperation() override {
    // What one transfer moves in the time of its DMA setup and DRAM
    // latency (without a target, nothing): a smaller input is kept per step
    // (its loads are mostly latency, and keeping the per-row statistics of
    // BERT's layer norms on tessel-4x4 across their steps ran 213 cycles
    // slower).
    if (ArchAttr arch = lookupArch(getOperation()))
      fixedTransferBytes = arch.getFixedTransferBytes();
    // Found before any copy is inserted into a partition.
    DenseMap<Operation *, FilledAccumulator> filledAccumulators =
        findFilledAccumulators(getOperation());
    DenseMap<Operation *, Epilogue> epilogues = findEpilogues(getOperation());
    SmallVector<scf::ForallOp> foldedFills;
    llvm::SetVector<Operation *> fusedEpilogues;
    SmallVector<linalg::LinalgOp> steps;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto forall = op->getParentOfType<scf::ForallOp>();
      if (forall && forall->hasAttr(TesselDialect::getPartitionAttrName()) &&
          op.hasPureBufferSemantics())
        steps.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : steps) {
      Location loc = op.getLoc();
      auto forall = op->getParentOfType<scf::ForallOp>();
      if (fusedEpilogues.contains(forall))
        continue;
      bool resident =
          cast<MappingAttr>(
              forall->getAttr(TesselDialect::getPartitionAttrName()))
              .getResident();
      SmallVector<scf::ForOp> stepLoops = getStepLoops(op, forall);
      hoistInvariantViews(stepLoops);
      scf::ForOp loops = stepLoops.empty() ? scf::ForOp() : stepLoops.back();
      // Decided before anything is inserted into the loops.
      SmallVector<scf::ForOp> invariantLoops;
      SmallVector<bool> keptInputs;
      for (OpOperand &operand : op->getOpOperands()) {
        scf::ForOp outer = getInvariantLoops(operand.get(), op, stepLoops);
        bool isOutput = op.isDpsInit(&operand);
        invariantLoops.push_back(isOutput ? outer : scf::ForOp());
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        keptInputs.push_back(
            !isOutput && outer && outer == loops && type &&
            type.hasStaticShape() && getSizeInBytes(type) >= fixedTransferBytes);
      }
      // The fill or broadcast that set the accumulator, if the op starts
      // from it once per output element.
      auto filledInit = [&](OpOperand &operand, ArrayRef<scf::ForOp> around)
          -> const FilledAccumulator * {
        FilledAccumulator *filled =
            findForOutput(filledAccumulators, operand, around);
        if (filled)
          foldedFills.push_back(filled->fill);
        return filled;
      };
      // The epilogue to run on the output before it is stored, where each
      // element is stored once.
      auto epilogueOf = [&](OpOperand &operand, ArrayRef<scf::ForOp> around)
          -> const Epilogue * {
        Epilogue *epilogue = findForOutput(epilogues, operand, around);
        if (!epilogue)
          return nullptr;
        if (epilogue->overwritesProducerInput)
          giveFreshOutput(*epilogue, forall);
        fusedEpilogues.insert(epilogue->partition);
        return epilogue;
      };
      SmallVector<Value> buffers, residentBuffers, keptBuffers;
      // A weight a resident op reads besides its operands (the seed of its
      // accumulator, an input of its epilogue) stays in SRAM with the other
      // weights, so that a stream loads it once: the step's slice of it,
      // given the step's view of the weight in DRAM; null for any other.
      // An epilogue's load is marked so (not shared between tiles).
      auto residentSlice = [&](OpOperand &operand, Value slice,
                               bool epilogue) -> FailureOr<Value> {
        if (!resident || !getWeightArgument(slice))
          return Value();
        FailureOr<std::pair<Value, Value>> promoted = promoteResidentSlice(
            rewriter, op, operand, slice, loops, epilogue);
        if (failed(promoted))
          return failure();
        residentBuffers.push_back(promoted->first);
        return promoted->second;
      };
      auto residentSeed = [&](OpOperand &operand,
                              const FilledAccumulator *filled)
          -> FailureOr<Value> {
        if (!filled || !filled->seed || !resident ||
            !getWeightArgument(filled->seed))
          return Value();
        return residentSlice(operand, getSeedSlice(rewriter, operand, *filled),
                             /*epilogue=*/false);
      };
      auto residentEpilogueInput = [&](OpOperand &operand) {
        return [&](Value slice) {
          return residentSlice(operand, slice, /*epilogue=*/true);
        };
      };
      Operation *last = op; // the op, or the last copy back inserted after it
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        if (!isa<MemRefType>(value.getType()) || isInSram(value))
          continue;
        if (isResidentWeight(op, operand, resident)) {
          FailureOr<Value> buffer =
              promoteResident(rewriter, op, operand, loops);
          if (failed(buffer))
            return signalPassFailure();
          residentBuffers.push_back(*buffer);
          ++numOperandsPromoted;
          continue;
        }
        if (scf::ForOp outer = invariantLoops[operand.getOperandNumber()]) {
          auto around = ArrayRef(stepLoops).drop_front(
              llvm::find(stepLoops, outer) - stepLoops.begin() + 1);
          const FilledAccumulator *filled = filledInit(operand, around);
          const Epilogue *epilogue = epilogueOf(operand, around);
          FailureOr<Value> seed = residentSeed(operand, filled);
          if (failed(seed) ||
              failed(promoteOutputAcrossSteps(
                  rewriter, op, operand, outer, filled, *seed, epilogue,
                  residentEpilogueInput(operand))))
            return signalPassFailure();
          ++numOperandsPromoted;
          continue;
        }
        if (keptInputs[operand.getOperandNumber()]) {
          // The same for every step: loaded once, before the loops.
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPoint(loops);
          FailureOr<std::pair<Value, Value>> promoted =
              allocateInSram(rewriter, operand, value);
          if (failed(promoted))
            return signalPassFailure();
          memref::CopyOp::create(rewriter, loc, value, promoted->second);
          operand.set(promoted->second);
          keptBuffers.push_back(promoted->first);
          ++numOperandsPromoted;
          continue;
        }
        bool isOutput = op.isDpsInit(&operand);
        bool initialized = !isOutput || op.payloadUsesValueFromOperand(&operand);
        const FilledAccumulator *filled =
            initialized ? filledInit(operand, stepLoops) : nullptr;
        const Epilogue *epilogue =
            isOutput ? epilogueOf(operand, stepLoops) : nullptr;
        FailureOr<Value> seed = residentSeed(operand, filled);
        if (failed(seed))
          return signalPassFailure();
        rewriter.setInsertionPoint(op);
        FailureOr<std::pair<Value, Value>> promoted =
            allocateInSram(rewriter, operand, value);
        if (failed(promoted))
          return signalPassFailure();
        auto [buffer, view] = *promoted;
        if (initialized &&
            failed(initializeOutput(rewriter, operand, view, filled, *seed)))
          return signalPassFailure();
        operand.set(view);
        if (isOutput) {
          rewriter.setInsertionPointAfter(last);
          FailureOr<Operation *> stored =
              storeOutput(rewriter, operand, value, view, epilogue,
                          residentEpilogueInput(operand));
          if (failed(stored))
            return signalPassFailure();
          last = *stored;
        }
        buffers.push_back(buffer);
        ++numOperandsPromoted;
      }
      rewriter.setInsertionPointAfter(last);
      for (Value buffer : buffers)
        memref::DeallocOp::create(rewriter, loc, buffer);
      if (loops)
        rewriter.setInsertionPointAfter(loops);
      for (Value buffer : keptBuffers)
        memref::DeallocOp::create(rewriter, loc, buffer);
      for (Value buffer : residentBuffers)
        memref::DeallocOp::create(rewriter, loc, buffer)
            ->setAttr(TesselDialect::getResidentAttrName(),
                      rewriter.getUnitAttr());
    }
    // Their buffers are now first read after the accumulators wrote them.
    for (scf::ForallOp fill : foldedFills) {
      rewriter.eraseOp(fill);
      ++numFillsFolded;
    }
    // Their producers computed them. The results they read, where nothing
    // reads them any more, are left to the canonicalizer.
    for (Operation *partition : fusedEpilogues) {
      rewriter.eraseOp(partition);
      ++numEpiloguesRun;
    }
  }
};

} // namespace
} // namespace mlir::tessel
