//===- HoistEpilogueOperands.cpp - An epilogue's other inputs, first ------===//
//
// An elementwise op runs as its producer's epilogue only where it comes right
// after it (tessel-fuse-epilogues): it then reads the producer's slices in
// SRAM instead of the whole result from DRAM. A batch norm imports as a
// convolution, then the scale `rsqrt(var + eps)` computed from its running
// variance, then the elementwise op that applies it: the scale, which does
// not depend on the convolution, sits between the two and keeps them apart.
// Computing such inputs before the producer instead changes no value and
// makes the two adjacent.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELHOISTEPILOGUEOPERANDS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The last reduction (a matmul, a convolution) before `generic` in its
/// block whose only result `generic` alone reads: the producer it could run
/// as an epilogue of (of two convolutions added, only the later one can come
/// right before it). Null where `generic` is not an elementwise op on
/// tensors or has no such producer.
Operation *getEpilogueProducer(linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  Operation *last = nullptr;
  for (Value input : generic.getDpsInputs()) {
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    if (producer && producer.getNumReductionLoops() != 0 &&
        producer->getNumResults() == 1 && input.hasOneUse() &&
        producer->getBlock() == generic->getBlock() &&
        (!last || last->isBeforeInBlock(producer)))
      last = producer;
  }
  return last;
}

/// The ops strictly between `producer` and `generic` whose results `generic`
/// reads, directly or through each other, in block order; failure where one
/// of them has memory effects (it could not move).
FailureOr<SmallVector<Operation *>> getOperandsBetween(Operation *producer,
                                                       Operation *generic) {
  llvm::SetVector<Operation *> between;
  SmallVector<Operation *> worklist{generic};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    SmallVector<Value> used(op->getOperands());
    for (Region &region : op->getRegions())
      region.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (!op->isAncestor(operand.getParentRegion()->getParentOp()))
            used.push_back(operand);
      });
    for (Value value : used) {
      Operation *def = value.getDefiningOp();
      if (!def || def->getBlock() != generic->getBlock() ||
          !producer->isBeforeInBlock(def) || def == producer ||
          between.contains(def))
        continue;
      if (!isMemoryEffectFree(def))
        return failure();
      between.insert(def);
      worklist.push_back(def);
    }
  }
  SmallVector<Operation *> ordered(between.begin(), between.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return ordered;
}

struct HoistEpilogueOperands
    : impl::TesselHoistEpilogueOperandsBase<HoistEpilogueOperands> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk(
        [&](linalg::GenericOp generic) { generics.push_back(generic); });
    for (linalg::GenericOp generic : generics) {
      Operation *producer = getEpilogueProducer(generic);
      if (!producer)
        continue;
      FailureOr<SmallVector<Operation *>> between =
          getOperandsBetween(producer, generic);
      if (failed(between) || between->empty())
        continue;
      // In block order, each op's operands are defined before `producer`
      // or moved there ahead of it: none depends on `producer`, whose
      // result only `generic` reads.
      for (Operation *op : *between)
        op->moveBefore(producer);
      numOpsHoisted += between->size();
    }
  }
};

} // namespace
} // namespace mlir::tessel
