//===- ApplyPatterns.h - Greedy rewriting that says when it fails -*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_APPLYPATTERNS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_APPLYPATTERNS_H

#include "mlir/IR/Operation.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {

/// Applies `patterns` greedily to `op`. The driver fails when its rewrites
/// keep applying; the IR is then left as it is, and the error names `pass`
/// (a pass's `getArgument()`) rather than letting the tool exit without a
/// word.
inline LogicalResult applyPatternsOrReport(Operation *op,
                                           FrozenRewritePatternSet patterns,
                                           StringRef pass) {
  if (succeeded(applyPatternsGreedily(op, std::move(patterns))))
    return success();
  return op->emitError() << pass << " did not converge";
}

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_APPLYPATTERNS_H
