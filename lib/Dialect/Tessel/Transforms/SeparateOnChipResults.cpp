//===- SeparateOnChipResults.cpp - A buffer of its own per kept result ----===//
//
// An op mapped `on_chip` keeps its result in its tiles' SRAM
// (tessel-keep-on-chip), which needs a DRAM buffer that no other op writes
// and that is no model output (tessel-convert-to-device rejects others).
// One-Shot Bufferize gives ops that write into one tensor.empty, or into one
// fill of it, one buffer where their results do not live at the same time:
// a later op may then write the kept result's buffer, or return it. This
// pass gives each op mapped `on_chip` (and its epilogue, which writes the
// result it keeps) an init of its own: a copy of the tensor.empty, and of
// the fill between, where another op uses them too.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSEPARATEONCHIPRESULTS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Makes `init` (an operand of `user`) a value only `user` uses, where it
/// is a tensor.empty or a fill of one: copies of them right before `user`'s
/// chain. Returns whether it changed anything.
bool separate(OpOperand &init) {
  Operation *user = init.getOwner();
  Value value = init.get();
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  auto fill = dyn_cast<linalg::FillOp>(def);
  if (!fill && !isa<tensor::EmptyOp>(def))
    return false;
  bool changed = false;
  if (!value.hasOneUse()) {
    OpBuilder builder(user);
    Operation *copy = builder.clone(*def);
    init.set(copy->getResult(cast<OpResult>(value).getResultNumber()));
    def = copy;
    changed = true;
  }
  // A fill's own init, copied too where another fill or op writes it.
  if (auto copied = dyn_cast<linalg::FillOp>(def)) {
    OpOperand &fillInit = copied.getDpsInitsMutable()[0];
    if (fillInit.get().getDefiningOp<tensor::EmptyOp>() &&
        !fillInit.get().hasOneUse()) {
      OpBuilder builder(copied);
      fillInit.set(
          builder.clone(*fillInit.get().getDefiningOp())->getResult(0));
      changed = true;
    }
  }
  return changed;
}

struct SeparateOnChipResults
    : impl::TesselSeparateOnChipResultsBase<SeparateOnChipResults> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> kept;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto mapping = op->getAttrOfType<MappingAttr>(
          TesselDialect::getMappingAttrName());
      if (!mapping || !mapping.getOnChip())
        return;
      kept.push_back(op);
      // Its epilogue writes the result it keeps (tessel-fuse-epilogues).
      for (Operation *next = op->getNextNode(); next;
           next = next->getNextNode())
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(next)) {
          if (next->hasAttr(TesselDialect::getEpilogueAttrName()))
            kept.push_back(linalgOp);
          break;
        }
    });
    for (linalg::LinalgOp op : kept)
      for (OpOperand &init : op.getDpsInitsMutable())
        numInitsSeparated += separate(init);
  }
};

} // namespace
} // namespace mlir::tessel
