//===- FuseEpilogues.cpp - Elementwise consumers run on their producer ----===//
//
// An elementwise op that reads the whole result of the op before it (an
// activation or a batch norm after a matmul or a convolution) would read
// that result back from DRAM, all of it, and store its own. Run on each
// slice of the result while it is still in the producer's SRAM, before it
// is stored, it saves that round trip and a barrier, but takes SRAM from
// the producer's steps and adds its vector work to them: the mapper decides
// (mapper.space.choose_epilogues) and marks the consumer `tessel.epilogue`.
// This pass checks that the consumer can run so, right after its producer;
// tessel-tile-for-sram sizes the producer's steps to leave room for it, and
// tessel-promote-to-sram runs it there and stores its result instead of the
// producer's.
//
// The consumer's other operands are read at the slice's indices: a bias or
// a batch norm's parameters broadcast over it, a residual of its shape.
// Its own partition (tiles and parts) no longer matters: it runs on the
// producer's.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Epilogues.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFUSEEPILOGUES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `map` reads an operand at the iteration's indices, some of them
/// left out or as 0 (a broadcast), the rest in order: so that the slice an
/// epilogue reads is the result slice's offsets and sizes along the
/// dimensions it keeps.
bool readsInOrder(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr result : map.getResults()) {
    if (auto constant = dyn_cast<AffineConstantExpr>(result)) {
      if (constant.getValue() != 0)
        return false;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || static_cast<int64_t>(dim.getPosition()) <= last)
      return false;
    last = dim.getPosition();
  }
  return true;
}

/// Whether the partition `consumer` can run as the epilogue of the
/// partition `producer`: see the pass description.
bool isEpilogueOf(scf::ForallOp consumer, scf::ForallOp producer) {
  linalg::LinalgOp produced = getPartitionedOp(producer);
  linalg::GenericOp generic = getEpilogueOp(consumer);
  if (!produced || !generic || producer->getNumResults() != 1 ||
      produced.getNumDpsInits() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      producer->getAttrOfType<MappingAttr>(
                  TesselDialect::getPartitionAttrName())
              .getStage() != consumer
                                 ->getAttrOfType<MappingAttr>(
                                     TesselDialect::getPartitionAttrName())
                                 .getStage())
    return false;
  // A result of another element type (an f32 accumulator truncated to
  // bf16) is computed into an SRAM slice of its own.
  Value result = producer->getResult(0);
  // Indices and lookups would read the slice's own coordinates.
  bool indexed = false;
  generic.getRegion().walk([&](Operation *op) {
    indexed |= isa<linalg::IndexOp, tensor::ExtractOp>(op);
  });
  if (indexed || !result.hasOneUse())
    return false;
  // The result is read as one input, at the iteration's indices; the
  // other inputs come from outside the partition.
  int reads = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
      value = slice.getSource();
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (value == result) {
      if (!map.isIdentity())
        return false;
      ++reads;
    } else if (!isa<RankedTensorType>(value.getType()) ||
               !consumer.isDefinedOutsideOfLoop(value) || !readsInOrder(map)) {
      return false;
    }
  }
  return reads == 1;
}

/// The last partition whose result the epilogue partition `consumer` reads
/// at its own indices, in the same block (of a residual add, the matmul
/// right before it, not the earlier op whose result it adds); null if there
/// is none.
scf::ForallOp getProducer(scf::ForallOp consumer) {
  linalg::LinalgOp op = getPartitionedOp(consumer);
  if (!op)
    return {};
  scf::ForallOp last;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
      value = slice.getSource();
    auto producer = value.getDefiningOp<scf::ForallOp>();
    if (producer && producer->getBlock() == consumer->getBlock() &&
        producer->hasAttr(TesselDialect::getPartitionAttrName()) &&
        op.getMatchingIndexingMap(input).isIdentity() &&
        (!last || last->isBeforeInBlock(producer)))
      last = producer;
  }
  return last;
}

/// Whether nothing but ops free of memory effects, and no other partition,
/// lies between `producer` and `consumer`.
bool areAdjacent(scf::ForallOp producer, scf::ForallOp consumer) {
  for (Operation *op = producer->getNextNode(); op != consumer;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) ||
        op->hasAttr(TesselDialect::getPartitionAttrName()))
      return false;
  return true;
}

struct FuseEpilogues : impl::TesselFuseEpiloguesBase<FuseEpilogues> {
  void runOnOperation() override {
    StringRef mark = TesselDialect::getEpilogueAttrName();
    SmallVector<scf::ForallOp> consumers;
    getOperation().walk([&](scf::ForallOp forall) {
      if (forall->hasAttr(mark))
        consumers.push_back(forall);
    });
    for (scf::ForallOp consumer : consumers) {
      scf::ForallOp producer = getProducer(consumer);
      // The mapping asked for what cannot be done: the op runs on its own.
      if (!producer || !areAdjacent(producer, consumer) ||
          producer->hasAttr(mark) || !isEpilogueOf(consumer, producer)) {
        consumer->removeAttr(mark);
        ++numEpiloguesLeft;
        continue;
      }
      ++numEpiloguesFused;
    }
  }
};

} // namespace
} // namespace mlir::tessel
