//===- CheckInputContract.cpp - Reject ops outside the input contract -----===//
//
// Tessel's frontend hands over linalg-on-tensors. Anything else (an scf loop a
// user wrote, a torch-mlir dialect that MLIR 22 happened to parse as unknown,
// memrefs) would otherwise surface as an obscure failure deep in the pipeline,
// or worse, be silently dropped. This pass names every such op up front.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCHECKINPUTCONTRACT
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Dialects whose every op belongs to the contract.
constexpr llvm::StringLiteral kAllowedDialects[] = {"func", "linalg", "tensor",
                                                    "arith", "math"};
constexpr llvm::StringLiteral kContractSummary =
    "builtin.module, func, linalg, tensor, arith, math, cf.assert, "
    "tessel.pad_view";

bool isInContract(Operation *op) {
  // Nested modules would hide a second, unchecked program.
  if (auto module = dyn_cast<ModuleOp>(op))
    return !module->getParentOp();
  // torch-mlir guards dynamic shapes with cf.assert; it has no effect on
  // values, so later stages may drop it.
  if (isa<cf::AssertOp>(op))
    return true;
  // What the legalize passes make of a pad: their output, mapped, is lowered
  // again from the start.
  if (isa<PadViewOp, TransposeViewOp>(op))
    return true;
  StringRef dialect = op->getName().getDialectNamespace();
  return llvm::is_contained(kAllowedDialects, dialect) &&
         op->isRegistered();
}

/// Tessel bufferizes itself, into its own memory spaces; buffers chosen
/// upstream would bypass SRAM allocation.
bool usesMemRefs(Operation *op) {
  auto isMemRef = [](Type type) { return isa<BaseMemRefType>(type); };
  return llvm::any_of(op->getOperandTypes(), isMemRef) ||
         llvm::any_of(op->getResultTypes(), isMemRef);
}

struct CheckInputContract
    : impl::TesselCheckInputContractBase<CheckInputContract> {
  void runOnOperation() override {
    bool rejected = false;
    // Pre-order, skipping the inside of a rejected op: one error per
    // offending construct, not one per op in its body.
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      ++numOpsChecked;
      if (!isInContract(op)) {
        op->emitError() << "'" << op->getName()
                        << "' is outside Tessel's input contract ("
                        << kContractSummary
                        << "); lower the model to linalg-on-tensors before "
                           "compiling it";
      } else if (usesMemRefs(op)) {
        op->emitError() << "'" << op->getName()
                        << "' operates on memrefs; Tessel's input is "
                           "linalg on tensors, which it bufferizes itself";
      } else {
        return WalkResult::advance();
      }
      ++numOpsRejected;
      rejected = true;
      return WalkResult::skip();
    });
    if (rejected)
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
