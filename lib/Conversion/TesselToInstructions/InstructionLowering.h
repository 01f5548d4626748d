//===- InstructionLowering.h - Shared state of the instruction patterns ---===//
//
// The patterns of lib/Conversion/TesselToInstructions lower one core at a
// time and share what this header declares: the helpers that read operands
// (immediates, loop-linear indices, views), and InstructionLowering, the
// state and the building blocks of the lowering (views of SRAM buffers,
// MAC-array blocks, vector ops), defined over the files of this folder by
// what they lower: Transfers.cpp (copies and fills), Matmuls.cpp (matmuls,
// broadcasts, transposes), Windows.cpp (convolutions and pooling),
// Bodies.cpp (elementwise and reduction bodies on the vector unit).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CONVERSION_TESSELTOINSTRUCTIONS_INSTRUCTIONLOWERING_H
#define TESSEL_LIB_CONVERSION_TESSELTOINSTRUCTIONS_INSTRUCTIONLOWERING_H

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include <array>
#include <optional>

namespace mlir::tessel::instructions {

//===----------------------------------------------------------------------===//
// Operands (Values.cpp)
//===----------------------------------------------------------------------===//

/// A static SRAM buffer for an intermediate value of a vector lowering.
Value allocateTemporary(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elementType);

/// A view of `buffer` (whose layout is static): element (i0, ..) is element
/// `offset + sum(i_k * strides[k])` of the underlying memory, counted in
/// elements as the buffer's own strided layout counts them.
Value stridedView(OpBuilder &b, Location loc, Value buffer, int64_t offset,
                  ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides);

/// A view of `buffer` indexed by the op's loops through `map`: each result is
/// a loop (a projected permutation, possibly dropping loops) or the constant
/// 0 of a unit dimension (a kept-dims reduction's output). Dropped loops get
/// stride 0, so the vector unit reads a broadcast without materializing it.
FailureOr<Value> getLoopView(OpBuilder &b, Location loc, Value buffer,
                             AffineMap map, ArrayRef<int64_t> loopSizes);

/// The value of a float constant, looking through float casts of it (the
/// f64 constants torch-mlir truncates inside bodies, which do not fold when
/// the truncation is inexact): converted to the cast's type, as the cast
/// would round it.
std::optional<APFloat> getConstantFloat(Value value);

/// The f32 immediate a fill or an operand `value` becomes: a float
/// constant (as getConstantFloat reads it), or an f32 that converts to an
/// integer constant exactly. The ISA converts immediates to integer types
/// as `cast` does (docs/isa.md), saturating, so the extremes of a type (a
/// minimum's identity) are immediates too: 2^63 gives the i64 maximum.
std::optional<APFloat> getImmediate(Value value);

/// Whether `value` is a float holding an integer: rounded, floored or
/// converted from an integer.
bool isIntegral(Value value);

/// Why an operand is not an immediate, for an integer constant out of an
/// f32's exact range.
void explainInexactInteger(InFlightDiagnostic &diag, Value value);

/// An index as an affine function of an op's loops:
/// `sum(loops[k] * coefficients[k]) + constant`.
struct LoopLinear {
  SmallVector<int64_t> coefficients;
  int64_t constant = 0;
};

/// `x` when `value` is Python's wrap of a negative index into a dimension
/// of `size`: `select(x < 0, x + size, x)` as torch-mlir writes `x[ids]`
/// and ONNX's Gather, or the same of `x mod size` of an operand of the op
/// (`take_along_dim`), which is the wrap for every index in `[-size, size)`
/// (the others are errors in PyTorch, and in the gather). The modulo of a
/// computed index (`embedding(ids * 2 % n)`) is no such wrap: the vector
/// unit computes it.
Value getWrappedIndex(Value value, int64_t size);

/// `value`, an index computed in the body of a linalg op with `loops`
/// loops, as a function of the loops: constants, `linalg.index`, and sums
/// and constant multiples of them (`affine.apply`, `arith.addi`,
/// `arith.muli`), as tiling and torch-mlir write them.
std::optional<LoopLinear> getLoopLinear(Value value, unsigned loops);

//===----------------------------------------------------------------------===//
// InstructionLowering
//===----------------------------------------------------------------------===//

/// What the patterns lowering one core share: the rewriter, the core's
/// arch, and the building blocks each op's lowering uses.
struct InstructionLowering {
  RewriterBase &rewriter;

  ArchAttr arch;

  /// Whether a matmul's zero fill becomes its first blocks' `init`: on a
  /// tile with DRAM channels of its own (tessel-split-transfers), whose
  /// fill delays its array. Where tiles share their channels, and the loads
  /// of shared operands tie the tiles of a row or column together, the
  /// fill runs while the tile waits for its loads or their leaders, and
  /// folding it only moved the waits (docs/spatial.md).
  bool foldMatmulFills = false;

  /// memref.copy between DRAM and SRAM: a DMA transfer, waited for at once
  /// (the schedule later moves the wait to the first use). A load of a
  /// window of a tessel.pad_view loads the window's part inside the view's
  /// source.
  LogicalResult lowerCopy(memref::CopyOp copy);

  /// For a load whose source is a window of a tessel.pad_view (the view,
  /// or static subviews of it): the views of the window's elements inside
  /// the pad's source and of where they go in the target, the rest of the
  /// target filled with the padding value first, where the window reaches
  /// into the border; none when the window is all border. The source and
  /// target unchanged for a load of anything else.
  FailureOr<std::optional<std::pair<Value, Value>>>
  getPaddedWindow(memref::CopyOp copy);

  /// Fills the elements of `target` outside its box `offsets` + `sizes`
  /// with `value`, each once: per dimension `d` the slabs before and after
  /// the box along `d`, inside the box along the dimensions before `d` and
  /// whole along those after it. A convolution's window touches the border
  /// in a row or a column or two: filling the whole window first cost the
  /// vector unit as much as the window's size.
  void fillBorder(Location loc, FloatAttr value, Value target,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes);

  LogicalResult lowerFill(linalg::FillOp fill);

  /// A 2-D strided view of `buffer` not yet built: element (i, j) is element
  /// `offset + i * strides[0] + j * strides[1]` of the buffer (counted from
  /// the buffer's own first element). Blocks of it become one view op each,
  /// not a view of a view: a ResNet has a million of them. Its rows may come
  /// in `groups` runs of `sizes[0]`, `groupStride` apart: row `i` of group
  /// `g` is at `offset + g * groupStride + i * strides[0]` (a convolution's
  /// output rows, an input row apart in its window).
  struct Strided2D {
    Value buffer;
    int64_t offset;
    std::array<int64_t, 2> sizes, strides;
    int64_t groups = 1, groupStride = 0;
  };

  /// Rows `[row, row + rows)` of groups `[group, group + groups)` of a
  /// Strided2D: the rows of one MAC-array block.
  struct RowBlock {
    int64_t group, groups, row, rows;
  };

  /// The operand `buffer` of a matmul whose indexing map for it is `map`,
  /// at iteration `batch` of the op's first loop where the map walks it
  /// too, as the 2-D view along loops `row` and `col`: the operand read
  /// transposed where the map says so (tessel-transposes-into-matmuls).
  /// Failure where the map's results are not its loops, one per dimension.
  static FailureOr<Strided2D> loopView(Value buffer, AffineMap map,
                                       unsigned row, unsigned col,
                                       int64_t batch = 0);

  /// `view` with rows and columns swapped; its rows in one group.
  static Strided2D transposed(Strided2D view);

  /// Columns `[c0, c0 + cols)` of the rows `rows` of `view`: 2-D within
  /// one group, else (groups, rows, columns).
  Value block(Location loc, const Strided2D &view, RowBlock rows, int64_t c0,
              int64_t cols);

  /// Calls `body(rows, k0, ks, n0, ns)` for each MAC-array block of a
  /// (groups x m x k) * (k x n) product, k ascending within each block of
  /// rows and columns: the accumulation order of the ISA. The array holds a
  /// block of the stationary operand and streams the rest: rhs's k x n
  /// blocks (k up to the array's rows) against every row when weight
  /// stationary; when output stationary, blocks of up to the array's rows
  /// of the accumulator (whole groups, or parts of one) against all of k.
  void forEachMatmulBlock(
      int64_t groups, int64_t m, int64_t k, int64_t n,
      llvm::function_ref<void(RowBlock, int64_t, int64_t, int64_t, int64_t)>
          body);

  /// The cycles of `repeats` (groups x m x k) * (k x n) products of
  /// `elementType` operands issued back to back on the MAC array, by the
  /// timing equations of docs/simulator.md: per block, its fill, then its
  /// streaming steps or its SRAM traffic, whichever is slower, and its
  /// drain. With two weight
  /// buffers a block's fill hides under the previous block's stream and the
  /// run ends when its last result leaves the array. Arrangements of a
  /// convolution are compared by it; they change the time, never the bits.
  int64_t estimateMatmulCycles(int64_t m, int64_t k, int64_t n,
                               Type elementType, int64_t repeats = 1,
                               int64_t groups = 1);

  /// One MAC-array instruction per block of lhs * rhs accumulated into acc.
  /// The blocks of acc += lhs * rhs; with `init`, each output block's
  /// first (k0 = 0) starts its sums at zero.
  void emitMatmulBlocks(Location loc, const Strided2D &lhs,
                        const Strided2D &rhs, const Strided2D &acc,
                        bool init);

  /// acc += lhs * rhs as it is written or transposed (acc^T += rhs^T *
  /// lhs^T), whichever the timing model says is faster (ties: as written).
  /// The array holds a block of one operand and streams the other: with 128
  /// rows of activations against a 768 x 3072 weight, streaming the weight's
  /// 3072 columns past the activations pays each block's fill and drain
  /// over many more rows. Each output still adds its products in k order,
  /// so the bits are the same either way.
  void emitMatmul(Location loc, const Strided2D &lhs, const Strided2D &rhs,
                  const Strided2D &acc, Type elementType, bool init = false);

  /// Whether `op`'s output starts from a zero fill that nothing else sees:
  /// the last instruction before `op` that touches the output's buffer is a
  /// `vector_fill` of +0 of that very output, and `op`'s inputs are other
  /// buffers. The fill is then erased, and `op`'s blocks start their sums at
  /// zero themselves (`matmul init`): its MAC-array blocks cover the output,
  /// each output block's first one writing it before anything reads it.
  bool takeZeroFill(linalg::LinalgOp op);

  LogicalResult lowerMatmul(linalg::MatmulOp matmul);

  /// A strided window of `buffer`: element (i0, ..) of the result is element
  /// `base + sum(i_k * steps[k])` of the buffer (all in elements of the
  /// buffer's own layout, which must be static).
  Value window(Location loc, Value buffer, int64_t base,
               ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps);

  static SmallVector<int64_t> stridesOf(Value buffer);

  static LogicalResult checkStatic(Operation *op);

  /// A broadcast: a copy from a view with zero strides along the added
  /// dimensions.
  LogicalResult lowerBroadcast(linalg::BroadcastOp op);

  /// batch_matmul: one matmul per batch element, through 2-D views.
  LogicalResult lowerBatchMatmul(linalg::BatchMatmulOp op);

  /// conv_2d_nchw_fchw as matmuls, in whichever of three arrangements the
  /// timing model says is fastest. Each instruction contracts over one of
  /// the input channels, the kernel rows or the kernel columns, whichever is
  /// longest (a patch embedding has 3 channels but 16 columns), inside loops
  /// over the other two (the taps). Per image, either
  ///   - per output row: out[n, :, r, :] (F x OW) += W (F x K) * X (K x OW),
  ///     or the same product transposed (the row's pixels streaming);
  ///   - all output rows as one stream of pixels against stationary weights:
  ///     out^T (OH*OW x F) += X^T (OH*OW x K) * W^T (K x F), the pixels in
  ///     OH groups of OW (tessel.matmul's 3-D operands): a group's pixels
  ///     are an output row in the output and an input row's worth of
  ///     column steps in the input, so the input's columns between rows
  ///     (padding, a stride's skipped columns) are neither read nor
  ///     computed. Where the rows follow on from each other in both (a 1x1
  ///     convolution) the stream is one group.
  /// Every output element adds the same products in the same order in each
  /// arrangement, so the choice changes the time, never the bits.
  LogicalResult lowerConv(linalg::Conv2DNchwFchwOp conv);

  /// A depthwise convolution or a pooling on NCHW: for each image and
  /// kernel tap, one (or two) vector instructions over the C x OH x OW
  /// window: out = combine(out, window [* weight, broadcast over OH x OW]).
  LogicalResult lowerWindowed(linalg::LinalgOp op, Value x, Value weight,
                              Value y, ArrayRef<int64_t> kernel,
                              DenseIntElementsAttr strides,
                              DenseIntElementsAttr dilations,
                              VectorBinaryKind combine);

  LogicalResult lowerTranspose(linalg::TransposeOp transpose);

  /// SRAM buffers holding the body's scalars over the iteration space.
  struct BodyBuffers {
    DenseMap<Value, Value> of;
    /// Temporaries to free once the op is lowered.
    SmallVector<Value> temporaries;
  };

  /// A `memref.load` of a DRAM table in the body of `op` (iteration space
  /// `shape`): a `tessel.dma_gather` into `target`, waited for at once.
  /// The load's indices are functions of the loops (the table view's
  /// strides), except at most one, the `index_cast` of an integer the
  /// vector unit has (an operand of the op, or computed from operands),
  /// which picks the row: the gather's indices, read through its view.
  LogicalResult emitGather(memref::LoadOp load, ArrayRef<int64_t> shape,
                           const BodyBuffers &buffers, Value target);

  /// One vector instruction per body op of `op` before `stop` (all of them
  /// if null), each over the iteration space `shape` into an SRAM temporary,
  /// except that the op computing `direct` writes `directTarget`. Operands
  /// are read through views indexed by the loops (zero strides broadcast),
  /// float constants from filled temporaries.
  LogicalResult evaluateBody(linalg::LinalgOp op, ArrayRef<int64_t> shape,
                             Operation *stop, Value direct, Value directTarget,
                             BodyBuffers &buffers);

  void freeTemporaries(Operation *op, BodyBuffers &buffers);

  /// An elementwise linalg.generic: its body over the output's shape, the
  /// last op writing the output.
  LogicalResult lowerElementwise(linalg::GenericOp generic);

  /// A reduction (linalg.reduce, or a generic with reduction loops) whose
  /// body is elementwise work ending in one addition, maximum or minimum
  /// (of floats or signed integers) with the accumulator: the elementwise
  /// part over the whole iteration space, then
  /// `vector_reduce` along each reduced loop (innermost first), then combined
  /// with the output's previous value, so reductions split into SRAM steps
  /// accumulate across steps.
  LogicalResult lowerReduction(linalg::LinalgOp op);

  /// The vector instructions of body op `op` reading `in` and writing
  /// `out`; `temporary` gives a scratch buffer of an element type over the
  /// same space, for the ops that take several instructions.
  LogicalResult emitVectorOp(Operation &op, ArrayRef<Value> in, Value out,
                             function_ref<Value(Type)> temporary);

  /// A conversion to an integer truncates toward zero (`x.long()`); the
  /// cast rounds to nearest even, which is exact on an integral value: a
  /// value already rounded is cast as it is, any other is |x| floored with
  /// x's sign restored first.
  LogicalResult emitTruncation(arith::FPToSIOp convert, Value in, Value out,
                               function_ref<Value(Type)> temporary);

  /// A remainder, with the dividend's sign as remsi's: x - (x / y) * y with
  /// the truncating division.
  LogicalResult emitRemainder(arith::RemSIOp remainder, Value x, Value y,
                              Value out, function_ref<Value(Type)> temporary);

  /// Signed predicates map onto the ISA's integer comparisons.
  LogicalResult emitIntegerCompare(arith::CmpIOp cmp, ArrayRef<Value> in,
                                   Value out);

  /// Ordered predicates map onto the ISA's (false on NaN). An unordered one
  /// is the negation of the opposite ordered one: ugt(a, b) = !ole(a, b),
  /// computed as 1 - ole(a, b).
  LogicalResult emitCompare(arith::CmpFOp cmp, ArrayRef<Value> in, Value out);
};

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// A pattern lowering one op kind through the core's InstructionLowering.
/// It fails only after emitting an error on the op: the driver
/// (lowerCoreToInstructions) stops at the first failure, as a pass does.
template <typename OpTy>
struct InstructionPattern : OpRewritePattern<OpTy> {
  InstructionPattern(MLIRContext *context, InstructionLowering &lowering)
      : OpRewritePattern<OpTy>(context), lowering(lowering) {}

protected:
  InstructionLowering &lowering;
};

/// The pattern of an op kind that one InstructionLowering member `lower`
/// lowers (the member may take the op or an interface it implements).
template <typename OpTy, auto lower>
struct LowerWith : InstructionPattern<OpTy> {
  using InstructionPattern<OpTy>::InstructionPattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &) const override {
    return (this->lowering.*lower)(op);
  }
};

/// Copies between DRAM and SRAM, fills and linalg.copy (Transfers.cpp).
void populateTransferPatterns(RewritePatternSet &patterns,
                              InstructionLowering &lowering);
/// Matmuls, batch matmuls, broadcasts and transposes (Matmuls.cpp).
void populateMatmulPatterns(RewritePatternSet &patterns,
                            InstructionLowering &lowering);
/// Convolutions, depthwise convolutions and pooling (Windows.cpp).
void populateWindowPatterns(RewritePatternSet &patterns,
                            InstructionLowering &lowering);
/// Elementwise and reduction bodies (Bodies.cpp).
void populateBodyPatterns(RewritePatternSet &patterns,
                          InstructionLowering &lowering);

} // namespace mlir::tessel::instructions

#endif // TESSEL_LIB_CONVERSION_TESSELTOINSTRUCTIONS_INSTRUCTIONLOWERING_H
