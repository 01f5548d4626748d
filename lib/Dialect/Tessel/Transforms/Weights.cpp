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
#include "mlir/Interfaces/ViewLikeInterface.h"

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

} // namespace mlir::tessel
