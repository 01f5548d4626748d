//===- DecomposeQuantizedMatmuls.cpp - Zero points outside the MAC array --===//
//
// torch-mlir imports an ONNX QDQ matmul of two quantized activations (an
// attention's scores and context) as `linalg.quantized_matmul` or
// `linalg.quantized_batch_matmul`: sum_k (a - za) (b - zb) over i8 operands
// into i32. The MAC array multiplies i8 values without offsets, so the
// product is split as
//   sum_k (a - za) (b - zb)
//     = sum_k a b - zb sum_k a - za sum_k b + K za zb,
// a matmul of the i8 values, the rows' sums of `a` and the columns' sums of
// `b` (reductions on the vector unit, left out where the other zero point
// is 0), and an elementwise op that combines them. Integer arithmetic: the
// same i32 values.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/IntegerSums.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELDECOMPOSEQUANTIZEDMATMULS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

template <typename QuantizedOp, typename PlainOp>
struct DecomposeQuantized : OpRewritePattern<QuantizedOp> {
  using OpRewritePattern<QuantizedOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizedOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Value a = op.getInputs()[0], bv = op.getInputs()[1];
    std::optional<int64_t> za = getConstantIntValue(op.getInputs()[2]);
    std::optional<int64_t> zb = getConstantIntValue(op.getInputs()[3]);
    auto aType = cast<RankedTensorType>(a.getType());
    auto resultType = cast<RankedTensorType>(op.getResultTypes()[0]);
    if (!za || !zb || !aType.getElementType().isInteger(8) ||
        !cast<ShapedType>(bv.getType()).getElementType().isInteger(8) ||
        !resultType.getElementType().isInteger(32) || !aType.hasStaticShape() ||
        !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "zero points not constants, or not i8 x i8 into i32");
    Location loc = op.getLoc();
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    unsigned rank = resultType.getRank(); // batch..., m, n
    unsigned m = rank - 2, n = rank - 1;
    SmallVector<unsigned> batch;
    for (unsigned loop = 0; loop < m; ++loop)
      batch.push_back(loop);
    Value product =
        PlainOp::create(rewriter, loc, TypeRange{resultType}, ValueRange{a, bv},
                        op.getOutputs())
            .getResult(0);
    SmallVector<Value> inputs = {product};
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineMap> combineMaps = {identity};
    auto keptMap = [&](SmallVector<unsigned> kept) {
      SmallVector<AffineExpr> results;
      for (unsigned loop : kept)
        results.push_back(getAffineDimExpr(loop, ctx));
      return AffineMap::get(rank, 0, results, ctx);
    };
    SmallVector<unsigned> rows(batch), cols(batch);
    rows.push_back(m);
    cols.push_back(n);
    if (*zb) {
      inputs.push_back(buildSumsOverK(rewriter, loc, a, /*columns=*/false));
      combineMaps.push_back(keptMap(rows));
    }
    if (*za) {
      inputs.push_back(buildSumsOverK(rewriter, loc, bv, /*columns=*/true));
      combineMaps.push_back(keptMap(cols));
    }
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, product);
      return success();
    }
    combineMaps.push_back(identity);
    int64_t k = loops.back();
    bool hasRowSums = *zb != 0;
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, inputs,
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               resultType.getShape(),
                                               rewriter.getI32Type())
                           .getResult()},
            combineMaps,
            SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto constant = [&](int64_t v) -> Value {
                return arith::ConstantOp::create(b, l, b.getI32IntegerAttr(v));
              };
              Value value = args[0];
              unsigned next = 1;
              if (hasRowSums)
                value = arith::SubIOp::create(
                    b, l, value,
                    arith::MulIOp::create(b, l, args[next++], constant(*zb)));
              if (*za)
                value = arith::SubIOp::create(
                    b, l, value,
                    arith::MulIOp::create(b, l, args[next++], constant(*za)));
              if (*za && *zb)
                value = arith::AddIOp::create(b, l, value,
                                              constant(k * *za * *zb));
              linalg::YieldOp::create(b, l, value);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DecomposeQuantizedMatmuls
    : impl::TesselDecomposeQuantizedMatmulsBase<DecomposeQuantizedMatmuls> {
  void runOnOperation() override {
    SmallVector<Operation *> found;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::QuantizedMatmulOp, linalg::QuantizedBatchMatmulOp>(op))
        found.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeQuantized<linalg::QuantizedMatmulOp, linalg::MatmulOp>,
                 DecomposeQuantized<linalg::QuantizedBatchMatmulOp,
                                    linalg::BatchMatmulOp>>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Only the quantized matmuls are rewritten: no other op is touched.
    if (failed(applyOpPatternsGreedily(found, frozen)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
