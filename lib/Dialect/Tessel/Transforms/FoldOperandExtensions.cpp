//===- FoldOperandExtensions.cpp - bf16 and f16 products on the MAC array -===//
//
// torch-mlir imports a bf16 (or f16) `nn.Linear` as extensions of its input
// and weight to f32, an f32 matmul and a truncation of the result: PyTorch's
// own bf16 matmul accumulates in f32. The MAC array multiplies bf16 and f16
// inputs into an f32 accumulator in exactly that way (docs/isa.md,
// *Numerics*: the product of two bf16 or f16 values is exact in f32), so this
// pass folds the extensions into the matmul. It then reads the narrow
// operands: half the bytes from DRAM and through the SRAM port, and no f32
// copies of the weights and activations. The bits do not change.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDOPERANDEXTENSIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// The bf16 or f16 tensor `value` extends to f32 elementwise (a
/// linalg.generic of identity maps whose body is one `arith.extf`), or null.
Value getExtendedNarrowTensor(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto extend = yield.getOperand(0).getDefiningOp<arith::ExtFOp>();
  if (!extend || &body.front() != extend.getOperation() ||
      extend.getIn() != body.getArgument(0) || !extend.getType().isF32())
    return {};
  Type narrow = extend.getIn().getType();
  if (!narrow.isBF16() && !narrow.isF16())
    return {};
  return generic.getDpsInputs()[0];
}

/// Makes `op`, a matmul or batch matmul both of whose operands are
/// extensions of one narrow type, read the narrow tensors; its accumulator
/// stays f32. Returns whether it did.
template <typename MatmulOp>
bool foldExtensions(MatmulOp op, IRRewriter &rewriter) {
  if (!op.hasPureTensorSemantics())
    return false;
  Value lhs = getExtendedNarrowTensor(op.getInputs()[0]);
  Value rhs = getExtendedNarrowTensor(op.getInputs()[1]);
  if (!lhs || !rhs ||
      getElementTypeOrSelf(lhs.getType()) != getElementTypeOrSelf(rhs.getType()))
    return false;
  // The maps and the cast are kept as they are; the body is rebuilt for the
  // new operand types.
  SmallVector<NamedAttribute> attributes;
  for (StringRef name : {"indexing_maps", "cast"})
    if (Attribute attribute = op->getAttr(name))
      attributes.emplace_back(rewriter.getStringAttr(name), attribute);
  llvm::append_range(attributes, op->getDiscardableAttrs());
  llvm::SmallSetVector<Operation *, 2> extensions;
  extensions.insert(op.getInputs()[0].getDefiningOp());
  extensions.insert(op.getInputs()[1].getDefiningOp());
  rewriter.setInsertionPoint(op);
  rewriter.replaceOpWithNewOp<MatmulOp>(op, op->getResultTypes(),
                                        ValueRange{lhs, rhs}, op.getOutputs(),
                                        attributes);
  // An extension nothing else reads is not made at all.
  for (Operation *extension : extensions)
    if (extension->use_empty())
      rewriter.eraseOp(extension);
  return true;
}

struct FoldOperandExtensions
    : impl::TesselFoldOperandExtensionsBase<FoldOperandExtensions> {
  void runOnOperation() override {
    SmallVector<Operation *> matmuls;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : matmuls) {
      bool folded = TypeSwitch<Operation *, bool>(op)
                        .Case([&](linalg::MatmulOp matmul) {
                          return foldExtensions(matmul, rewriter);
                        })
                        .Case([&](linalg::BatchMatmulOp matmul) {
                          return foldExtensions(matmul, rewriter);
                        });
      numMatmulsFolded += folded;
    }
  }
};

} // namespace
} // namespace mlir::tessel
