//===- ScansAsReductions.cpp - Prefix sums as masked reductions -----------===//
//
// torch-mlir writes `cumsum` (from PyTorch and from ONNX's CumSum) as
// `tm_tensor.scan`, an op of its own dialect, which MLIR 22 reads only as
// an unregistered op. The chip has no scan; it has reductions. An
// inclusive prefix sum along a dimension of extent n is, for each output
// position j, the sum over k of `k <= j ? x[k] : 0`: one linalg reduction
// over an extra loop k, whose mask compares two constant position vectors
// (f32, exact below 2^24). The sum runs over k in order, so each output
// adds x[0], .., x[j] in the scan's own order; the zeros after it change
// nothing but the sign of a zero. The work is n times the scan's, which is
// small next to the matmuls of the models that number their tokens this
// way (position ids from an attention mask).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSCANSASREDUCTIONS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Positions up to this are exact in f32.
constexpr int64_t kMaxExactPosition = int64_t(1) << 24;

/// An attribute of an op torch-mlir's dialect defines, which MLIR 22 keeps
/// either as a property (generic form `<{...}>`) or as an attribute.
Attribute getScanAttr(Operation *op, StringRef name) {
  if (auto properties =
          dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute()))
    if (Attribute value = properties.get(name))
      return value;
  return op->getAttr(name);
}

/// What a `tm_tensor.scan` computes, when it is an inclusive sum along one
/// dimension of a static tensor whose final accumulator nobody reads.
struct Scan {
  Value input;
  RankedTensorType type;
  int64_t dimension;
  bool integer;
};

std::optional<Scan> matchInclusiveSum(Operation *op) {
  if (op->getName().getStringRef() != "tm_tensor.scan" ||
      op->getNumOperands() != 3 || op->getNumResults() != 2 ||
      op->getNumRegions() != 1 || !op->getResult(1).use_empty())
    return std::nullopt;
  auto dimension = dyn_cast_if_present<IntegerAttr>(getScanAttr(op, "dimension"));
  auto inclusive = dyn_cast_if_present<BoolAttr>(getScanAttr(op, "inclusive"));
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!dimension || !inclusive || !inclusive.getValue() || !type ||
      !type.hasStaticShape() || op->getResult(0).getType() != type)
    return std::nullopt;
  int64_t dim = dimension.getInt();
  if (dim < 0 || dim >= type.getRank() ||
      type.getDimSize(dim) > kMaxExactPosition)
    return std::nullopt;
  // The body: one addition of its two arguments, yielded.
  Region &region = op->getRegion(0);
  if (!region.hasOneBlock())
    return std::nullopt;
  Block &body = region.front();
  if (body.getNumArguments() != 2 || !llvm::hasNItems(body, 2))
    return std::nullopt;
  Operation &add = body.front();
  Operation *yield = body.getTerminator();
  bool integer = isa<arith::AddIOp>(add);
  if (!(integer || isa<arith::AddFOp>(add)) ||
      !llvm::is_contained(add.getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(add.getOperands(), body.getArgument(1)) ||
      yield->getName().getStringRef() != "tm_tensor.yield" ||
      yield->getNumOperands() != 1 || yield->getOperand(0) != add.getResult(0))
    return std::nullopt;
  return Scan{op->getOperand(0), type, dim, integer};
}

/// The positions 0, 1, .., n - 1 as a constant f32 vector.
Value createPositions(OpBuilder &builder, Location loc, int64_t n) {
  SmallVector<float> positions;
  for (int64_t i = 0; i < n; ++i)
    positions.push_back(static_cast<float>(i));
  auto type = RankedTensorType::get({n}, builder.getF32Type());
  return arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(type, ArrayRef(positions)));
}

/// out[.., j, ..] = sum over k of (k <= j ? x[.., k, ..] : 0), k the last
/// loop.
Value createMaskedSum(OpBuilder &builder, Location loc, const Scan &scan) {
  MLIRContext *ctx = builder.getContext();
  int64_t rank = scan.type.getRank(), dim = scan.dimension;
  int64_t extent = scan.type.getDimSize(dim);
  unsigned loops = rank + 1;
  AffineExpr k = getAffineDimExpr(rank, ctx), j = getAffineDimExpr(dim, ctx);
  SmallVector<AffineExpr> output, input;
  for (int64_t d = 0; d < rank; ++d)
    output.push_back(getAffineDimExpr(d, ctx));
  input = output;
  input[dim] = k;
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, input, ctx),
                                 AffineMap::get(loops, 0, k),
                                 AffineMap::get(loops, 0, j),
                                 AffineMap::get(loops, 0, output, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);

  Type element = scan.type.getElementType();
  TypedAttr zero = builder.getZeroAttr(element);
  Value positions = createPositions(builder, loc, extent);
  Value empty = tensor::EmptyOp::create(builder, loc, scan.type.getShape(),
                                        element);
  Value init = linalg::FillOp::create(
                   builder, loc,
                   arith::ConstantOp::create(builder, loc, zero).getResult(),
                   empty)
                   .getResult(0);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{scan.type},
      ValueRange{scan.input, positions, positions}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value upTo = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE,
                                           args[1], args[2]);
        Value none = arith::ConstantOp::create(b, l, zero);
        Value term = arith::SelectOp::create(b, l, upTo, args[0], none);
        Value sum = scan.integer
                        ? arith::AddIOp::create(b, l, term, args[3]).getResult()
                        : arith::AddFOp::create(b, l, term, args[3]).getResult();
        linalg::YieldOp::create(b, l, sum);
      });
  return generic.getResult(0);
}

struct ScansAsReductions
    : impl::TesselScansAsReductionsBase<ScansAsReductions> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, Scan>> scans;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<Scan> scan = matchInclusiveSum(op))
        scans.emplace_back(op, *scan);
    });
    OpBuilder builder(&getContext());
    for (auto &[op, scan] : scans) {
      builder.setInsertionPoint(op);
      Value sum = createMaskedSum(builder, op->getLoc(), scan);
      op->getResult(0).replaceAllUsesWith(sum);
      op->erase();
      ++numRewritten;
    }
  }
};

} // namespace
} // namespace mlir::tessel
