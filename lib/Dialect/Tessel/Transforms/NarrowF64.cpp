//===- NarrowF64.cpp - Compute f64 intermediates in f32 -------------------===//
//
// torch-mlir decomposes variance (layer norm, batch norm statistics) through
// f64: the f32 input is extended, summed and divided in f64 and truncated
// back. The chip has no f64 unit, and PyTorch's own f32 kernels compute these
// statistics in f32, so Tessel retypes every f64 value inside a function to
// f32. Extensions and truncations that become f32-to-f32 disappear, and f64
// constants are rounded to f32 (to nearest even), as the truncation that
// used to follow them would.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELNARROWF64
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// `type` with f64 replaced by f32 (scalars and shaped types), or null when
/// it holds no f64.
Type narrowed(Type type) {
  if (type.isF64())
    return Float32Type::get(type.getContext());
  if (auto shaped = dyn_cast<ShapedType>(type))
    if (shaped.getElementType().isF64())
      return shaped.clone(Float32Type::get(type.getContext()));
  return {};
}

APFloat toF32(APFloat value) {
  bool losesInfo;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value;
}

/// The constant's value as f32, or null for a kind of constant this pass
/// does not narrow.
Attribute narrowedConstant(Attribute value, Type type) {
  if (auto scalar = dyn_cast<FloatAttr>(value))
    return FloatAttr::get(type, toF32(scalar.getValue()));
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return dense.mapValues(Float32Type::get(type.getContext()),
                           [](const APFloat &v) {
                             return toF32(v).bitcastToAPInt();
                           });
  return {};
}

struct NarrowF64 : impl::TesselNarrowF64Base<NarrowF64> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    for (Type type : func.getFunctionType().getInputs())
      if (narrowed(type)) {
        func.emitError() << "function '" << func.getSymName()
                         << "' takes an f64 argument; the chip computes in "
                            "f32 at most: convert the model and its inputs "
                            "to float32 (model.float())";
        return signalPassFailure();
      }
    for (Type type : func.getFunctionType().getResults())
      if (narrowed(type)) {
        func.emitError() << "function '" << func.getSymName()
                         << "' returns f64; the chip computes in f32 at "
                            "most: return float32 tensors";
        return signalPassFailure();
      }

    bool failed = false;
    func.getBody().walk([&](Operation *op) {
      if (failed)
        return;
      // Bits reinterpreted as f64 cannot be narrowed by retyping.
      if (isa<arith::BitcastOp>(op) &&
          (narrowed(op->getOperand(0).getType()) ||
           narrowed(op->getResult(0).getType()))) {
        op->emitError() << "bitcast to or from f64 cannot be computed in "
                           "f32; the chip has no f64 unit";
        failed = true;
        return;
      }
      for (Region &region : op->getRegions())
        for (BlockArgument arg : region.getArguments())
          if (Type type = narrowed(arg.getType()))
            arg.setType(type);
      for (OpResult result : op->getResults()) {
        Type type = narrowed(result.getType());
        if (!type)
          continue;
        if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
          Attribute value = narrowedConstant(constant.getValue(), type);
          if (!value) {
            op->emitError() << "f64 constant of an unsupported kind";
            failed = true;
            return;
          }
          constant.setValueAttr(cast<TypedAttr>(value));
        }
        result.setType(type);
        ++numValuesNarrowed;
      }
    });
    if (failed)
      return signalPassFailure();

    // Conversions between f32 and (what was) f64 are now the identity.
    func.getBody().walk([&](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
          op->getOperand(0).getType() != op->getResult(0).getType())
        return;
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    });
  }
};

} // namespace
} // namespace mlir::tessel
