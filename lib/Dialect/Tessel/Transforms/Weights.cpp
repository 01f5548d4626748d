//===- Weights.cpp - Which values are slices of the model's weights -------===//
//
// Weights are the function arguments the frontend marks
// `tessel.kind = "weight"`; an op of a partitioned function reads a tile's
// slice of one, before bufferization through tensor slices and reshapes,
// after it through memref views.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessel {

bool isWeightArgument(func::FuncOp func, unsigned index) {
  auto kind = func.getArgAttrOfType<StringAttr>(index, "tessel.kind");
  return kind && kind.getValue() == "weight";
}

BlockArgument getWeightArgument(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                 tensor::CollapseShapeOp>(def))
      value = def->getOperand(0);
    else
      return nullptr;
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return nullptr;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getBody().front())
    return nullptr;
  return isWeightArgument(func, arg.getArgNumber()) ? arg : nullptr;
}

bool isResidentWeight(linalg::LinalgOp op, OpOperand &operand, bool resident) {
  return resident && op.isDpsInput(&operand) && getWeightArgument(operand.get());
}

SmallVector<Value> getReads(Operation *op) {
  SmallVector<Value> reads(op->getOperands());
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  reads.append(above.begin(), above.end());
  return reads;
}

/// Whether the driver's evaluator runs `op`: an op of the dialects of an
/// imported model (not the tessel ops legalize makes), free of memory
/// effects, with no region but a linalg op's body.
static bool isEvaluable(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return (dialect == "linalg" || dialect == "tensor" || dialect == "arith" ||
          dialect == "math") &&
         op->getNumResults() && isMemoryEffectFree(op) &&
         (op->getNumRegions() == 0 || isa<linalg::LinalgOp>(op));
}

bool isFromWeightsAlone(Value value, llvm::DenseMap<Value, bool> &known) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  bool alone = false;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    alone = func && arg.getOwner() == &func.getBody().front() &&
            isWeightArgument(func, arg.getArgNumber());
  } else if (Operation *def = value.getDefiningOp(); isEvaluable(def)) {
    known[value] = false; // a cycle (a graph region) gives no weight
    alone = llvm::all_of(getReads(def), [&](Value read) {
      return isFromWeightsAlone(read, known);
    });
  }
  known[value] = alone;
  return alone;
}

} // namespace mlir::tessel
