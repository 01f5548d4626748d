//===- OutlineWeightComputations.cpp - What weights alone give, once -------===//
//
// A model computes some values from its weights alone: a batch norm's scale
// (`gamma * rsqrt(var + eps)`) and shift, the column sums an int8 matmul
// subtracts its activation's zero point times. The chip would compute them
// on every run, each an op of its own between the layers. Weights are known
// before the program runs, so this pass moves such computations into a
// function of their own, which the driver evaluates once, when it writes
// the weights into DRAM, and makes each value they give a weight argument
// of the model.
//
// Only values that are worth it leave: ones computed (some op besides
// fills, copies, transposes and broadcasts of weights is in their slice)
// and no larger than the weights they come from, so that no derived weight
// moves more DRAM bytes than computing it would read.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELOUTLINEWEIGHTCOMPUTATIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Whether `op` moves or fills data without computing: a value whose slice
/// holds only such ops is a weight in another layout, cheaper to read as
/// it is.
bool movesOnly(Operation *op) {
  return isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp,
             linalg::BroadcastOp>(op) ||
         !isa<linalg::LinalgOp>(op);
}

int64_t getNumElements(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : -1;
}

/// What a value computed from weights alone reads and does.
struct WeightSlice {
  /// The weight arguments it reads.
  llvm::SmallSetVector<BlockArgument, 4> weights;
  bool computes = false;
};

struct OutlineWeightComputations
    : impl::TesselOutlineWeightComputationsBase<OutlineWeightComputations> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!func.isExternal())
        outline(func, symbols);
  }

  void outline(func::FuncOp func, SymbolTable &symbols) {
    Block &body = func.getBody().front();
    // The ops that read weights and constants alone, with what each value
    // they give reads and does.
    llvm::DenseMap<Operation *, WeightSlice> slices;
    llvm::DenseMap<Value, bool> fromWeights;
    for (Operation &op : body.without_terminator()) {
      if (op.getNumResults() == 0 ||
          !isFromWeightsAlone(op.getResult(0), fromWeights))
        continue;
      WeightSlice slice;
      for (Value read : getReads(&op)) {
        if (auto arg = dyn_cast<BlockArgument>(read)) {
          slice.weights.insert(arg);
        } else if (auto it = slices.find(read.getDefiningOp());
                   it != slices.end()) {
          slice.weights.insert(it->second.weights.begin(),
                               it->second.weights.end());
          slice.computes |= it->second.computes;
        }
      }
      // A linalg op's init is read only for its shape unless its body
      // reads it; either way it is among the operands above.
      slice.computes |= !movesOnly(&op);
      slices[&op] = std::move(slice);
    }

    // The values the rest of the function reads, worth computing once.
    SmallVector<Value> leaving;
    for (Operation &op : body.without_terminator()) {
      auto it = slices.find(&op);
      if (it == slices.end() || !it->second.computes)
        continue;
      int64_t read = 0;
      for (BlockArgument weight : it->second.weights)
        read += std::max<int64_t>(getNumElements(weight), 0);
      for (Value result : op.getResults()) {
        int64_t size = getNumElements(result);
        bool readElsewhere = llvm::any_of(result.getUsers(), [&](Operation *user) {
          return !slices.contains(user);
        });
        if (readElsewhere && size >= 0 && size <= read)
          leaving.push_back(result);
      }
    }
    if (leaving.empty())
      return;

    // The ops each value needs. Values that share an op (a batch norm's
    // scale and the shift computed from it) are computed by one function,
    // the others each by a function of their own: MLIR's JIT takes a time
    // that grows with the square of a function's arguments and results to
    // compile it (ResNet-18's 40 values: 0.5 s in one function, 0.17 s in
    // 20). An op that reads nothing (a constant, an empty tensor) joins no
    // values: each function that needs it gets a copy.
    llvm::EquivalenceClasses<unsigned> groups;
    SmallVector<llvm::SmallPtrSet<Operation *, 16>> neededBy(leaving.size());
    llvm::DenseMap<Operation *, unsigned> firstNeededBy;
    for (auto [i, value] : llvm::enumerate(leaving)) {
      groups.insert(i);
      SmallVector<Operation *> worklist{value.getDefiningOp()};
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        if (!neededBy[i].insert(op).second)
          continue;
        auto [it, inserted] = firstNeededBy.try_emplace(op, i);
        if (!inserted && (op->getNumOperands() || op->getNumRegions()))
          groups.unionSets(it->second, i);
        for (Value operand : getReads(op))
          if (!isa<BlockArgument>(operand))
            worklist.push_back(operand.getDefiningOp());
      }
    }

    MLIRContext *ctx = func.getContext();
    llvm::StringSet<> names;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto name = func.getArgAttrOfType<StringAttr>(i, "tessel.name"))
        names.insert(name.getValue());
    auto nameOf = [&](unsigned index) -> std::string {
      auto name = func.getArgAttrOfType<StringAttr>(index, "tessel.name");
      return name ? name.getValue().str() : "arg" + std::to_string(index);
    };
    // Named after the first weight each reads: `derived.bn1.running_var`,
    // `.1` and on for more than one.
    SmallVector<std::string> derivedNames;
    for (Value value : leaving) {
      BlockArgument first = *llvm::min_element(
          slices[value.getDefiningOp()].weights,
          [](BlockArgument a, BlockArgument b) {
            return a.getArgNumber() < b.getArgNumber();
          });
      std::string base = "derived." + nameOf(first.getArgNumber());
      std::string name = base;
      for (int n = 1; names.contains(name); ++n)
        name = base + "." + std::to_string(n);
      names.insert(name);
      derivedNames.push_back(name);
    }

    OpBuilder builder(func);
    auto typesOf = [](auto values) {
      return llvm::map_to_vector(values, [](auto v) { return v.getType(); });
    };
    // A function per group, in the order of the values: `<f>.weights.<n>`.
    unsigned numFunctions = 0;
    SmallVector<bool> placed(leaving.size(), false);
    for (unsigned i = 0; i < leaving.size(); ++i) {
      if (placed[i])
        continue;
      SmallVector<unsigned> members;
      for (unsigned j = i; j < leaving.size(); ++j)
        if (groups.isEquivalent(i, j)) {
          members.push_back(j);
          placed[j] = true;
        }
      // The weights they read, in the model's order, and the ops they
      // need, in program order.
      llvm::SmallSetVector<BlockArgument, 8> weights;
      llvm::SmallPtrSet<Operation *, 16> needed;
      for (unsigned j : members)
        needed.insert(neededBy[j].begin(), neededBy[j].end());
      SmallVector<Operation *> ordered(needed.begin(), needed.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      for (Operation *op : ordered)
        for (Value operand : getReads(op))
          if (auto arg = dyn_cast<BlockArgument>(operand))
            weights.insert(arg);
      SmallVector<BlockArgument> inputs(weights.begin(), weights.end());
      llvm::sort(inputs, [](BlockArgument a, BlockArgument b) {
        return a.getArgNumber() < b.getArgNumber();
      });
      SmallVector<Value> results = llvm::map_to_vector(
          members, [&](unsigned j) { return leaving[j]; });

      auto outlined = func::FuncOp::create(
          builder, func.getLoc(),
          (func.getSymName() + ".weights." + Twine(numFunctions++)).str(),
          FunctionType::get(ctx, typesOf(inputs), typesOf(results)));
      outlined.setPrivate();
      outlined->setAttr(TesselDialect::getWeightsOfAttrName(),
                        FlatSymbolRefAttr::get(func));
      symbols.insert(outlined);
      Block *entry = outlined.addEntryBlock();
      IRMapping map;
      for (auto [k, weight] : llvm::enumerate(inputs)) {
        map.map(weight, entry->getArgument(k));
        outlined.setArgAttrs(k, func.getArgAttrDict(weight.getArgNumber()));
      }
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(entry);
      for (Operation *op : ordered)
        builder.clone(*op, map);
      func::ReturnOp::create(builder, func.getLoc(),
                             llvm::map_to_vector(results, [&](Value v) {
                               return map.lookup(v);
                             }));
      for (auto [k, j] : llvm::enumerate(members))
        outlined.setResultAttr(k, "tessel.name",
                               builder.getStringAttr(derivedNames[j]));
    }

    // The model reads each as a weight of its own.
    for (auto [value, name] : llvm::zip(leaving, derivedNames)) {
      unsigned index = func.getNumArguments();
      NamedAttribute attrs[] = {
          builder.getNamedAttr("tessel.kind", builder.getStringAttr("weight")),
          builder.getNamedAttr("tessel.name", builder.getStringAttr(name))};
      if (failed(func.insertArgument(index, value.getType(),
                                     builder.getDictionaryAttr(attrs),
                                     value.getLoc())))
        return signalPassFailure();
      value.replaceAllUsesWith(func.getArgument(index));
    }
    SmallVector<Operation *> needed = llvm::to_vector(
        llvm::make_first_range(firstNeededBy));
    llvm::sort(needed, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : llvm::reverse(needed))
      if (op->use_empty())
        op->erase();
    numOutlined += leaving.size();
  }
};

} // namespace
} // namespace mlir::tessel
