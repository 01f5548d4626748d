//===- FoldAffineChains.cpp - x * s + t for a chain of per-channel ops ----===//
//
// A batch norm in inference imports as `(x - mean) * rsqrt(var + eps) *
// gamma + beta`: four vector ops per element of the convolution's result,
// each reading a value per channel. Per element it is `x * s + t`, with
// `s = rsqrt(var + eps) * gamma` and `t = beta - mean * s` per channel, the
// form PyTorch's own CPU kernel computes. Where an elementwise body applies
// to one of its inputs a chain of additions, subtractions and
// multiplications by inputs read alike at fewer points (the same indexing
// map and type) that the weights alone give, and the chain is longer than
// the two ops that replace it, `s` and `t` are computed once per point of
// those inputs by generics of their own, and the body applies them. The
// precompute stage runs the pass right before
// tessel-outline-weight-computations, which then moves those generics to
// compile time.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Weights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDAFFINECHAINS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// One op of a chain: `value (op) operand`, or `operand - value` for a
/// subtraction with `reversed`.
struct Link {
  Operation *op;
  BlockArgument operand;
  bool reversed = false;
};

/// The chain of ops that starts at `x`, each the only user of the value
/// before it and combining it with a block argument of an input read at
/// `map` with type `type` (the first such input sets them). Empty where
/// there is none.
SmallVector<Link> findChain(linalg::GenericOp generic, BlockArgument x,
                            AffineMap &map, Type &type) {
  SmallVector<Link> chain;
  Block *body = x.getOwner();
  int64_t numInputs = generic.getNumDpsInputs();
  Value value = x;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(user) ||
        user->getBlock() != body)
      break;
    Value other = user->getOperand(user->getOperand(0) == value ? 1 : 0);
    auto arg = dyn_cast<BlockArgument>(other);
    if (!arg || arg.getOwner() != body || arg == x ||
        arg.getArgNumber() >= numInputs)
      break;
    OpOperand *input = generic.getDpsInputOperand(arg.getArgNumber());
    AffineMap argMap = generic.getMatchingIndexingMap(input);
    if (chain.empty()) {
      map = argMap;
      type = input->get().getType();
    } else if (argMap != map || input->get().getType() != type) {
      break;
    }
    chain.push_back({user, arg, isa<arith::SubFOp>(user) &&
                                    user->getOperand(1) == value});
    value = user->getResult(0);
  }
  return chain;
}

/// `s` (`wantScale`) or `t` of the chain, computed from its operands'
/// block arguments (`operands[i]` for the chain's `i`-th) in `b`'s block;
/// null for one and for zero.
Value buildParameter(OpBuilder &b, Location loc, ArrayRef<Link> chain,
                     ArrayRef<Value> operands, bool wantScale) {
  Value value;
  for (auto [link, operand] : llvm::zip(chain, operands)) {
    bool add = isa<arith::AddFOp>(link.op), mul = isa<arith::MulFOp>(link.op);
    if (wantScale && mul) {
      value = value ? arith::MulFOp::create(b, loc, value, operand) : operand;
    } else if (wantScale && link.reversed) {
      // operand - (x * s + t) = x * -s + (operand - t).
      value = value ? arith::NegFOp::create(b, loc, value).getResult()
                    : arith::ConstantOp::create(
                          b, loc, b.getFloatAttr(operand.getType(), -1.0))
                          .getResult();
    } else if (!wantScale && mul) {
      if (value)
        value = arith::MulFOp::create(b, loc, value, operand);
    } else if (!wantScale && add) {
      value = value ? arith::AddFOp::create(b, loc, value, operand) : operand;
    } else if (!wantScale && link.reversed) {
      value = value ? arith::SubFOp::create(b, loc, operand, value) : operand;
    } else if (!wantScale) {
      value = value ? arith::SubFOp::create(b, loc, value, operand).getResult()
                    : arith::NegFOp::create(b, loc, operand).getResult();
    }
  }
  return value;
}

struct FoldAffineChains
    : impl::TesselFoldAffineChainsBase<FoldAffineChains> {
  /// What isFromWeightsAlone found, for the function at hand.
  DenseMap<Value, bool> fromWeights;

  void runOnOperation() override {
    fromWeights.clear();
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk(
        [&](linalg::GenericOp generic) { generics.push_back(generic); });
    // A residual block's last body adds two batch norms' results: a
    // chain on each input.
    for (linalg::GenericOp generic : generics)
      while (foldOne(generic))
        ;
  }

  /// Folds the first chain of `generic` there is; whether there was one.
  bool foldOne(linalg::GenericOp generic) {
    if (!generic.hasPureTensorSemantics() ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      return false;
    Block *body = generic.getBody();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      BlockArgument x = body->getArgument(input->getOperandNumber());
      if (!isa<FloatType>(x.getType()))
        continue;
      AffineMap map;
      Type type;
      SmallVector<Link> chain = findChain(generic, x, map, type);
      // Per point of x: the chain's ops against a multiplication and an
      // addition; and the points of its operands fewer than x's.
      auto operandType = dyn_cast_or_null<RankedTensorType>(type);
      auto xType = dyn_cast<RankedTensorType>(input->get().getType());
      if (chain.size() <= 2 || !operandType || !xType ||
          !operandType.hasStaticShape() || !xType.hasStaticShape() ||
          operandType.getNumElements() >= xType.getNumElements())
        continue;
      // Computed on the chip, s and t would be ops of their own that a
      // second legalize fuses back into the body.
      if (!llvm::all_of(chain, [&](const Link &link) {
            return isFromWeightsAlone(
                generic.getDpsInputOperand(link.operand.getArgNumber())->get(),
                fromWeights);
          }))
        continue;
      rewrite(generic, x, chain, map, operandType);
      ++numChainsFolded;
      return true;
    }
    return false;
  }

  /// `generic` with `chain` on `x` replaced by `x * s + t`, `s` and `t`
  /// computed by a new generic over the chain operands' points, read at
  /// their `map`.
  void rewrite(linalg::GenericOp generic, BlockArgument x,
               ArrayRef<Link> chain, AffineMap map, RankedTensorType type) {
    Location loc = generic.getLoc();
    OpBuilder b(generic);
    // The distinct inputs the chain reads, in order of first use.
    SmallVector<Value> inputs;
    SmallVector<unsigned> inputOf;
    for (const Link &link : chain) {
      Value input = generic.getDpsInputOperand(link.operand.getArgNumber())->get();
      auto *found = llvm::find(inputs, input);
      inputOf.push_back(found - inputs.begin());
      if (found == inputs.end())
        inputs.push_back(input);
    }
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps(inputs.size() + 1,
                                b.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), element);
    // One generic each for s and t: an elementwise op has one result on
    // the chip (each is a few vector ops per channel where it is not
    // computed at compile time).
    auto parameter = [&](bool wantScale) {
      return linalg::GenericOp::create(
                 b, loc, TypeRange{type}, inputs, ValueRange{empty}, maps,
                 iterators,
                 [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                   SmallVector<Value> operands;
                   for (unsigned i : inputOf)
                     operands.push_back(args[i]);
                   Value value = buildParameter(nested, nestedLoc, chain,
                                                operands, wantScale);
                   if (!value)
                     value = arith::ConstantOp::create(
                         nested, nestedLoc,
                         nested.getFloatAttr(element, wantScale ? 1.0 : 0.0));
                   linalg::YieldOp::create(nested, nestedLoc, value);
                 })
          .getResult(0);
    };
    Value scales = parameter(/*wantScale=*/true);
    Value shifts = parameter(/*wantScale=*/false);
    eraseUnusedInputs(scales.getDefiningOp<linalg::GenericOp>());
    eraseUnusedInputs(shifts.getDefiningOp<linalg::GenericOp>());

    // The generic reads s and t at the chain operands' map, after its
    // other inputs.
    int64_t numInputs = generic.getNumDpsInputs();
    SmallVector<AffineMap> newMaps = generic.getIndexingMapsArray();
    newMaps.insert(newMaps.begin() + numInputs, {map, map});
    generic.getInputsMutable().append(ValueRange{scales, shifts});
    generic.setIndexingMapsAttr(b.getAffineMapArrayAttr(newMaps));
    Block *body = generic.getBody();
    BlockArgument scale = body->insertArgument(numInputs, element, loc);
    BlockArgument shift = body->insertArgument(numInputs + 1, element, loc);

    Operation *last = chain.back().op;
    OpBuilder inBody(last);
    Value scaled = arith::MulFOp::create(inBody, last->getLoc(), x, scale);
    Value result = arith::AddFOp::create(inBody, last->getLoc(), scaled, shift);
    last->getResult(0).replaceAllUsesWith(result);
    for (const Link &link : llvm::reverse(chain))
      link.op->erase();
    eraseUnusedInputs(generic);
  }

  /// Drops the inputs `generic`'s body no longer reads (those only the
  /// chain read): an epilogue loads every input's slices.
  static void eraseUnusedInputs(linalg::GenericOp generic) {
    Block *body = generic.getBody();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (int64_t i = generic.getNumDpsInputs() - 1; i >= 0; --i) {
      if (!body->getArgument(i).use_empty())
        continue;
      generic.getInputsMutable().erase(i);
      body->eraseArgument(i);
      maps.erase(maps.begin() + i);
    }
    generic.setIndexingMapsAttr(
        Builder(generic.getContext()).getAffineMapArrayAttr(maps));
  }
};

} // namespace
} // namespace mlir::tessel
