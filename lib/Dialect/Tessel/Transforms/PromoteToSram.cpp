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
// Inputs keep a buffer per step: loading an input once for several steps
// was measured slower than the traffic it saved (MobileNetV2's block on
// tessel-16x16: 13 % more cycles for 41 KB less DRAM traffic).
//
// An accumulator whose DRAM buffer a partitioned fill has just set to a
// constant (the zero init of a matmul or convolution, a max pooling's
// -inf) is filled in SRAM instead of loaded, where it is loaded once per
// output element; the fill in DRAM then has no reader and is erased. This
// saves writing and reading the whole output once.
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
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Gives the resident weight `operand` of `op` its part's slice in SRAM,
/// loaded before the step loops, and points the operand at this step's
/// slice of it. Returns the buffer, to be freed after the loops.
FailureOr<Value> promoteResident(RewriterBase &rewriter, linalg::LinalgOp op,
                                 OpOperand &operand, scf::ForOp loops) {
  FailureOr<std::pair<Value, SmallVector<memref::SubViewOp>>> slice =
      getPartSlice(operand.get(), loops);
  if (failed(slice))
    return op.emitOpError()
           << "reads its resident weight (operand #"
           << operand.getOperandNumber()
           << ") through a view other than a subview in its step loops";
  auto [partSlice, stepViews] = *slice;
  Location loc = op.getLoc();
  StringRef tag = TesselDialect::getResidentAttrName();
  rewriter.setInsertionPoint(loops ? loops.getOperation() : op.getOperation());
  FailureOr<std::pair<Value, Value>> promoted =
      allocateInSram(rewriter, operand, partSlice);
  if (failed(promoted))
    return failure();
  auto [buffer, view] = *promoted;
  buffer.getDefiningOp()->setAttr(tag, rewriter.getUnitAttr());
  memref::CopyOp::create(rewriter, loc, partSlice, view)
      ->setAttr(tag, rewriter.getUnitAttr());
  // Each step's slice, taken the way the step took it from DRAM.
  Value step = view;
  for (memref::SubViewOp subview : stepViews) {
    rewriter.setInsertionPointAfter(subview);
    step = memref::SubViewOp::create(
        rewriter, subview.getLoc(), step, subview.getMixedOffsets(),
        subview.getMixedSizes(), subview.getMixedStrides());
  }
  operand.set(step);
  return buffer;
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
  return memref && memref::skipViewLikeOps(memref) == buffer;
}

/// The DRAM buffer `view` is a view of, if it is allocated in the function
/// `forall` belongs to.
memref::AllocOp getFunctionBuffer(Value view, scf::ForallOp forall) {
  auto root = memref::skipViewLikeOps(cast<TypedValue<BaseMemRefType>>(view))
                  .getDefiningOp<memref::AllocOp>();
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

/// A partitioned fill of a whole buffer with a constant, which the next
/// partition reads only as its accumulator's initial value.
struct FilledAccumulator {
  scf::ForallOp fill;
  arith::ConstantOp value;
};

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
    auto fillOp = fill ? dyn_cast_or_null<linalg::FillOp>(
                             getPartitionOp(fill).getOperation())
                       : linalg::FillOp();
    if (!fillOp || !isViewOf(fillOp.getDpsInitOperand(0)->get(), buffer))
      continue;
    if (auto value = fillOp.getInputs()[0].getDefiningOp<arith::ConstantOp>())
      found[op] = {fill, value};
  }
  return found;
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

/// Sets the SRAM buffer `view` of output `operand` to what the payload reads
/// first: the constant `filled` has set it to, when given, else its DRAM
/// value `value`.
void initializeOutput(RewriterBase &rewriter, Location loc, Value value,
                      Value view, arith::ConstantOp filled) {
  if (!filled) {
    memref::CopyOp::create(rewriter, loc, value, view);
    return;
  }
  Value constant = rewriter.clone(*filled)->getResult(0);
  linalg::FillOp::create(rewriter, loc, constant, view);
}

/// Gives output `operand` of `op`, the same in every iteration of `loops`,
/// one SRAM buffer for all of them: initialized before the loops (if the op
/// reads it; to `filled` when given), stored after them, freed after that.
LogicalResult promoteOutputAcrossSteps(RewriterBase &rewriter,
                                       linalg::LinalgOp op, OpOperand &operand,
                                       scf::ForOp loops,
                                       arith::ConstantOp filled) {
  Location loc = op.getLoc();
  Value value = operand.get();
  rewriter.setInsertionPoint(loops);
  FailureOr<std::pair<Value, Value>> promoted =
      allocateInSram(rewriter, operand, value);
  if (failed(promoted))
    return failure();
  auto [buffer, view] = *promoted;
  if (op.payloadUsesValueFromOperand(&operand))
    initializeOutput(rewriter, loc, value, view, filled);
  operand.set(view);
  rewriter.setInsertionPointAfter(loops);
  memref::CopyOp::create(rewriter, loc, view, value);
  memref::DeallocOp::create(rewriter, loc, buffer);
  return success();
}

struct PromoteToSram : impl::TesselPromoteToSramBase<PromoteToSram> {
  void runOnOperation() override {
    // Found before any copy is inserted into a partition.
    DenseMap<Operation *, FilledAccumulator> filledAccumulators =
        findFilledAccumulators(getOperation());
    SmallVector<scf::ForallOp> foldedFills;
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
      bool resident =
          cast<MappingAttr>(
              forall->getAttr(TesselDialect::getPartitionAttrName()))
              .getResident();
      SmallVector<scf::ForOp> stepLoops = getStepLoops(op, forall);
      hoistInvariantViews(stepLoops);
      scf::ForOp loops = stepLoops.empty() ? scf::ForOp() : stepLoops.back();
      // Decided before anything is inserted into the loops.
      SmallVector<scf::ForOp> invariantLoops;
      for (OpOperand &operand : op->getOpOperands())
        invariantLoops.push_back(
            op.isDpsInit(&operand)
                ? getInvariantLoops(operand.get(), op, stepLoops)
                : scf::ForOp());
      // The constant a fill set the accumulator to, if the op starts from
      // it once per output element.
      auto filledInit = [&](OpOperand &operand, ArrayRef<scf::ForOp> around) {
        auto it = filledAccumulators.find(op);
        if (it == filledAccumulators.end() || !op.isDpsInit(&operand) ||
            !isCopiedOncePerElement(operand.get(), around))
          return arith::ConstantOp();
        foldedFills.push_back(it->second.fill);
        return it->second.value;
      };
      SmallVector<Value> buffers, residentBuffers;
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
          if (failed(promoteOutputAcrossSteps(rewriter, op, operand, outer,
                                              filledInit(operand, around))))
            return signalPassFailure();
          ++numOperandsPromoted;
          continue;
        }
        rewriter.setInsertionPoint(op);
        FailureOr<std::pair<Value, Value>> promoted =
            allocateInSram(rewriter, operand, value);
        if (failed(promoted))
          return signalPassFailure();
        auto [buffer, view] = *promoted;
        bool isOutput = op.isDpsInit(&operand);
        if (!isOutput || op.payloadUsesValueFromOperand(&operand))
          initializeOutput(rewriter, loc, value, view,
                           filledInit(operand, stepLoops));
        operand.set(view);
        if (isOutput) {
          rewriter.setInsertionPointAfter(last);
          last = memref::CopyOp::create(rewriter, loc, view, value);
        }
        buffers.push_back(buffer);
        ++numOperandsPromoted;
      }
      rewriter.setInsertionPointAfter(last);
      for (Value buffer : buffers)
        memref::DeallocOp::create(rewriter, loc, buffer);
      if (loops)
        rewriter.setInsertionPointAfter(loops);
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
  }
};

} // namespace
} // namespace mlir::tessel
