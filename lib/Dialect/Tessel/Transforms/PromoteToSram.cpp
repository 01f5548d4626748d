//===- PromoteToSram.cpp - Each step's operands in SRAM -------------------===//
//
// After bufferization a step's operands are views of DRAM buffers. The MAC
// array and vector unit only reach their tile's SRAM, so each step gets SRAM
// buffers, filled and drained by copies that become DMA transfers.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPROMOTETOSRAM
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

bool isInSram(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && getMemorySpace(type) == MemorySpace::sram;
}

/// An SRAM buffer for `value`: of its static shape, or, for a dynamically
/// sized step (the last, shorter one of an uneven split), of the largest
/// shape it takes, viewed at the step's actual sizes.
FailureOr<std::pair<Value, Value>> allocateInSram(RewriterBase &rewriter,
                                                  Location loc, Value value) {
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
      return failure();
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

struct PromoteToSram : impl::TesselPromoteToSramBase<PromoteToSram> {
  void runOnOperation() override {
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
      SmallVector<Value> buffers;
      Operation *last = op; // the op, or the last copy back inserted after it
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        if (!isa<MemRefType>(value.getType()) || isInSram(value))
          continue;
        rewriter.setInsertionPoint(op);
        FailureOr<std::pair<Value, Value>> promoted =
            allocateInSram(rewriter, loc, value);
        if (failed(promoted)) {
          op.emitOpError() << "operand #" << operand.getOperandNumber()
                           << " has a size that cannot be bounded, so it "
                              "gets no SRAM buffer";
          return signalPassFailure();
        }
        auto [buffer, view] = *promoted;
        bool isOutput = op.isDpsInit(&operand);
        if (!isOutput || op.payloadUsesValueFromOperand(&operand))
          memref::CopyOp::create(rewriter, loc, value, view);
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
    }
  }
};

} // namespace
} // namespace mlir::tessel
