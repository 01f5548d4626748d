//===- BooleansAsFloats.cpp - Boolean tensors stored as f32 ---------------===//
//
// Attention masks bring tensors of i1 between ops: PyTorch's
// scaled_dot_product_attention tests whether a row is masked everywhere (an
// AND reduction of `score == -inf`) and selects 0 for such rows. The chip
// has no boolean type: inside an op's body a comparison is kept as 1.0 /
// 0.0 already (tessel-lower-to-instructions), and this pass stores the i1
// tensors that cross ops the same way, as f32 tensors in which 0 is false
// and anything else true:
//
// - a fill of `true` / `false` fills 1.0 / 0.0;
// - an op yielding an i1 element yields `select(b, 1.0, 0.0)`;
// - an op reading an f32-stored boolean reads `element != 0`;
// - an AND reduction (`andi` of an element and the accumulator) becomes a
//   maximum of the negated elements (`select(b, -1.0, 0.0)`) from a
//   negated fill: -min(x) = max(-x), true (-1) wherever every element is;
//   an OR reduction a maximum of `select(b, 1.0, 0.0)`. Both are reductions
//   the vector unit runs.
//
// Views of boolean tensors (reshapes, slices) follow. A function whose
// booleans meet anything else (a boolean argument or result, a reduction
// from a computed start) is left as it is: the lowering then names the op.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include <map>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELBOOLEANSASFLOATS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

bool isBooleanTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(1);
}

RankedTensorType asFloat(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(),
                               Float32Type::get(type.getContext()));
}

/// The reductions of booleans the vector unit runs as maxima.
enum class BooleanReduction { none, all, any };

/// Whether `generic` reduces booleans with AND or OR of its accumulator.
BooleanReduction getBooleanReduction(linalg::GenericOp generic) {
  if (generic.getNumReductionLoops() == 0 || generic.getNumDpsInits() != 1 ||
      !isBooleanTensor(generic.getResultTypes()[0]))
    return BooleanReduction::none;
  Block &body = generic.getRegion().front();
  Operation *combine =
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0).getDefiningOp();
  if (!combine || !llvm::is_contained(combine->getOperands(),
                                      body.getArguments().back()))
    return BooleanReduction::none;
  if (isa<arith::AndIOp>(combine))
    return BooleanReduction::all;
  if (isa<arith::OrIOp>(combine))
    return BooleanReduction::any;
  return BooleanReduction::none;
}

/// The constant a fill writes, if it fills a boolean constant.
std::optional<bool> getBooleanFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  auto constant = fill.value().getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<IntegerAttr>(constant.getValue()) : nullptr;
  if (!attr || !attr.getType().isInteger(1))
    return std::nullopt;
  return attr.getValue().getBoolValue();
}

class Conversion {
public:
  explicit Conversion(func::FuncOp func) : func(func), builder(func) {}

  /// Whether every boolean tensor of the function can be stored as f32.
  bool check() {
    if (llvm::any_of(func.getArgumentTypes(), isBooleanTensor) ||
        llvm::any_of(func.getResultTypes(), isBooleanTensor))
      return false;
    WalkResult result = func.walk([&](Operation *op) {
      bool touches = llvm::any_of(op->getOperandTypes(), isBooleanTensor) ||
                     llvm::any_of(op->getResultTypes(), isBooleanTensor);
      if (!touches)
        return WalkResult::advance();
      if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
              tensor::ExtractSliceOp, tensor::CastOp>(op))
        return WalkResult::advance();
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        return getBooleanFill(fill.getResult(0)) ? WalkResult::advance()
                                                 : WalkResult::interrupt();
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !generic.hasPureTensorSemantics())
        return WalkResult::interrupt();
      if (generic.getNumReductionLoops() != 0 &&
          llvm::any_of(generic.getResultTypes(), isBooleanTensor) &&
          (getBooleanReduction(generic) == BooleanReduction::none ||
           !getBooleanFill(generic.getDpsInits()[0])))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !result.wasInterrupted();
  }

  void run() {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (llvm::any_of(op->getOperandTypes(), isBooleanTensor) ||
          llvm::any_of(op->getResultTypes(), isBooleanTensor))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      builder.setInsertionPoint(op);
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        convertGeneric(generic);
      else
        convertOther(op);
    }
    for (Operation *op : llvm::reverse(ops))
      op->erase();
  }

private:
  Value lookup(Value value) { return converted.lookupOrDefault(value); }

  /// A tensor.empty, fill or view of booleans, rebuilt on f32.
  void convertOther(Operation *op) {
    Location loc = op->getLoc();
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      // An AND reduction's start is filled negated (see the file comment).
      bool negate = llvm::any_of(fill->getUsers(), [](Operation *user) {
        auto generic = dyn_cast<linalg::GenericOp>(user);
        return generic &&
               getBooleanReduction(generic) == BooleanReduction::all;
      });
      bool value = *getBooleanFill(fill.getResult(0));
      converted.map(fill.getResult(0),
                    linalg::FillOp::create(builder, loc,
                                           constant(!value ? 0.0
                                                    : negate ? -1.0
                                                             : 1.0),
                                           lookup(fill.getOutputs()[0]))
                        .getResult(0));
      return;
    }
    Operation *clone = builder.clone(*op, converted);
    for (OpResult result : clone->getResults())
      if (isBooleanTensor(result.getType()))
        result.setType(asFloat(result.getType()));
  }

  void convertGeneric(linalg::GenericOp generic) {
    Location loc = generic.getLoc();
    SmallVector<Value> inputs = llvm::map_to_vector(
        generic.getDpsInputs(), [&](Value v) { return lookup(v); });
    SmallVector<Value> inits = llvm::map_to_vector(
        generic.getDpsInits(), [&](Value v) { return lookup(v); });
    SmallVector<Type> resultTypes = llvm::map_to_vector(
        inits, [](Value v) { return v.getType(); });
    auto rebuilt = linalg::GenericOp::create(
        builder, loc, resultTypes, inputs, inits,
        generic.getIndexingMapsArray(), generic.getIteratorTypesArray());
    rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
    BooleanReduction reduction = getBooleanReduction(generic);
    rebuilt.getRegion().takeBody(generic.getRegion());
    Block &body = rebuilt.getRegion().front();

    // Arguments stored as f32 are read as `element != 0`.
    OpBuilder inBody = OpBuilder::atBlockBegin(&body);
    DenseMap<Value, Value> truthOf;
    for (BlockArgument arg : body.getArguments()) {
      if (!arg.getType().isInteger(1))
        continue;
      arg.setType(inBody.getF32Type());
      if (arg.use_empty())
        continue;
      auto truth = arith::CmpFOp::create(inBody, loc, arith::CmpFPredicate::UNE,
                                         arg, constant(0.0));
      arg.replaceAllUsesExcept(truth, truth);
      truthOf[arg] = truth;
    }

    // Booleans yielded are stored as 1.0 / 0.0; a reduction's as a maximum
    // of the accumulator and the element (negated for AND).
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    OpBuilder atYield(yield);
    Value acc = body.getArguments().back();
    for (OpOperand &yielded : yield->getOpOperands()) {
      if (!yielded.get().getType().isInteger(1))
        continue;
      if (reduction == BooleanReduction::none) {
        yielded.set(select(atYield, loc, yielded.get(), 1.0));
        continue;
      }
      Operation *combine = yielded.get().getDefiningOp();
      Value accTruth = truthOf.lookup(acc);
      Value element = combine->getOperand(0) == accTruth
                          ? combine->getOperand(1)
                          : combine->getOperand(0);
      double one = reduction == BooleanReduction::all ? -1.0 : 1.0;
      yielded.set(arith::MaximumFOp::create(
          atYield, loc, select(atYield, loc, element, one), acc));
      combine->erase();
      if (accTruth.use_empty())
        accTruth.getDefiningOp()->erase();
    }
    // Boolean results are read only by ops converted after this one
    // (check()); the others' readers take the rebuilt op's results now.
    for (auto [old, now] :
         llvm::zip(generic.getResults(), rebuilt.getResults())) {
      converted.map(old, now);
      if (old.getType() == now.getType())
        old.replaceAllUsesWith(now);
    }
  }

  Value select(OpBuilder &b, Location loc, Value truth, double one) {
    return arith::SelectOp::create(b, loc, truth, constant(one), constant(0.0));
  }

  /// An f32 constant, made once at the function's start.
  Value constant(double value) {
    Value &made = constants[value];
    if (!made) {
      OpBuilder atStart = OpBuilder::atBlockBegin(&func.getBody().front());
      made = arith::ConstantOp::create(atStart, func.getLoc(),
                                       atStart.getF32FloatAttr(value));
    }
    return made;
  }

  func::FuncOp func;
  OpBuilder builder;
  IRMapping converted;
  std::map<double, Value> constants;
};

struct BooleansAsFloats
    : impl::TesselBooleansAsFloatsBase<BooleansAsFloats> {
  void runOnOperation() override {
    Conversion conversion(getOperation());
    if (conversion.check())
      conversion.run();
  }
};

} // namespace
} // namespace mlir::tessel
