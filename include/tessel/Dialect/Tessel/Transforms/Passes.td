//===- Passes.td - Passes of the tessel dialect ------------*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselCheckInputContract
    : Pass<"tessel-check-input-contract", "::mlir::ModuleOp"> {
  let summary = "Reject any op outside the linalg-on-tensors input contract";
  let description = [{
    Tessel compiles linalg-on-tensors as torch-mlir hands it over: ops of the
    `func`, `linalg`, `tensor`, `arith` and `math` dialects inside a
    `builtin.module`. This pass is the first stage of the pipeline. It walks
    the module and reports every op of any other dialect, with its name and
    source location, so an unsupported model fails before compilation
    starts instead of being miscompiled. `cf.assert`, which torch-mlir emits
    for shape checks, is accepted, and so is `tessel.pad_view` on tensors,
    which the legalize passes make of a pad: a module they legalized and the
    mapper mapped is lowered again from the start.

    Input that satisfies the contract is left unchanged:

    ```mlir
    func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tensor.empty() : tensor<4xf32>
      %1 = linalg.generic ... ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) { ... }
      return %1 : tensor<4xf32>
    }
    ```

    Input that does not is rejected:

    ```
    error: 'scf.for' is outside Tessel's input contract (builtin.module, func,
    linalg, tensor, arith, math, cf.assert, tessel.pad_view); lower the model to
    linalg-on-tensors before compiling it
    ```
  }];
  let statistics = [
    Statistic<"numOpsChecked", "num-ops-checked", "Number of ops checked">,
    Statistic<"numOpsRejected", "num-ops-rejected",
              "Number of ops outside the input contract">
  ];
}

def TesselFoldConstantTensors
    : Pass<"tessel-fold-constant-tensors", "::mlir::func::FuncOp"> {
  let summary = "Evaluate constant tensor computations at compile time";
  let description = [{
    Some models build constant tensors out of index arithmetic: a causal
    attention mask is `arange(t) - arange(t)[:, None] <= 0`, which torch-mlir
    imports as `linalg.generic`s over `linalg.index`, i64 and i1 tensors. The
    chip computes in floating point only, and none of this depends on the
    model's inputs, so this pass evaluates it once, here:

    - A parallel `linalg.generic` whose inputs are all dense constants (or
      that reads none and uses only `linalg.index`) and whose body folds
      element by element is replaced by the dense constant it computes.
      Reshapes of constants fold too. Generics of more than 2^20 elements
      are left alone (the program would store them in DRAM anyway).
    - An i1 constant a generic reads (a mask) is stored as a constant of
      0.0 / 1.0 in f32, the chip's representation of a boolean; the body
      recovers the i1 with `arith.cmpf une, %x, 0.0`.
    - A `dense_resource` constant (how torch-mlir writes a tensor literal
      such as `torch.tensor([3, 1, 5])`) becomes the `dense` constant of its
      bytes, which the folders and the program's DRAM image read.

    ```mlir
    %i = linalg.generic {iterator_types = ["parallel", "parallel"]}
           outs(%e : tensor<2x2xi1>) {
    ^bb0(%out: i1):
      %r = linalg.index 0 : index
      %c = linalg.index 1 : index
      %le = arith.cmpi ule, %c, %r : index
      linalg.yield %le : i1
    } -> tensor<2x2xi1>
    // becomes
    %i = arith.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    ```

    What is left that the chip cannot compute (an index tensor that depends
    on an input) is rejected later, naming the op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numGenericsFolded", "num-generics-folded",
              "Number of linalg.generic ops replaced by constants">,
    Statistic<"numMasksWidened", "num-masks-widened",
              "Number of i1 constant operands stored as f32">,
    Statistic<"numResourcesInlined", "num-resources-inlined",
              "Number of dense_resource constants made dense">
  ];
}

def TesselSimplifyMath : Pass<"tessel-simplify-math", "::mlir::func::FuncOp"> {
  let summary = "Rewrite powers by constants into the vector unit's ops";
  let description = [{
    The vector unit has no power instruction. A power by a constant
    exponent, as tanh-approximated GELU computes `x^3`, is rewritten with
    upstream's algebraic simplification: integer powers become products by
    repeated squaring (`x^3 = (x * x) * x`, as PyTorch's kernel computes
    it), and `x^0.5`,
    `x^-1`, `x^-0.5` become `sqrt`, a division and `rsqrt`.

    ```mlir
    %c3 = arith.constant 3 : i64
    %y = math.fpowi %x, %c3 : f32, i64
    // becomes
    %s = arith.mulf %x, %x : f32
    %y = arith.mulf %s, %x : f32
    ```

    Upstream expands integer exponents up to 8 in magnitude; a larger one
    (`math.fpowi` by 9, 64, -17) becomes the same squaring and multiplying
    here (`x^9 = x * ((x^2)^2)^2`, a negative exponent the reciprocal).
    A power by an exponent that is not a constant stays, and is rejected
    by `tessel-lower-to-instructions`, naming the op.

    `math.log1p` (softplus, mish) becomes `log` in Kahan's form, accurate
    near 0: with `u = 1 + x`, `log1p(x) = u == 1 ? x : log(u) * (x / (u - 1))`.

    A quantization (ONNX's `QuantizeLinear`, PT2E's `quantize_per_tensor`)
    is computed in integers: the value clamped to `[lo - zp, hi - zp]`,
    converted to i32 (rounding to nearest even), the zero point added, the
    sum narrowed; a difference of two i8 values converted to a float is
    computed in i32 rather than i16. The pass runs again after elementwise
    fusion, where a quantization and its dequantization meet in one body:
    `sitofp(extsi(trunci(q + zp)) - zp)` of a `q` whose clamp keeps `q +
    zp` within i8 is `sitofp(q)`, and so is PT2E's `sitofp(trunci(q + zp))
    - zp` in f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def TesselDecomposeConvolutions
    : Pass<"tessel-decompose-convolutions", "::mlir::func::FuncOp"> {
  let summary = "Rewrite 1-D, grouped and 3-D convolutions (and 3-D "
                "poolings) as 2-D NCHW ones";
  let description = [{
    The chip's convolution is `linalg.conv_2d_nchw_fchw` (and the depthwise
    one). A 1-D convolution (`linalg.conv_1d_ncw_fcw`, PyTorch's `Conv1d`)
    becomes a 2-D one over a single row: input, filter and output get a unit
    height, strides and dilations a unit first entry. A grouped convolution
    (`linalg.conv_2d_ngchw_gfchw`, groups neither 1 nor the channels)
    becomes one 2-D convolution per group, reading its group's slice of the
    input and the filter and inserting its result into the group's slice of
    the output. A 3-D convolution (`linalg.conv_3d_ncdhw_fcdhw`) becomes,
    for each output depth plane, the 2-D convolutions of the input planes
    the kernel's depth reaches with the filter's planes, each accumulating
    into the one before, in kernel-depth order, the chain computed in the
    output plane it is inserted back into. A 3-D max or sum pooling (a
    `linalg.generic` over n, c, d, h, w and the window's three loops, as
    torch-mlir writes `MaxPool3d`) becomes the same chain of
    `linalg.pooling_nchw_max` (`_sum`) per output plane; so does
    `linalg.pooling_ndhwc_sum` (`AvgPool3d`'s, between torch-mlir's
    transposes to and from NDHWC), between the inverse transposes, which
    cancel them. The mapper and the lowering then see only convolutions and
    poolings they know.

    ```mlir
    %r = linalg.conv_1d_ncw_fcw ins(%x, %w : tensor<1x8x34xf32>, tensor<16x8x3xf32>)
           outs(%o : tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
    // becomes
    %x2 = tensor.expand_shape %x [[0], [1], [2, 3]] ... : tensor<1x8x34xf32> into tensor<1x8x1x34xf32>
    %w2 = tensor.expand_shape %w [[0], [1], [2, 3]] ... : tensor<16x8x3xf32> into tensor<16x8x1x3xf32>
    %o2 = tensor.expand_shape %o [[0], [1], [2, 3]] ... : tensor<1x16x32xf32> into tensor<1x16x1x32xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
           ins(%x2, %w2 : ...) outs(%o2 : tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32>
    %r = tensor.collapse_shape %c [[0], [1], [2, 3]] : tensor<1x16x1x32xf32> into tensor<1x16x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TesselScansAsReductions
    : Pass<"tessel-scans-as-reductions", "::mlir::func::FuncOp"> {
  let summary = "Rewrite torch-mlir's prefix sums as masked reductions";
  let description = [{
    torch-mlir writes `cumsum` (from PyTorch, and from ONNX's `CumSum`) as
    `tm_tensor.scan`, an op of its own dialect that MLIR 22 reads as
    unregistered, outside the input contract. The chip reduces; it does not
    scan. An inclusive sum along a dimension of extent n becomes one
    `linalg.generic` with an extra reduction loop k: output j is the sum
    over k of `k <= j ? x[k] : 0`, the mask a comparison of two constant
    f32 position vectors (exact below 2^24). The terms are added in the
    scan's own order.

    ```mlir
    %s:2 = "tm_tensor.scan"(%x, %init, %acc) <{dimension = 1 : i64, inclusive = true, ...}> ({
    ^bb0(%a: f32, %b: f32):
      %r = "arith.addf"(%a, %b) : (f32, f32) -> f32
      "tm_tensor.yield"(%r) : (f32) -> ()
    }) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
    // becomes
    %sum = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %positions, %positions) outs(%zeros) {
      ^bb0(%in: f32, %k: f32, %j: f32, %acc: f32):
        %le = arith.cmpf ole, %k, %j : f32
        %t = arith.select %le, %in, %cst0 : f32
        %r = arith.addf %t, %acc : f32
        linalg.yield %r : f32
    }
    ```

    Only inclusive sums of static shape whose final accumulator (the second
    result) is unused are rewritten; any other scan stays, and the input
    contract check names it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "Number of scans rewritten">
  ];
}

def TesselDecomposeArgReductions
    : Pass<"tessel-decompose-arg-reductions", "::mlir::func::FuncOp"> {
  let summary = "Rewrite argmax and argmin as reductions of floats";
  let description = [{
    torch-mlir writes `argmax` (`argmin`) as one reduction with two results,
    the maximum and its index, whose body carries the index in i64 and picks
    it with a select on each strict improvement. The vector unit reduces
    floats, one result at a time. The op becomes three: the maximum,
    reduced as any maximum; the least position whose element equals it, as
    the minimum over the reduced loop of `element == maximum ? position :
    +inf` with the positions a constant f32 operand (exact below 2^24,
    which bounds the reduced extent); and that position rounded
    (`math.roundeven`) and converted to i64, which the vector unit's cast
    writes. The first position of the maximum is what the strict comparison
    picks, and what PyTorch returns.

    ```mlir
    %r:2 = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<8x16xf32>) outs(%max0, %idx0 : tensor<8xf32>, tensor<8xi64>) {
      ^bb0(%in: f32, %m: f32, %i: i64):
        %j = linalg.index 1 : index
        %jj = arith.index_cast %j : index to i64
        %mx = arith.maximumf %in, %m : f32
        %gt = arith.cmpf ogt, %in, %m : f32
        %s = arith.select %gt, %jj, %i : i64
        linalg.yield %mx, %s : f32, i64
    }
    // becomes
    %max = linalg.generic (reduction) { arith.maximumf }
    %pos = linalg.generic (reduction) ins(%x, %max, %iota)
        { select(cmpf oeq %x, %max, %iota, +inf); arith.minimumf }
    %idx = linalg.generic ins(%pos) { arith.fptosi (math.roundeven %pos) to i64 }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numDecomposed", "num-decomposed",
              "Number of arg reductions rewritten">
  ];
}

def TesselFoldWeightTransposes
    : Pass<"tessel-fold-weight-transposes", "::mlir::func::FuncOp"> {
  let summary = "Store transposed weights instead of transposing them on "
                "the chip";
  let description = [{
    `nn.Linear` keeps its weight as (out, in) and imports as a transpose of
    the weight followed by a matmul, so the program would transpose every
    linear layer's weight on every run. Weights are known before the
    program runs, so the transpose is done once, when the weight is written
    into DRAM: a weight argument (`tessel.kind = "weight"`) whose every use
    is a `linalg.transpose` with one permutation becomes the transposed
    weight, and the permutation is recorded on it as `tessel.permutation`.
    `tessel-convert-to-device` makes it the DRAM buffer's `permuted`, and
    the emitter transposes the weight's data accordingly.

    ```mlir
    func.func @f(%x: tensor<8x64xf32>,
                 %w: tensor<128x64xf32> {tessel.kind = "weight"}) {
      %t = linalg.transpose ins(%w : tensor<128x64xf32>)
             outs(%e : tensor<64x128xf32>) permutation = [1, 0]
      %y = linalg.matmul ins(%x, %t : ...) ...
    // becomes
    func.func @f(%x: tensor<8x64xf32>,
                 %w: tensor<64x128xf32> {tessel.kind = "weight",
                                         tessel.permutation = array<i64: 1, 0>}) {
      %y = linalg.matmul ins(%x, %w : ...) ...
    ```

    A weight with any other use (a training step reads it untransposed
    too) is left as it is.
  }];
  let statistics = [
    Statistic<"numWeightsTransposed", "num-weights-transposed",
              "Number of weights stored transposed">
  ];
}

def TesselDecomposeQuantizedMatmuls
    : Pass<"tessel-decompose-quantized-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Split a quantized matmul's zero points off the i8 product";
  let description = [{
    torch-mlir imports an ONNX QDQ matmul of two quantized activations as
    `linalg.quantized_matmul` or `linalg.quantized_batch_matmul`:
    `sum_k (a - za) (b - zb)` of i8 operands into i32, constant zero points.
    The MAC array multiplies i8 values without offsets, so it becomes

    ```
    sum_k a b - zb sum_k a - za sum_k b + K za zb
    ```

    a `linalg.matmul` (`linalg.batch_matmul`) of the i8 values, the sums of
    `a`'s rows and of `b`'s columns as reductions (where the other zero
    point is not 0), and a `linalg.generic` combining them: the same i32
    values. Zero points that are not constants are left to fail later.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def TesselFoldOperandExtensions
    : Pass<"tessel-fold-operand-extensions", "::mlir::func::FuncOp"> {
  let summary = "Multiply bf16, f16 and int8 matmul (and int8 convolution) "
                "operands on the MAC array instead of extending them to f32";
  let description = [{
    torch-mlir imports a bf16 (or f16) `nn.Linear` as elementwise
    extensions of its input and weight to f32, an f32 `linalg.matmul` and a
    truncation of the result. The MAC array multiplies bf16 and f16 inputs
    into an f32 accumulator, each product exact in f32 (docs/isa.md,
    *Numerics*), which is what the extended f32 matmul computes. So a
    `linalg.matmul` or `linalg.batch_matmul` whose two operands are
    extensions (a `linalg.generic` of identity maps whose body is one
    `arith.extf` to f32) of one narrow type reads the narrow tensors
    instead; its accumulator stays f32. The bits do not change; the product
    moves half the operand bytes and the f32 copies are not made.

    ```mlir
    %a = linalg.generic ... ins(%x : tensor<8x64xbf16>) outs(%0 : tensor<8x64xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %e = arith.extf %in : bf16 to f32
      linalg.yield %e : f32
    } -> tensor<8x64xf32>
    %b = linalg.generic ... ins(%w : tensor<64x16xbf16>) ...   // likewise
    %y = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>) outs(%acc : tensor<8x16xf32>)
    // becomes
    %y = linalg.matmul ins(%x, %w : tensor<8x64xbf16>, tensor<64x16xbf16>) outs(%acc : tensor<8x16xf32>)
    ```

    An operand extended from another type, or one narrow operand beside an
    f32 one, is left as it is: the MAC array multiplies two operands of one
    type.

    An int8 linear layer from ONNX's QDQ format arrives as an f32
    `linalg.matmul` of an activation dequantized per tensor
    (`(q - za) * sa`, constants) and the transpose of a constant i8 weight
    `[N, K]` dequantized per row with zero points 0 (`b * sb[n]`), or of a
    `[K, N]` one per column (ONNX's MatMul); with a 3-D activation, a
    `linalg.batch_matmul` of one batch whose weight is broadcast. It
    becomes a matmul of the i8 activation and the weight (transposed at
    compile time where stored `[N, K]`) into an i32 accumulator, and a
    `linalg.generic` that subtracts `za * sum_k b[n][k]` (the weight's row
    sums, computed here), converts to f32 and multiplies by `sa`, then by
    `sb[n]`. The result rounds once where the f32 product rounded at every
    step, so its last bits differ from the dequantized f32 product's.

    PyTorch's PT2E flow gives the same layer in another form: the
    activation dequantized by a chain of elementwise ops (to f32, minus the
    zero point, times the scale), which is fused into one first, possibly
    with its leading dimensions merged by a `tensor.collapse_shape` after;
    the weight a function argument with scales `[N, 1]`. A weight whose
    values are not known here is transposed by a `linalg.transpose` of the
    i8 tensor, and the product is a `linalg.quantized_matmul` with the
    activation's zero point (tessel-decompose-quantized-matmuls, which runs
    after, reduces the weight's column sums on the vector unit).

    An int8 convolution (`linalg.conv_2d_nchw_fchw` of a per-tensor
    dequantized input, padded by a `tessel.pad_view` with 0 or not, and a
    filter dequantized per output channel; its accumulator zero or the bias
    broadcast) becomes an i8 convolution into i32 whose input is padded
    with its zero point, the value that dequantizes to 0: every window then
    holds `C x KH x KW` values less the zero point, and `za * sum w[f]` per
    output channel is subtracted before the scales and the bias apply.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tessel::TesselDialect"];
  let statistics = [
    Statistic<"numMatmulsFolded", "num-matmuls-folded",
              "Matmuls and convolutions made to read bf16, f16 or i8 operands">,
  ];
}

def TesselNarrowF64 : Pass<"tessel-narrow-f64", "::mlir::func::FuncOp"> {
  let summary = "Compute f64 intermediates in f32";
  let description = [{
    torch-mlir decomposes variance (layer norm, batch norm statistics)
    through f64: the f32 input is extended to f64, summed, divided and
    truncated back to f32. The chip has no f64 unit, and PyTorch's own f32
    kernels compute these statistics in f32, so this pass retypes every f64
    value inside a function to f32: tensors, block arguments and scalars.
    Extensions and truncations between f32 and f64 become the identity and
    are removed; f64 constants are rounded to the nearest f32, as the
    truncation that followed them would.

    ```mlir
    %e = linalg.generic ... ins(%x : tensor<8xf32>) outs(%0 : tensor<8xf64>) {
    ^bb0(%in: f32, %out: f64):
      %1 = arith.extf %in : f32 to f64
      linalg.yield %1 : f64
    } -> tensor<8xf64>
    // becomes
    %e = linalg.generic ... ins(%x : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8xf32>
    ```

    A function whose arguments or results are f64 is rejected: its caller's
    data would change precision without being told.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numValuesNarrowed", "num-values-narrowed",
              "Number of f64 values retyped to f32">
  ];
}

def TesselTransposesIntoMatmuls
    : Pass<"tessel-transposes-into-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Let matmuls read the transposes across their operands' "
                "last two dimensions in place";
  let description = [{
    Attention's scores are `q @ k.transpose(-2, -1)`: a transpose across
    the keys' innermost dimension, which `tessel-transposes-as-views`
    cannot read in place (a load of a window would move single elements),
    so it is an op that copies the keys through DRAM. The MAC array reads
    its operands through strided views in SRAM, a transposed one as well,
    so this pass swaps the transpose's last two dimensions back and the
    operand's last two in the matmul's (`linalg.matmul`,
    `linalg.batch_matmul`) indexing map instead. Only where the transpose,
    and a collapse of its leading dimensions between it and the matmul,
    have no other user, the operand is no broadcast, and what is left of
    the transpose keeps the innermost dimension (or is none):
    `tessel-transposes-as-views` then reads it in place where its own
    conditions hold.

    ```mlir
    %t = linalg.transpose ins(%k : tensor<1x128x12x64xf32>)
           outs(%e : tensor<1x12x64x128xf32>) permutation = [0, 2, 3, 1]
    %c = tensor.collapse_shape %t [[0, 1], [2], [3]]
           : tensor<1x12x64x128xf32> into tensor<12x64x128xf32>
    %s = linalg.batch_matmul ins(%q, %c : tensor<12x128x64xf32>,
           tensor<12x64x128xf32>) outs(%z : tensor<12x128x128xf32>)
    // becomes
    %t = linalg.transpose ins(%k : tensor<1x128x12x64xf32>)
           outs(%e : tensor<1x12x128x64xf32>) permutation = [0, 2, 1, 3]
    %c = tensor.collapse_shape %t [[0, 1], [2], [3]]
           : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
    %s = linalg.batch_matmul indexing_maps = [
           affine_map<(b, m, n, k) -> (b, m, k)>,
           affine_map<(b, m, n, k) -> (b, n, k)>,
           affine_map<(b, m, n, k) -> (b, m, n)>]
           ins(%q, %c : tensor<12x128x64xf32>, tensor<12x128x64xf32>)
           outs(%z : tensor<12x128x128xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numTransposesFolded", "num-transposes-folded",
              "Number of transposes a matmul reads in place">
  ];
}

def TesselTransposesAsViews
    : Pass<"tessel-transposes-as-views", "::mlir::func::FuncOp"> {
  let summary = "Read transposes between ops in place, through strided views";
  let description = [{
    A `linalg.transpose` between ops moves data only: mapped, it loads its
    input and stores the permuted copy through DRAM, and its readers load
    the copy back. A DMA reads a strided window as well as a contiguous
    one, so this pass makes the transpose a `tessel.transpose_view`, which
    its readers' loads read from the untransposed tensor: no op, no buffer,
    no copy. Only where the permutation keeps the innermost dimension, of
    at least 64 bytes (a load still moves rows of contiguous elements), and
    every user reads it as a linalg input, directly or through one reshape
    its permuted strides allow (a collapse of dimensions that are not
    contiguous would need a copy).

    ```mlir
    %t = linalg.transpose ins(%x : tensor<1x128x12x64xf32>)
           outs(%e : tensor<1x12x128x64xf32>) permutation = [0, 2, 1, 3]
    %c = tensor.collapse_shape %t [[0, 1], [2], [3]]
           : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
    // becomes
    %t = tessel.transpose_view %x permutation [0, 2, 1, 3]
           : tensor<1x128x12x64xf32> to tensor<1x12x128x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tessel::TesselDialect"];
  let statistics = [
    Statistic<"numTransposesAsViews", "num-transposes-as-views",
              "Number of transposes read in place">
  ];
}

def TesselMaterializeCopies
    : Pass<"tessel-materialize-copies", "::mlir::func::FuncOp"> {
  let summary = "Turn pads, concatenations and slice insertions into linalg "
                "ops the mapping can place";
  let description = [{
    `tensor.pad`, `tensor.concat` and `tensor.insert_slice` move data without
    being linalg ops, so nothing would map them onto tiles and, bufferized,
    they would become DRAM-to-DRAM copies, which have no path on the chip.
    This pass rewrites them into linalg ops that are mapped, partitioned and
    lowered like any other: a pad into a `linalg.fill` of the padded tensor
    and the insertion of the source; a concatenation into insertions; and
    each insertion of a computed tensor into a `linalg.copy` into the slice
    of the destination, which bufferizes in place.

    ```mlir
    %p = tensor.pad %x low[0, 1] high[0, 1] { ... tensor.yield %zero }
        : tensor<4x8xf32> to tensor<4x10xf32>
    // becomes
    %e = tensor.empty() : tensor<4x10xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x10xf32>)
    %s = tensor.extract_slice %f[0, 1] [4, 8] [1, 1]
    %c = linalg.copy ins(%x : tensor<4x8xf32>) outs(%s : tensor<4x8xf32>)
    %p = tensor.insert_slice %c into %f[0, 1] [4, 8] [1, 1]
    ```

    A pad with a constant that only linalg ops read, as inputs (the padding
    of a convolution or a pooling), becomes a `tessel.pad_view` instead: no
    padded tensor is written, and each load of a window of it fills the
    window's border in SRAM and reads the rest from the unpadded tensor
    (`tessel-lower-to-instructions`).

    ```mlir
    %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] { ... tensor.yield %zero }
    %y = linalg.conv_2d_nchw_fchw ... ins(%p, %w : ...)
    // becomes
    %p = tessel.pad_view %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0
        : tensor<1x64x56x56xf32> to tensor<1x64x58x58xf32>
    %y = linalg.conv_2d_nchw_fchw ... ins(%p, %w : ...)
    ```

    An insertion of an op's result computed in the very slice it is
    inserted into is left as it is (it bufferizes in place). A result the
    function returns as a view of one of its arguments, or as a slice of
    another tensor, is copied into a tensor of its own, since every output
    is a DRAM buffer of its own.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::tessel::TesselDialect"
  ];
}

def TesselBooleansAsFloats
    : Pass<"tessel-booleans-as-floats", "::mlir::func::FuncOp"> {
  let summary = "Store the boolean tensors between ops as f32";
  let description = [{
    Attention masks bring i1 tensors between ops (PyTorch's
    `scaled_dot_product_attention` tests whether a row is masked
    everywhere). The chip has no boolean type; within an op a comparison is
    already kept as 1.0 / 0.0. This pass stores the i1 tensors that cross
    ops as f32, 0 false and anything else true: a fill of `true` fills 1.0,
    an op yielding a boolean yields `select(b, 1.0, 0.0)`, an op reading one
    reads `element != 0`, and AND and OR reductions become maxima (of
    `select(b, -1.0, 0.0)` from a fill of -1.0 for AND: -min(x) = max(-x)),
    which the vector unit runs. Views of boolean tensors follow. A function
    whose booleans meet anything else (a boolean argument or result, a
    reduction from a computed start) is left as it is.

    ```mlir
    %t = linalg.fill ins(%true : i1) outs(%e : tensor<4x1xi1>) -> tensor<4x1xi1>
    %all = linalg.generic {... iterator_types = ["parallel", "reduction"]}
        ins(%m : tensor<4x8xi1>) outs(%t : tensor<4x1xi1>) {
      ^bb0(%in: i1, %acc: i1):
        %a = arith.andi %in, %acc : i1
        linalg.yield %a : i1
    } -> tensor<4x1xi1>
    // becomes
    %t = linalg.fill ins(%minus_one : f32) outs(%e : tensor<4x1xf32>) -> tensor<4x1xf32>
    %all = linalg.generic {...} ins(%m : tensor<4x8xf32>) outs(%t : tensor<4x1xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %b = arith.cmpf une, %in, %zero : f32
        %s = arith.select %b, %minus_one, %zero : f32
        %r = arith.maximumf %s, %acc : f32
        linalg.yield %r : f32
    } -> tensor<4x1xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TesselExtractsAsOperands
    : Pass<"tessel-extracts-as-operands", "::mlir::func::FuncOp"> {
  let summary = "Read tables looked up at the op's own loop indices as "
                "operands";
  let description = [{
    An embedding lookup imports as a `linalg.generic` whose body reads the
    table with `tensor.extract` at computed indices. Position embeddings
    (Whisper, BERT) look up `arange(sequence)`, which
    `tessel-fold-constant-tensors` has made a constant tensor: the lookup
    is an ordinary read. A `tensor.extract` of a tensor from outside the op
    whose indices are each a distinct loop index of the op (`linalg.index`,
    or an element of a constant `[0, 1, 2, ...]` operand read along a loop)
    becomes an input read with the corresponding indexing map, and the
    `arange` operands that served only as indices go. A lookup at constant
    indices that read a tensor element after element in order (GroupNorm's
    per-group statistics spread over the channels) is a reshape of it, and
    becomes one. Lookups at data-dependent indices (token embeddings) are
    gathers and stay.

    ```mlir
    %pos = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0), (d0, d1) -> (d0, d1)], ...}
        ins(%x, %pos : tensor<4x8xf32>, tensor<4xi64>) outs(%o : tensor<4x8xf32>) {
      ^bb0(%in: f32, %p: i64, %out: f32):
        %i = arith.index_cast %p : i64 to index
        %j = linalg.index 1 : index
        %e = tensor.extract %table[%i, %j] : tensor<16x8xf32>
        %s = arith.addf %in, %e : f32
        linalg.yield %s : f32
    }
    // becomes
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)], ...}
        ins(%x, %table : tensor<4x8xf32>, tensor<16x8xf32>) outs(%o : tensor<4x8xf32>) {
      ^bb0(%in: f32, %e: f32, %out: f32):
        %s = arith.addf %in, %e : f32
        linalg.yield %s : f32
    }
    ```
    (The dead `linalg.index` ops are left to the canonicalizer.)
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect"
  ];
}

def TesselPrecomputeIndices
    : Pass<"tessel-precompute-indices", "::mlir::func::FuncOp"> {
  let summary = "Read lookups at indices that depend on no input through a "
                "table of offsets";
  let description = [{
    Flips, reflection padding, nearest and bilinear interpolation and
    transposed convolutions import as a `linalg.generic` that reads a tensor
    with `tensor.extract` at indices it computes from its loop indices (and
    constant operands): `15 - j`, `|7 - |i - 1||`, `floor(i / 2.0)`. The
    chip does not compute on indices, and these depend on no input, so this
    pass evaluates them at every point of the op with the body ops' own
    folders and gives the op a constant i64 operand holding, per point, the
    flat offset of the element read in the tensor collapsed to one
    dimension. The lookup becomes a gather at indices that are an operand
    (`tessel.dma_gather`); the index arithmetic is left dead for the
    canonicalizer. Ops of more than 2^20 points are left alone. An index
    outside the tensor is an error naming the point.

    ```mlir
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1)], ...}
        outs(%o : tensor<8x16xf32>) {
      ^bb0(%out: f32):
        %i = linalg.index 0 : index
        %j = linalg.index 1 : index
        %k = arith.subi %c15, %j : index
        %e = tensor.extract %x[%i, %k] : tensor<8x16xf32>
        linalg.yield %e : f32
    }
    // becomes
    %offsets = arith.constant dense<[[15, 14, .., 0], [31, .., 16], ..]> : tensor<8x16xi64>
    %flat = tensor.collapse_shape %x [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0, d1)], ...}
        ins(%offsets : tensor<8x16xi64>) outs(%o : tensor<8x16xf32>) {
      ^bb0(%offset: i64, %out: f32):
        %p = arith.index_cast %offset : i64 to index
        %e = tensor.extract %flat[%p] : tensor<128xf32>
        linalg.yield %e : f32
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numLookupsPrecomputed", "num-lookups-precomputed",
              "Number of ops whose lookups read a table of offsets">
  ];
}

def TesselFuseElementwise
    : Pass<"tessel-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into their elementwise consumers "
                "and vector reductions";
  let description = [{
    Chains of elementwise `linalg.generic`s (bias, batchnorm, activation)
    become one op, so their intermediate tensors never reach DRAM. An
    elementwise producer also fuses into a reduction the vector unit
    computes (a `linalg.generic` with reduction loops and one output, which
    reads it at its own indices or broadcast along reduced loops only, so
    not a contraction that would compute it once per column) where it reads
    at most one tensor of its own size: a layer norm's squared
    deviations `(x - mean)^2` into their sum, which the lowering evaluates
    before it reduces. A residual add (two whole tensors) does not: the
    reduction would read both, and the add runs better as an epilogue. A
    producer with several readers, one of them such a reduction, fuses into
    each where every reader can take it and it reads, besides one whole
    tensor, only values per row (not its innermost loop): softmax's
    `exp(x - max)` into its sum and into the division by it, computed twice
    and never stored (a causal mask over the columns would be read again
    by each reader: such a producer stays). Unlike
    upstream's `linalg-fuse-elementwise-ops`, reshapes are not propagated
    through ops: that would turn a matmul after a flatten into a
    contraction over several dimensions, which the MAC array lowering does
    not see as a matmul. Lookups are the exception both ways: an op that
    looks integers up in a table (BERT's token types by position) is not
    fused into the lookup that reads them (one gather reads one table),
    while arithmetic on indices (an ONNX Gather's wrap of negative ids) is,
    the lookup taking the indices' shape where a collapsing reshape lies
    between them, so that the gather reads the wrap.

    ```mlir
    %a = linalg.generic ... { arith.addf }   // bias
    %b = linalg.generic ins(%a ...) { arith.maximumf }   // relu
    // becomes one linalg.generic { arith.addf; arith.maximumf }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TesselCollapseEpilogueReshapes
    : Pass<"tessel-collapse-epilogue-reshapes", "::mlir::func::FuncOp"> {
  let summary = "Compute an elementwise op on a reshaped matmul or "
                "convolution result at the result's own shape";
  let description = [{
    torch-mlir computes a linear layer on a batch of sequences as a matmul
    on the flattened rows and expands its result back for what follows (the
    GELU, the residual add). An elementwise op reading the expanded result
    reads it at other indices than the matmul writes, so it cannot run on
    the matmul's slices in SRAM (`tessel-fuse-epilogues`). Where an
    all-parallel `linalg.generic` reads a `tensor.expand_shape` of the
    result of an op with reduction loops, and nothing else reads either,
    the generic is computed at the collapsed shape: its other inputs are
    collapsed the same way and its result is expanded after it (upstream's
    collapsing patterns). Other inputs that cannot be collapsed leave the op
    as it is. No value changes.

    ```mlir
    %m = linalg.matmul ins(%x, %w : tensor<128x768xf32>, ...) outs(...)
    %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 768]
    %y = linalg.generic ... ins(%e, %r : tensor<1x128x768xf32>, ...) { addf }
    // becomes
    %rc = tensor.collapse_shape %r [[0, 1], [2]]
    %g = linalg.generic ... ins(%m, %rc : tensor<128x768xf32>, ...) { addf }
    %y = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 128, 768]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TesselFoldBiasAdds
    : Pass<"tessel-fold-bias-adds", "::mlir::func::FuncOp"> {
  let summary = "Start a matmul or convolution from the bias added to its "
                "result";
  let description = [{
    `nn.Linear` imports as a matmul from a zero fill followed by an add of
    the bias broadcast over the rows; as an op of its own, the add reads the
    matmul's whole result back from DRAM and stores it again. A matmul,
    batch matmul or convolution that starts from a zero fill, and whose
    result only an elementwise add of a tensor broadcast over it reads,
    starts from that broadcast instead and replaces the add.
    `tessel-promote-to-sram` then sets each accumulator in SRAM from the
    slice of the bias it needs, as it does a zero fill. The sums are taken
    in another order (the bias first), which changes their last bits.

    ```mlir
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128xf32>)
    %m = linalg.matmul ins(%x, %w : ...) outs(%z : tensor<8x128xf32>)
    %y = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1),
                                          (d0, d1) -> (d1), ...]}
           ins(%m, %b : tensor<8x128xf32>, tensor<128xf32>) ... { arith.addf }
    // becomes
    %bb = linalg.broadcast ins(%b : tensor<128xf32>)
            outs(%e2 : tensor<8x128xf32>) dimensions = [0]
    %y = linalg.matmul ins(%x, %w : ...) outs(%bb : tensor<8x128xf32>)
    ```

    An add fused with other elementwise ops (a bias and a GELU in one body)
    is left as it is: the matmul's result would make the round trip to the
    activation anyway.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numBiasAddsFolded", "num-bias-adds-folded",
              "Number of bias adds folded into accumulators">
  ];
}

def TesselFoldAffineChains
    : Pass<"tessel-fold-affine-chains", "::mlir::func::FuncOp"> {
  let summary = "Apply a chain of per-channel additions and multiplications "
                "as one multiplication and one addition";
  let description = [{
    A batch norm in inference imports as `(x - mean) * rsqrt(var + eps) *
    gamma + beta`: four vector ops per element, each reading a value per
    channel. Where an elementwise generic on tensors applies to one of its
    inputs `x` a chain of `arith.addf`, `arith.subf` and `arith.mulf` (each
    op the only user of the one before) by inputs read at one indexing map,
    of one type with fewer elements than `x`'s, computed from the
    function's weights (`tessel.kind = "weight"` arguments) and constants
    alone, and the chain has more than two ops, it becomes `x * s + t`: new
    generics compute `s` and `t` at each point of those inputs (the product
    of the factors; the terms scaled by the factors after them), and the
    generic reads them at the same map. The precompute stage runs it right
    before `tessel-outline-weight-computations`, which moves `s` and `t` to
    compile time. Values change by rounding only.

    ```mlir
    %y = linalg.generic ins(%x, %mean, %inv, %gamma, %beta ...) {
      %0 = arith.subf %in, %m ; %1 = arith.mulf %0, %i
      %2 = arith.mulf %1, %g ; %3 = arith.addf %2, %b ; ... }
    // becomes
    %st:2 = linalg.generic ins(%mean, %inv, %gamma, %beta ...) {
      %s = arith.mulf %i, %g ; t = ((-%m) * %i) * %g + %b ... }
    %y = linalg.generic ins(%x, ..., %st#0, %st#1 ...) {
      %0 = arith.mulf %in, %s ; %1 = arith.addf %0, %t ; ... }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numChainsFolded", "num-chains-folded",
              "Chains applied as a multiplication and an addition">
  ];
}

def TesselHoistEpilogueOperands
    : Pass<"tessel-hoist-epilogue-operands", "::mlir::func::FuncOp"> {
  let summary = "Compute an elementwise op's other inputs before the op "
                "whose result it reads";
  let description = [{
    An elementwise op runs on its producer's result slices in SRAM (an
    epilogue, `tessel-fuse-epilogues`) only where it comes right after the
    producer. A batch norm imports as a convolution, then its scale
    `rsqrt(var + eps)` computed from the running variance, then the
    elementwise op that applies it: the scale does not depend on the
    convolution, yet sits between the two. Where an elementwise generic on
    tensors alone reads the only result of a reduction (a matmul, a
    convolution) before it in the same block, the last such, the ops between
    the two that compute its other inputs (directly or through each other)
    move, in order, before the reduction. They must be free of memory
    effects; none can depend on the reduction, whose result only the generic
    reads. No value changes.

    ```mlir
    %c = linalg.conv_2d_nchw_fchw ins(%x, %w : ...) outs(%z : ...)
    %s = linalg.generic ... ins(%var : tensor<64xf32>) { rsqrt(v + eps) }
    %y = linalg.generic ... ins(%c, %s, ...) { (c - mean) * s * g + b }
    // becomes
    %s = linalg.generic ... ins(%var : tensor<64xf32>) { rsqrt(v + eps) }
    %c = linalg.conv_2d_nchw_fchw ins(%x, %w : ...) outs(%z : ...)
    %y = linalg.generic ... ins(%c, %s, ...) { (c - mean) * s * g + b }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numOpsHoisted", "num-ops-hoisted",
              "Number of ops moved before the producer of an elementwise op">
  ];
}

def TesselOutlineWeightComputations
    : Pass<"tessel-outline-weight-computations", "::mlir::ModuleOp"> {
  let summary = "Move what the weights alone give into a function the "
                "driver evaluates once";
  let description = [{
    Some values depend on the model's weights alone: a batch norm's scale
    `gamma * rsqrt(var + eps)` and shift, the column sums an int8 matmul
    subtracts its activation's zero point times. On the chip each would be
    an op of its own, run on every input. This pass moves their
    computation into private functions `@<f>.weights.<n>` (marked
    `tessel.weights_of`), each taking the weights it reads and returning
    its values, and makes each value a new weight argument of `@<f>`
    (`tessel.kind = "weight"`, `tessel.name = "derived.<first weight it
    reads>"`, the function's result of the same name). Values whose
    computations share an op (a batch norm's scale and the shift computed
    from it) are returned by one function, others by functions of their
    own: the JIT compiles a function in a time that grows with the square
    of its arguments and results. The driver evaluates the functions on
    MLIR's CPU JIT with the model's weights, once, and erases them
    (docs/lowering.md, *Weights computed once*).

    A value leaves only if something besides fills, copies, transposes and
    broadcasts computes it, and it has no more elements than the weights
    it reads.

    ```mlir
    func.func @f(%x: tensor<1x4x8x8xf32>,
                 %v: tensor<4xf32> {tessel.kind = "weight", tessel.name = "bn.running_var"}) {
      %s = linalg.generic ... ins(%v) { rsqrt(%v + eps) } -> tensor<4xf32>
      %y = linalg.generic ... ins(%x, %s) { %x * %s }
    // becomes
    func.func private @f.weights.0(%v: tensor<4xf32> {...})
        -> (tensor<4xf32> {tessel.name = "derived.bn.running_var"})
        attributes {tessel.weights_of = @f} { ... rsqrt ... }
    func.func @f(%x: ..., %v: ...,
                 %s: tensor<4xf32> {tessel.kind = "weight",
                                    tessel.name = "derived.bn.running_var"}) {
      %y = linalg.generic ... ins(%x, %s) { %x * %s }
    ```
  }];
  let statistics = [
    Statistic<"numOutlined", "num-outlined",
              "Values computed once from the weights">
  ];
}

def TesselMergeDuplicateReductions
    : Pass<"tessel-merge-duplicate-reductions", "::mlir::func::FuncOp"> {
  let summary = "Compute each reduction once where the model computes it "
                "twice";
  let description = [{
    torch-mlir imports a layer norm with its mean computed twice (once
    through f64 for the variance, once for the normalization): after
    narrowing and fusion the two are the same reduction of the same tensor,
    each accumulating into a fill of its own, so CSE does not see them
    equal. A `linalg.generic` on tensors with reduction loops that reads the
    same inputs as an earlier one in its block, with the same indexing maps,
    iterator types and body, and accumulates into a `linalg.fill` of the same
    value and type, is replaced by the earlier one's result; it and its fill
    go. Ops keep their order.

    ```mlir
    %f1 = linalg.fill ins(%zero) outs(%e1 : tensor<1x128x1xf32>)
    %m1 = linalg.generic {..., "reduction"} ins(%x) outs(%f1) { addf }
    ...
    %f2 = linalg.fill ins(%zero) outs(%e2 : tensor<1x128x1xf32>)
    %m2 = linalg.generic {..., "reduction"} ins(%x) outs(%f2) { addf }
    // %m2's uses read %m1
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numReductionsMerged", "num-reductions-merged",
              "Number of reductions replaced by an equal earlier one">
  ];
}

def TesselFuseEpilogues
    : Pass<"tessel-fuse-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Run an elementwise op on each slice of the result before "
                "it, in SRAM";
  let description = [{
    An elementwise op that reads the whole result of the op before it (an
    activation or a batch norm after a matmul or a convolution) would read
    that result back from DRAM and store its own. The mapper decides where
    it runs instead on each slice of the producer's result while the slice
    is in the producer's SRAM, and marks the op `tessel.epilogue`;
    `tessel-partition` carries the mark to its partition. This pass checks
    that it can: the consumer is an all-parallel `linalg.generic` with one
    output (of the result's element type or another: an f32 accumulator
    truncated to bf16), read at the iteration's indices,
    without `linalg.index` or lookups; it reads the producer's result, which
    nothing else reads, at the iteration's indices, and its other inputs
    from outside its partition, each at the iteration's indices in order
    with dimensions left out or read at 0 (a bias, a batch norm's
    parameters, a residual); and its partition comes right after the
    producer's, with nothing but ops free of memory effects between them
    (a batch norm's scale computed between a convolution and its use keeps
    the two apart). Where it cannot, the mark is dropped and the consumer
    runs on its own.

    `tessel-tile-for-sram` then leaves room in the producer's steps for the
    consumer's slices and temporaries, and `tessel-promote-to-sram` runs the
    consumer on each slice of the producer's result that is stored once
    (in place, or into an SRAM slice of its own where its output's element
    type is not the result's), stores its result instead, and erases the
    consumer's partition (where a
    slice is stored more than once, as a reduction cut into steps outside
    the output's is, the consumer runs on its own after all).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numEpiloguesFused", "num-epilogues-fused",
              "Number of elementwise partitions that run as epilogues">,
    Statistic<"numEpiloguesLeft", "num-epilogues-left",
              "Number of epilogues asked for that run on their own">
  ];
}

def TesselDefaultMapping
    : Pass<"tessel-default-mapping", "::mlir::ModuleOp"> {
  let summary = "Map every unmapped op over the grid along its largest "
                "parallel loop";
  let description = [{
    The mapping used until a mapper decides: every linalg op without a
    `tessel.mapping` runs on as much of the grid as its largest parallel
    loop (with a static extent) can feed, split along that loop only: the
    largest rectangle at the grid's north-west corner whose every tile gets
    a non-empty part (an extent of 10 on a 3x3 grid uses 4 tiles, as 9 parts
    of 2 would leave 4 tiles idle). With an extent that is a multiple of
    `rows * cols`, or much larger, that is the whole grid. An op with no
    parallel loop of static extent runs on tile (0, 0). When an input's
    slices do not depend on the split loop (a matmul's right operand), every
    part reads the same ones: the mapping is `shared`, so they are read
    from DRAM once and multicast (`tessel-share-loads`).
    Ops that already carry a mapping (hand-written, or the mapper's) are
    left alone. The module must carry `tessel.arch`.

    Before (on a 4x4 grid):

    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>)
                       outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
    ```

    After:

    ```mlir
    %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
             rows = 4, cols = 4, parts = [16, 1, 1], shared>}
         ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>)
         outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tessel::TesselDialect"];
  let statistics = [
    Statistic<"numOpsMapped", "num-ops-mapped", "Number of ops given a mapping">
  ];
}

def TesselPartition : Pass<"tessel-partition", "::mlir::func::FuncOp"> {
  let summary = "Split each mapped op into one part per tile";
  let description = [{
    Applies each op's `tessel.mapping`: the op is tiled (through its
    `TilingInterface`) into an `scf.forall` whose iterations are the parts,
    each computing one slice of the result. The forall carries the mapping
    as `tessel.partition`, so iteration `i` (row-major over the parts) runs
    on tile `getTileOfPart(i)`.

    A reduction loop may be split too, alone (split-K) or together with
    parallel loops: each part computes the partial result of its slice over
    its share of the reduction, from the reduction's identity, into its
    slot of a tensor with one more, innermost, dimension of one entry per
    reduction part; a `linalg.reduce` then adds the partials, in part
    order, to the op's init. The fill of the partials and that reduce are
    mapped onto the same rectangle (their largest parallel loop split over
    it where it divides evenly, else its first tile) and partitioned in
    turn. Each split loop of such an op must divide evenly; otherwise the
    op is rejected with the loop and its extent named.

    Before:

    ```mlir
    %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
             rows = 2, cols = 2, parts = [4, 1, 1]>}
         ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>)
         outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
    ```

    After:

    ```mlir
    %0 = scf.forall (%i) = (0) to (64) step (16) shared_outs(%o = %c)
         -> (tensor<64x8xf32>) {
      %a_i = tensor.extract_slice %a[%i, 0] [16, 32] [1, 1] : ...
      %o_i = tensor.extract_slice %o[%i, 0] [16, 8] [1, 1] : ...
      %r = linalg.matmul ins(%a_i, %b : ...) outs(%o_i : ...)
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %r into %o[%i, 0] [16, 8] [1, 1] : ...
      }
    } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2,
        cols = 2, parts = [4, 1, 1]>}
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numOpsPartitioned", "num-ops-partitioned",
              "Number of ops split over tiles">
  ];
}

def TesselSeparateOnChipResults
    : Pass<"tessel-separate-on-chip-results", "::mlir::func::FuncOp"> {
  let summary = "Give each op mapped on_chip an init no other op uses";
  let description = [{
    An op mapped `on_chip` keeps its result in its tiles' SRAM
    (tessel-keep-on-chip), which needs a DRAM buffer no other op writes and
    that is no model output. One-Shot Bufferize gives ops that write into
    one `tensor.empty`, or one `linalg.fill` of it, one buffer where their
    results are not live at the same time, so a later op could write the
    kept result's buffer or return it. This pass, run on mapped
    linalg-on-tensors, gives each op mapped `on_chip`, and the epilogue
    after it (which writes the result it keeps), an init of its own: a
    copy of the `tensor.empty`, and of the fill between (with its mapping),
    where another op uses them too.

    ```mlir
    %e = tensor.empty() : tensor<32x32xf32>
    %a = linalg.transpose ins(%x : ...) outs(%e : ...) {tessel.mapping = #tessel.mapping<..., on_chip>}
    %b = linalg.transpose ins(%y : ...) outs(%e : ...) {tessel.mapping = ...}
    // becomes
    %e = tensor.empty() : tensor<32x32xf32>
    %e0 = tensor.empty() : tensor<32x32xf32>
    %a = linalg.transpose ins(%x : ...) outs(%e0 : ...) {tessel.mapping = #tessel.mapping<..., on_chip>}
    %b = linalg.transpose ins(%y : ...) outs(%e : ...) {tessel.mapping = ...}
    ```
  }];
  let statistics = [
    Statistic<"numInitsSeparated", "num-inits-separated",
              "Number of inits given to one op alone">
  ];
}

def TesselTileForSram : Pass<"tessel-tile-for-sram", "::mlir::func::FuncOp"> {
  let summary = "Tile each tile's part into steps whose working set fits "
                "SRAM twice over";
  let description = [{
    A tile computes its part of an op in steps: DMA a step's slices of the
    operands into SRAM, compute, DMA the result slice out. With double
    buffering the next step's slices arrive while this one computes, so two
    steps' working sets (the slices of every operand, inputs and outputs)
    must fit the tile's SRAM together, with the temporaries the lowering
    allocates for a step (an elementwise body's intermediate values, a
    depthwise convolution's products, a convolution's row accumulator):
    `2 * working_set + temporaries <= tile.sram.bytes`.

    For every op inside a `tessel.partition` forall, this pass bounds each
    loop's extent (exactly, or from the value bounds of the part's slices),
    starts from the mapping's `steps` where it has them (the mapper's tile
    sizes), then halves, one at a time, the loop whose halving shrinks the
    working set most, until it fits; it tiles the op with `scf.for` loops of those
    step sizes (a reduction loop carries its partial result, accumulating in
    order, so splitting it does not change the bits). An op whose single
    element step does not fit is rejected with the bytes needed and the
    bytes available.

    A mapping with `resident` keeps the op's weight slices in SRAM for the
    whole program: they are reserved on every tile of its rectangle, left
    out of the double-buffered working set, and every op on those tiles
    sizes its steps in what they leave (`2 * working_set + temporaries +
    resident <= tile.sram.bytes`).

    A mapping with `on_chip` keeps the op's result in SRAM
    (tessel-keep-on-chip): each tile of its rectangle holds its part, from
    the op to the last op that reads the result (directly, through
    reshapes and slices outside the ops, or through an epilogue), and every
    op on that tile over that span, the writer included, sizes its steps
    in what the parts held there leave.

    Before (16 KiB of SRAM per tile):

    ```mlir
    scf.forall ... {
      %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                         outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
      ...
    } {tessel.partition = ...}
    ```

    After (steps of 32x16 by 16: 2 * (2 + 1 + 2) KiB fit):

    ```mlir
    scf.forall ... {
      %r = scf.for %i = %c0 to %c64 step %c32 iter_args(...) {
        scf.for %j = ... step %c16 {
          scf.for %k = ... step %c16 {
            linalg.matmul ins(... : tensor<32x16xf32>, tensor<16x16xf32>) ...
      ...
    } {tessel.partition = ...}
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numOpsTiled", "num-ops-tiled",
              "Number of parts split into several steps">
  ];
}

def TesselBufferize : Pass<"tessel-bufferize", "::mlir::ModuleOp"> {
  let summary = "Bufferize the partitioned program into DRAM memrefs";
  let description = [{
    One-Shot Bufferize over the whole module, function boundaries included
    (identity layouts), with every buffer it creates in
    `#tessel.memory_space<dram>`: the model's inputs, weights, outputs and
    the intermediate tensors between ops all live in DRAM. A part's slices
    become subviews of those buffers; `tessel-promote-to-sram` then gives
    each step its SRAM buffers.

    ```mlir
    func.func @f(%x: tensor<64x8xf32>) -> tensor<64x8xf32>
    // becomes
    func.func @f(%x: memref<64x8xf32, #dram>) -> memref<64x8xf32, #dram>
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
}

def TesselPromoteToSram
    : Pass<"tessel-promote-to-sram", "::mlir::func::FuncOp"> {
  let summary = "Give every step of a part its operands in SRAM";
  let description = [{
    Compute units read and write only their tile's SRAM. For each linalg op
    inside a `tessel.partition` forall (one step of one tile's part), every
    memref operand outside SRAM gets an SRAM buffer of the step's largest
    shape: inputs, and outputs the op reads, are copied in before the op;
    outputs are copied back after it; the buffer is freed after that. The
    copies become DMA transfers, which the schedule overlaps with compute.

    An output whose view stays the same over the innermost step loops (once
    the loop-invariant views are moved out of them), the accumulator of a
    reduction split into steps, gets its buffer outside those loops: copied
    in before them, it stays in SRAM across the reduction's steps and is
    copied back once, after them.

    An accumulator whose DRAM buffer a partitioned `linalg.fill` of a
    constant has just written, and nothing else has touched since it was
    allocated, is filled with that constant in SRAM instead of copied in,
    where it is copied in once per element (every step loop around the
    copy takes another slice). The fill's partition, whose values nothing
    else reads and which the accumulating op overwrites entirely, is erased:
    the initial value of a matmul, convolution or pooling (zero, or -inf for
    a max) no longer goes through DRAM. A partitioned `linalg.broadcast` of
    a function argument (a bias, `tessel-fold-bias-adds`) is folded the same
    way: each accumulator loads the slice of the argument it covers (the
    accumulator's views of its buffer taken again on the argument) and
    broadcasts it in SRAM.

    A partition marked `tessel.epilogue` right after an op's
    (`tessel-fuse-epilogues`) runs on each slice of that op's result that
    is stored once: its other inputs' slices are loaded (the loads marked
    `tessel.epilogue`, not shared between tiles), its `linalg.generic` runs
    on the accumulator in place, and the slice is stored into the
    epilogue's output (a fresh buffer where the producer reads the old
    one); the epilogue's partition is erased.

    A weight operand (an argument with `tessel.kind = "weight"`) of an op
    whose mapping has `resident` is the exception: its part slice (what it
    is outside the step loops) gets one SRAM buffer, loaded before the
    loops and freed after them, and each step reads its slice of that
    buffer. The allocation, copy and deallocation carry `tessel.resident`
    for `tessel-convert-to-device`. So do the slices of weights such an op
    reads besides its operands: a bias that seeds its accumulator, an
    epilogue's weights.

    ```mlir
    linalg.matmul ins(%a, %b : memref<16x32xf32, strided<[64, 1], offset: ?>, #dram>, ...)
                  outs(%c : memref<16x32xf32, strided<[64, 1], offset: ?>, #dram>)
    // becomes
    %a_s = memref.alloc() : memref<16x32xf32, #sram>
    memref.copy %a, %a_s : ...
    ...
    linalg.matmul ins(%a_s, %b_s : ...) outs(%c_s : ...)
    memref.copy %c_s, %c : ...
    memref.dealloc %a_s : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numOperandsPromoted", "num-operands-promoted",
              "Number of operands given an SRAM buffer">,
    Statistic<"numFillsFolded", "num-fills-folded",
              "Number of fills folded into the accumulators they initialize">,
    Statistic<"numEpiloguesRun", "num-epilogues-run",
              "Number of elementwise partitions run on their producer's "
              "result in SRAM">
  ];
}

def TesselConvertToDevice
    : Pass<"tessel-convert-to-device", "::mlir::ModuleOp"> {
  let summary = "Place a bufferized function's parts on the tiles of a device";
  let description = [{
    Builds the `tessel.device` (named after the function, carrying the
    module's arch) from the one function of the module, after
    `tessel-promote-to-sram`:

    - a `tessel.dram_buffer` per argument the function reads (`input`, or
      `weight` if the
      argument has `tessel.kind = "weight"`; named by its `tessel.name`
      attribute or `argN`), per returned allocation (`output`, named by the
      result's `tessel.name` or `resultN`; an allocation returned through a
      reshape gets a buffer of the returned shape, and the program writes it
      through the inverse reshape) and per other allocation (`scratch`,
      `scratchN`);
    - the tiles every mapping names, and per tile a `tessel.core` holding, in
      program order, the iterations of each partition forall that its
      mapping puts on the tile, with the induction values as constants;
    - synchronization where data flows, not between every two ops: an op
      waits for the ops that last wrote a DRAM buffer it reads or writes,
      and for those that read a buffer it overwrites (dependences implied
      by others are left out). Each tile of the earlier op signals its
      first tile, which waits for all and then signals a semaphore of the
      first tile of each row of the later op, which waits for it and
      signals the others of its row (where the later op spans one row, or
      one tile per row, each of its tiles directly); each waits before its
      part. An op on one tile signals directly, and two ops on the same
      single tile need nothing.
      Ops on disjoint tiles with no data between them run concurrently.
      Between two parts on a tile that no wait separates, a `tessel.fence`
      keeps `tessel-schedule` from prefetching into the earlier op;
    - with `stream = N`, the function placed N times, one input after
      another: each input gets its own `input` and `output` buffers (named
      `x[0]`, `x[1]`, ...), scratch buffers alternate between two copies,
      and weights and constants are shared. Each tile runs its parts input
      after input, so the ops of different pipeline stages (the mapping's
      `stage`, which must not share tiles) overlap: while a later stage
      works on input n, an earlier one works on input n + 1. A resident
      weight's allocation and load (`tessel.resident`) are placed for the
      first input only and its deallocation for the last, so later inputs
      read it from SRAM;
    - for an op mapped `on_chip`: its result's scratch buffers marked
      `tessel.on_chip` (for tessel-keep-on-chip), and after the last op that
      reads the result, on each of the op's tiles, a `tessel.fence` marked
      `tessel.release` with the buffer's name, placed as an op that
      overwrites the buffer would be: after every reader is done. The
      result must be an allocation, not a model output (an error); one that
      another op writes too, or that the op itself reads (an accumulator
      loaded from DRAM), stays in DRAM with a warning;
    - the step loops unrolled: each core becomes straight-line code.

    The function is removed; what remains inside the cores (views, copies,
    SRAM allocations, linalg ops on SRAM) is lowered by
    `tessel-lower-to-instructions` and `tessel-allocate-sram`.
  }];
  let options = [
    Option<"stream", "stream", "int64_t", /*default=*/"1",
           "Number of inputs the program computes one after another, "
           "pipelined across the mapping's stages">
  ];
  let statistics = [
    Statistic<"numDependences", "num-dependences",
              "Number of dependences between placed ops synchronized">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tessel::TesselDialect"
  ];
}

def TesselLowerToInstructions
    : Pass<"tessel-lower-to-instructions", "::mlir::ModuleOp"> {
  let summary = "Lower copies and linalg ops in cores to tessel instructions";
  let description = [{
    Inside every `tessel.core`:

    - `memref.copy` between DRAM and SRAM becomes `tessel.dma` and a
      `tessel.wait` right after it (the schedule moves waits later);
    - `linalg.matmul` becomes MAC-array blocks: for a weight-stationary array
      of R x C, one `tessel.matmul` per C columns of the result and R rows of
      the reduction, the reduction blocks in increasing order, which is the
      accumulation order the ISA defines (output-stationary: R rows of the
      result per block); as written or transposed (`acc^T += rhs^T *
      lhs^T`, through transposed views), whichever the MAC timing
      equations give fewer cycles (the operand with more rows streams), with
      the same bits either way;
    - `linalg.fill` with a float constant becomes `tessel.vector_fill`;
    - `linalg.transpose` becomes a `copy` through a `memref.transpose` view;
    - an elementwise `linalg.generic` becomes one vector instruction per body
      op (arith and math ops, `cmpf`, `select`), through SRAM temporaries
      that are freed after it; broadcast operands are read through zero-
      stride views and float constants from filled temporaries. An unordered
      comparison is computed as 1 minus the opposite ordered one, so NaNs
      compare as MLIR defines;
    - a reduction (`linalg.reduce`, or a generic with reduction loops whose
      body ends in an `addf` or `maximumf` with the accumulator) becomes the
      elementwise part of its body, a `tessel.vector_reduce` per reduced
      loop, and a combine with the output's previous value;
    - `linalg.batch_matmul` becomes MAC blocks per batch element;
      `linalg.conv_2d_nchw_fchw` MAC blocks per image and tap through
      strided views (no im2col copy), contracting over the longest of the
      channels, kernel rows and kernel columns, taps in row-major order:
      per output row (`out[n, :, r, :] += W * X[n, .., r*s + .., ..]`), or
      with an image's rows streaming as one against stationary weights,
      whichever the timing model of docs/simulator.md says is faster. Where
      the input's rows are longer than the output's (padding, stride), the
      stream runs on over the extra columns into an SRAM accumulator that
      starts as a copy of the output and is copied back, the extra sums
      dropped; every output element adds the same products in the same
      order whichever way it is computed; depthwise convolutions
      and max/sum pooling one vector instruction (two for depthwise) per
      image and tap over the C x OH x OW window; `linalg.broadcast` and
      `linalg.copy` a vector copy (through a zero-stride view).

    Any other linalg op is rejected with its name and location.

    ```mlir
    linalg.matmul ins(%a, %b : memref<8x32xf32, #sram>, memref<32x16xf32, #sram>)
                  outs(%c : memref<8x16xf32, #sram>)
    // on a 16x16 weight-stationary array becomes
    tessel.matmul %a0, %b0, %c : memref<8x16xf32, ...>, memref<16x16xf32, ...>, ...
    tessel.matmul %a1, %b1, %c : memref<8x16xf32, ...>, memref<16x16xf32, ...>, ...
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
}

def TesselKeepOnChip : Pass<"tessel-keep-on-chip", "::mlir::ModuleOp"> {
  let summary = "Keep the slices of an on-chip tensor in the SRAM of the "
                "tiles that computed them";
  let description = [{
    A scratch `tessel.dram_buffer` marked `tessel.on_chip` (its writer is
    mapped `on_chip`) is not used as DRAM. Each slice the writer stores
    stays in the SRAM buffer it was computed in, and the store is gone; each
    load of a window of the buffer becomes transfers from the slices that
    cover it, where they are: a local copy from the tile's own SRAM, or a
    transfer over the NoC from the tile that holds the slice (its DMA
    engine reads the other tile's SRAM). A tile frees the slices it holds
    at its `tessel.fence` marked `tessel.release` with the buffer's name,
    where tessel-convert-to-device has every op that reads the buffer done
    on every tile (a slice no op reads is freed where it was; a tile that
    holds slices but has no release fence is an error). The DRAM buffer,
    left unused, is erased.

    A slice that is read is read through a `tessel.buffer` on the holder's
    tile without an address (`@<buffer>.held<N>`), on every tile, its
    holder included, so that tessel-schedule issues each read a step ahead;
    its allocation carries `tessel.held_as` with that name, and
    tessel-allocate-sram replaces the buffer with views of the holder's
    arena.

    A buffer that something other than a transfer uses, that a transfer
    reads or writes through other than subviews with constant offsets and
    unit strides, or whose loads its stored slices do not cover exactly,
    stays in DRAM, with a warning that names the reason.

    ```mlir
    // Tile (0, 0) computes rows 0-15 of %h in %acc; tile (1, 0) reads them.
    tessel.core(%tile_0_0) {
      ... tessel.matmul ... %acc ...
      %t = tessel.dma %acc to %h_rows_0_15     // gone: %acc stays
    }
    tessel.core(%tile_1_0) {
      %t = tessel.dma %h_rows_0_15 to %in      // becomes
      %t = tessel.dma %held to %in             // %held: @h.held0 on tile (0, 0)
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numBuffersKept", "num-buffers-kept",
              "Number of DRAM buffers kept on chip">,
    Statistic<"numSlicesKept", "num-slices-kept",
              "Number of stored slices kept in SRAM">,
    Statistic<"numReads", "num-reads",
              "Number of transfers reading kept slices">
  ];
}

def TesselSchedule : Pass<"tessel-schedule", "::mlir::ModuleOp"> {
  let summary = "Overlap each core's loads and stores with its computation "
                "(double buffering)";
  let description = [{
    As lowered, a core loads a step's operands, waits, computes, stores and
    waits again: its DMA engine and its compute units take turns. This pass
    issues each load (from DRAM, or from a slice kept on chip:
    tessel-keep-on-chip) one step early, while the previous step computes,
    and moves the load's `tessel.wait` down to the first instruction that
    reads the loaded buffer (or frees it). The load's SRAM
    buffer is then live alongside the previous step's, the second buffer
    `tessel-tile-for-sram` sized steps for; `tessel-allocate-sram`, which
    runs after this pass, places both.

    A load never moves across `tessel.signal` or `tessel.wait_semaphore` (a
    wait orders it with other tiles' writes; but see below for weights),
    across a `tessel.fence` (into
    another op's part, whose buffers its step sizes did not count), above
    the completion of a store of the same tile to the same DRAM buffer,
    above an instruction that uses its target buffer, or by more than one
    step (past the wait for the previous step's loads).

    The wait of a store to DRAM, and the `memref.dealloc` of the buffer it
    stores, move down to the next store, so one output slice drains while
    the next is computed; they stop earlier at `tessel.signal`,
    `tessel.wait_semaphore` and `tessel.fence`, at a load of the DRAM buffer
    the store writes, and at an instruction that uses the stored buffer.
    Where the core's SRAM buffers would then no longer fit its tile as
    `tessel-allocate-sram` places them, the core's store waits stay where
    they were.

    A load of a weight or constant DRAM buffer (which no core stores into)
    that opens an op's part moves above the `tessel.wait_semaphore`s before
    it (and the fence, and the part's other loads), after the tile's last
    `tessel.signal` there: the previous op's stores are waited for by then,
    and the load runs while the tile waits for the other tiles. It stays
    after the signals: a shared load's leader waits for its receivers'
    credits where its load is (on its core, or on its DMA channel where the
    core computes before its next wait, `tessel-share-loads`; the program
    must run either way, docs/isa.md), and a receiver may give its credit
    only
    after those signals let it through its own waits (so on a relay, which
    signals its row after its wait, it does not move). Where the buffers
    would then not fit, the core's loads stay where they were.

    Where no other tile reads what such a load reads (no load of its op on
    another tile overlaps its box of the DRAM buffer, so
    `tessel-share-loads` leaves it a plain transfer that waits for no one),
    and the tile has two DMA channels or more, it moves on up into the
    previous ops' parts, to just after the tile's last read of DRAM there
    (a load, a multicast or a gather) and the transfers issued with it,
    past their compute, stores, reads of kept slices and synchronization,
    and is marked `tessel.issued_early`:
    `tessel-assign-dma-channels` keeps its DMA channel to itself until it
    is waited for, so the transfers it passes do not queue behind it. A
    load into a buffer resident across a stream's inputs does not move (it
    runs once). The loads of each op's part move together, and stay where
    they were if the core's buffers would not fit.

    A weight load other tiles read too (`tessel-share-loads` makes it a
    multicast, whose leader waits for each receiver's credit where the load
    is) moves so too, of at least what a transfer moves in its fixed cost,
    and may be among its part's first step's loads behind compute that
    leaves its buffer alone (a bias copied into the accumulator). It moves
    only where the op before has a load marked `tessel.share` as the
    tile's last read of DRAM (past plain loads shorter than a transfer's
    fixed cost, a batch norm's parameters, where all of the part's moved
    loads are shared) and either stores nothing to DRAM after it or stores
    fewer bytes than the moved loads after MAC-array blocks that stream at
    least as long as those loads take at one DMA channel's rate (else the
    early multicast would take DRAM from the stores the next barrier waits
    for),
    never past a wait for other tiles or a fence, and lower, after the
    buffers that op frees, where the core's buffers would not fit right
    after the read. It moves only where every load `tessel-share-loads`
    may pair it with moves too, before the moves and after them, after a
    read of the same op, and where the loads it passes keep their places
    in every core's order alike: each
    leader then waits for its receivers inside that op, which every
    receiver reaches without waiting for the leader's later signals.
    Where that op stores to DRAM after the read (or the tile's last read
    is no marked load), a part whose loads are all shared may instead
    move them past it, and past the other ops that read DRAM little, to
    just after the signals that follow the last marked load of at least a
    transfer's fixed cost above them (the op that last read DRAM in
    earnest): no wait for other tiles lies between that load and the
    point, so every core reaches it without waiting for the leader's
    later signals, and each leader's credits all arrive. They do so only
    where the ops passed move less than an eighth of the loads' bytes to
    and from DRAM, and the loads move at least twice what those ops'
    transfers could in their DMA setups (the leader's early multicast
    keeps a channel, and those transfers queue on the others), on every
    core alike.
    Otherwise none of its op's shared loads moves. The fences are removed.

    An op's part that shares its loads with other tiles (marked
    `tessel.share`) over at least `min-shared-steps` steps loads every step
    after the first together, once the first step's loads have arrived,
    instead of each one step ahead. A shared load holds the tiles that share
    it in step: its leader waits for every receiver's credit before it
    multicasts, and each receiver for the delivery. With the loads of all
    steps issued together the handshakes run once, ahead of the compute,
    rather than at every step, where the slowest tile of the set held the
    others back. Where the buffers would then not fit, the core's loads stay
    one step ahead. Few steps gain little and lose more: the later steps'
    reads, issued together, take DRAM from the second step's.

    ```mlir
    %b1 = memref.alloc() ...            %b1 = memref.alloc() ...
    %t1 = tessel.dma %x1 to %b1         %t1 = tessel.dma %x1 to %b1
    tessel.wait %t1                     tessel.wait %t1
    tessel.vector_unary exp %b1, %b1    %b2 = memref.alloc() ...
    ...store %b1, wait, dealloc...  ->  %t2 = tessel.dma %x2 to %b2
    %b2 = memref.alloc() ...            tessel.vector_unary exp %b1, %b1
    %t2 = tessel.dma %x2 to %b2         ...store %b1, wait, dealloc...
    tessel.wait %t2                     tessel.wait %t2
    tessel.vector_unary exp %b2, %b2    tessel.vector_unary exp %b2, %b2
    ```
  }];
  let options = [
    Option<"minSharedSteps", "min-shared-steps", "unsigned", /*default=*/"32",
           "Steps of an op's part with shared loads from which every step "
           "after the first is loaded together">
  ];
  let statistics = [
    Statistic<"numLoadsHoisted", "num-loads-hoisted",
              "Number of loads issued before the previous step's compute">,
    Statistic<"numPartsLoadedTogether", "num-parts-loaded-together",
              "Number of op parts whose later steps' shared loads are "
              "issued together">,
    Statistic<"numWaitsSunk", "num-waits-sunk",
              "Number of load waits moved to the loaded buffer's first use">,
    Statistic<"numStoreWaitsSunk", "num-store-waits-sunk",
              "Number of store waits moved down to the next store">,
    Statistic<"numLoadsAboveWaits", "num-loads-above-waits",
              "Number of weight loads moved above the synchronization "
              "before their op">,
    Statistic<"numLoadsIntoPreviousOps", "num-loads-into-previous-ops",
              "Number of weight loads issued after the previous op's last "
              "load, before its compute ends">
  ];
}

def TesselShareLoads : Pass<"tessel-share-loads", "::mlir::ModuleOp"> {
  let summary = "Load a slice from DRAM once and multicast it to every tile "
                "that reads it";
  let description = [{
    Tiles of an op mapped `shared` that load the same DRAM slice at the same
    step (the same load, counted from the op's first, in each core) share
    it: one of them, the leader, reads it once and delivers it to every
    tile's own SRAM buffer with one `tessel.dma_multicast`; the others load
    nothing. The leader rotates over the tiles of a set from one step to the
    next, so the reads spread over their DMA engines and DRAM channels. For
    a matmul split over rows and columns of tiles this is SUMMA: each row of
    tiles shares its rows of the left operand, each column its columns of
    the right one, and DRAM is read once per row and column instead of once
    per tile.

    Loads of one position whose windows of a DRAM buffer overlap without
    being equal (a convolution's halos under a split of its output rows or
    columns) are cut into cells, the boxes of the buffer that one set of
    those tiles all read; each cell is read once, by one of its readers,
    and multicast into the matching part of every reader's buffer (a cell
    with one reader is a plain load of part of its window). Cutting is done
    only where it saves at least a fifth of the windows' reads and, per
    window, what one transfer moves in its fixed cost (DMA setup and DRAM
    latency): below that, the added transfers and waits cost more.

    A load marked `tessel.issued_early` (`tessel-schedule`) gives its mark
    to the leader's transfer, which then holds its DMA channel
    (`tessel-assign-dma-channels`).

    Reads of a slice kept on chip (tessel-keep-on-chip: a view of a tile's
    arena) share the same way, but their leader is the tile that holds the
    slice (a multicast reads the issuing tile's own SRAM): they share where
    that tile reads the slice too and every reader reads the same window;
    otherwise each reader fetches it itself.

    Runs after `tessel-allocate-sram`, which gave every buffer its address:
    a receiver's buffer is free from the point where its load was, so the
    receiver signals the leader there (a credit, on a semaphore of the
    leader's per receiver, one per cell of that leader it reads) and waits
    where it waited for its load, on a semaphore of its own per leader that
    the leader signals right after the multicast (a signal is ordered after
    the sender's transfers into the tile). The leader waits for the credits
    before its multicasts; where its core computes before it next waits (a
    load issued a step ahead, or during the op before), the multicasts take
    them instead (`after`): its DMA channel starts each once its receivers'
    credits have come, while the core computes on. Elsewhere the core would
    wait anyway, and going on would only issue its next transfers sooner,
    into the DRAM the multicast needs. A tile that receives cells from
    several leaders signals them all before it waits for any credit of its
    own. Per pair of tiles the
    credits and the deliveries are counted in the order both cores meet
    them, so one semaphore per pair and direction serves every step of
    every op; where a receiver uses a later delivery before an earlier one
    (a load issued early and used late), its wait there takes every
    delivery up to that one (`for N`), and the wait at the earlier one's
    use, with nothing left to take, goes.

    Loads that tessel-schedule issued together with their op's other steps'
    (`tessel.loaded_together`, removed here) run their handshakes once,
    ahead of the compute. Their credits move up above the waits for credits
    before them (a core's, or a multicast's: the program must run were the
    cores to take their DMAs' credits, docs/isa.md), so that each leader
    gives every credit of the run before it waits for its own receivers'.
    And their plain loads (one reader each)
    are weighed per step by the DRAM channel they read through (a tile's
    nearest): where a channel carries more than its share by half a load or
    more, one of its tiles' loads is read by another tile of the op that
    reads its own load of the step through a channel that stays within half
    a load of the share and below the fullest (the one that has read fewest
    for others first, then the nearest). That tile issues its own load and
    then the reader's, a `tessel.dma_multicast` to that one tile, after the
    reader's credit (its core waits for it before both, or its DMA channel
    before the multicast), and signals the delivery; it waits for both
    where it waited for its own. Each tile reads for one other at most per
    step.

    ```mlir
    // tile (0, 0)                        // tile (0, 1)
    %t = tessel.dma %a00 to %x            %t = tessel.dma %a00 to %y
        {tessel.share = 0 : i64}              {tessel.share = 0 : i64}
    tessel.wait %t                        tessel.wait %t
    // becomes
    tessel.wait_semaphore %credit         tessel.signal %credit
    %m = tessel.dma_multicast %a00 to %x, %y'
    tessel.signal %ready                  tessel.wait_semaphore %ready
    tessel.wait %m
    ```
    (With compute between the load and its wait, the leader's lines would
    be `%m = tessel.dma_multicast %a00 to %x, %y' after %credit` and
    `tessel.signal %ready`.)
    (`%y'` is `%y`'s view of tile (0, 1)'s arena, rebuilt in the leader's
    core.) The `tessel.share` marks are removed.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numSharedLoads", "num-shared-loads",
              "Number of multicasts made">,
    Statistic<"numBytesSaved", "num-bytes-saved",
              "Bytes of DRAM reads that sharing saved">,
    Statistic<"numLoadsReadFor", "num-loads-read-for",
              "Plain loads read by another tile through an emptier DRAM "
              "channel">
  ];
}

def TesselEarlyStores : Pass<"tessel-early-stores", "::mlir::ModuleOp"> {
  let summary = "Store each block of a result slice once it is final";
  let description = [{
    A step stores its result slice after its last instruction, but the MAC
    array finishes the slice block by block (a block of output channels or
    of columns at a time), each final after its own last product. A
    `tessel.dma` from a core's SRAM to DRAM is cut, along the dimension of
    the slice that gives the most, into the pieces that become final at
    different instructions (reading the elements each instruction touches
    from its views' strided layouts), and each piece is issued right after
    the last instruction that writes it; where the store was waited for,
    all its pieces are. A piece moves up past compute,
    transfers and waits that do not touch its elements, never past a
    signal, a semaphore wait, a fence, a multicast, a gather or a transfer
    of the DRAM buffer it writes, and is at least what the tile's DMA moves
    in four times its setup (smaller ones join a neighbour). A transfer
    holds its DMA channel through the DRAM latency as well, so stores are
    cut on a tile with a second DMA channel for each DRAM channel it uses;
    on a tile with DRAM channels of its own and no second group of DMA
    channels for them, only the core's last store (nothing queues behind
    it), and only where the core's products take the MAC array longer than
    its transfers take the DRAM channels.

    A convolution's taps each stream every output row of the slice, so no
    row is final before the last tap. Where the MAC-array blocks right
    before a store all accumulate into the same view of the stored buffer,
    they are first taken row group by row group (each group through every
    block in turn; every element sums the same products in the same
    order), with the elementwise vector instructions between them and the
    store (a batch norm, a residual add, a ReLU: each group's elements of
    every operand, where each operand is shaped as the stored slice, each
    buffer is seen through one layout, none is read by the blocks, and
    the buffers still fit the tile's SRAM with the epilogue's frees after
    the last group), on
    a weight-stationary array with two weight buffers, in as
    many groups (two to four) as save most: the store's bytes before the
    last group at the tile's share of the DRAM (its rate over the device's
    cores), against what the smaller blocks add at the SRAM port; none
    where that saves less than a transfer's setup and DRAM latency. Each
    group's piece is then at least what that share moves in four setups.
    Runs before `tessel-allocate-sram`, while each SRAM buffer is an
    allocation of its own.

    ```mlir
    tessel.matmul %a, %w0, %c0 : ...   // writes rows 0-31 of %c
    tessel.matmul %a, %w1, %c1 : ...   // writes rows 32-63 of %c
    %t = tessel.dma %c to %out : memref<64x392xf32, #sram> to memref<...>
    // becomes
    tessel.matmul %a, %w0, %c0 : ...
    %t0 = tessel.dma %c_0 to %out_0 : memref<32x392xf32, ...> to ...
    tessel.matmul %a, %w1, %c1 : ...
    %t1 = tessel.dma %c_1 to %out_1 : memref<32x392xf32, ...> to ...
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numSplit", "num-split", "Number of stores cut into pieces">,
    Statistic<"numRunsByRowGroups", "num-runs-by-row-groups",
              "Number of runs of blocks taken row group by row group">
  ];
}

def TesselEarlyLoads : Pass<"tessel-early-loads", "::mlir::ModuleOp"> {
  let summary = "Start an op's first step on the first piece of its loads";
  let description = [{
    After `tessel-schedule` every step's loads are issued under the
    previous step's compute, but an op's first step on a tile has nothing
    to run under: the tile issues its loads and waits for all of them. A
    `tessel.dma` from DRAM into a core's own SRAM whose wait follows it
    with no compute in between is cut into the pieces that different
    instructions read first (reading the elements each instruction touches
    from its views' strided layouts), and each piece is waited for just
    before its first reader. Where that first reader is a weight-stationary `tessel.matmul`
    that streams the whole load as its rows, it is first split into blocks
    of fewer rows, each reading its own piece. The pieces of the loads
    issued together go out in the order they are read. On a tile whose DRAM
    channels are its own and whose DMA channels make no second group for
    them, where each channel runs the pieces in the order they are issued,
    loads issued with fills of other buffers between them (a padded
    window's border) count as issued together, and their pieces go out
    after those fills; elsewhere a later piece would run beside the first
    one and take its share of DRAM, and a fill ends the group.

    A load is cut along the dimension whose pieces leave the most bytes for
    later readers (each piece's bytes times its first reader's place after
    the wait). A piece is at least what the tile's DMA moves in four times
    its setup and a load is cut into at most four: each piece holds its DMA
    channel through a setup and the DRAM latency of its own.

    A load marked for sharing (`tessel-share-loads`, which then multicasts
    each piece) is cut only where the products that first read the loads
    take at least twice as long as the grid's first steps take to load the
    same buffers at all of DRAM's bandwidth, and those loads at least twice
    the setups and latencies of four pieces of each slice on a DRAM
    channel: every tile sharing a load waits for each piece. Every core
    loading the mark must cut it alike (its first load of it in such a
    group, the same shapes, the same blocks first), as `tessel-share-loads`
    pairs the n-th load of a mark on each core. Its wait may
    follow fills of other buffers (an accumulator's zeros). There the first
    step's `tessel.matmul` blocks first take turns over their accumulators
    (the first block of each, then the second of each), each accumulator's
    blocks in their order, so the same sums are added in the same order:
    the first blocks read one piece of the reduction of both operands.
    Runs before `tessel-allocate-sram`, while each SRAM buffer is an
    allocation of its own.

    ```mlir
    %t = tessel.dma %x to %a : memref<...> to memref<512x32xf32, #sram>
    tessel.wait %t
    tessel.matmul init %a, %w, %c : memref<512x32xf32, #sram>, ...
    // becomes
    %t0 = tessel.dma %x_0 to %a_0 : ... to memref<128x32xf32, ...>
    ...
    %t3 = tessel.dma %x_3 to %a_3 : ... to memref<128x32xf32, ...>
    tessel.wait %t0
    tessel.matmul init %a_0, %w, %c_0 : memref<128x32xf32, ...>, ...
    tessel.wait %t1
    tessel.matmul init %a_1, %w, %c_1 : ...
    ...
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numCut", "num-cut", "Number of loads cut into pieces">,
    Statistic<"numBlocksSplit", "num-blocks-split",
              "Number of matmul blocks split into rows">,
    Statistic<"numInterleaved", "num-interleaved",
              "Number of first steps whose matmul blocks take turns">
  ];
}

def TesselSpreadStores : Pass<"tessel-spread-stores", "::mlir::ModuleOp"> {
  let summary = "Issue a store's pieces between the next steps' loads";
  let description = [{
    Each DMA channel runs its transfers in issue order. On a tile whose
    DRAM channels are its own but whose DMA channels make no second group
    for them, stores and loads share the channels, and the loads of the
    next step queue behind a step's store although the store is waited for
    only steps later, where its buffer is freed. A `tessel.dma` from a
    core's SRAM to DRAM that, with the loads issued after it, takes the
    channels longer than the MAC array takes at its peak for the products
    before the tile waits for those loads, is cut along its outermost
    dimension and its pieces are issued one after each run of loads from
    DRAM before its wait (the last run excepted where there are others), so
    each takes a step's spare time on the channels; with one run, or too few
    bytes to cut, the whole store goes out after that run. The store is
    waited for where it was. A piece is at least what the tile's DMA moves
    in four times its setup over all its DRAM channels. A tile whose
    transfers take its DRAM channels longer than its products take the MAC
    array keeps the channels busy in any order: its stores stay where they
    are. A piece moves down
    past compute, transfers and waits that do not touch the slice it reads,
    never past a signal, a semaphore wait, a fence, a multicast, a gather or
    a transfer of the DRAM buffer it writes. Runs before
    `tessel-allocate-sram`, while each SRAM buffer is an allocation of its
    own.

    ```mlir
    %s = tessel.dma %acc to %y : memref<64x32xf32, #sram> to ...
    %l0 = tessel.dma %x0 to %a0 : ...      // the next step's loads
    ...
    %l1 = tessel.dma %x1 to %a1 : ...      // the step after
    ...
    tessel.wait %s
    // becomes
    %l0 = tessel.dma %x0 to %a0 : ...
    %s0 = tessel.dma %acc_0 to %y_0 : memref<32x32xf32, ...> to ...
    ...
    %l1 = tessel.dma %x1 to %a1 : ...
    %s1 = tessel.dma %acc_1 to %y_1 : memref<32x32xf32, ...> to ...
    ...
    tessel.wait %s0, %s1
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numSpread", "num-spread",
              "Number of stores issued after later loads, whole or in pieces">
  ];
}

def TesselSplitTransfers : Pass<"tessel-split-transfers", "::mlir::ModuleOp"> {
  let summary = "Spread a large DRAM transfer over the DRAM channels a tile "
                "has to itself";
  let description = [{
    A transfer runs on one DMA channel at that channel's rate, from the
    DRAM channel it picks (docs/isa.md). On a tile with DRAM channels of its
    own (nearest to it and to no other tile, as both of `systolic-32x32`'s),
    a `tessel.dma` between DRAM and the tile's SRAM that names no channel is
    cut along its outermost dimension of more than one element into one
    piece per such channel (at most the tile's DMA channels, each piece at
    least what a channel moves in its setup time), piece `i` on DMA channel
    `i`, which reads from the `i`-th of them; where the transfer was waited
    for, all its pieces are. Where the tile has DMA channels to spare (a
    multiple of the DRAM channels: DMA channel `g * n + i` also reads the
    `i`-th), stores take the groups of channels in turn, so that one
    store's setup and DRAM latency run under the previous one's data.
    Tiles that share their DRAM channels keep their transfers whole: their
    own transfers already fill the channels.

    ```mlir
    %t = tessel.dma %y to %out : memref<256x392xf32, #sram> to memref<...>
    tessel.wait %t
    // becomes, on systolic-32x32
    %t0 = tessel.dma %y0 to %out0 channel 0 : memref<128x392xf32, ...> ...
    %t1 = tessel.dma %y1 to %out1 channel 1 : memref<128x392xf32, ...> ...
    tessel.wait %t0, %t1
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::tessel::TesselDialect"
  ];
  let statistics = [
    Statistic<"numSplit", "num-split", "Number of transfers split">
  ];
}

def TesselCheckSynchronization
    : Pass<"tessel-check-synchronization", "::mlir::ModuleOp"> {
  let summary = "Reject a device whose cores could deadlock";
  let description = [{
    The last check before a program is emitted. Cores are straight-line and
    synchronize through semaphores: `tessel.signal` adds to a semaphore, and
    only the semaphore's own tile waits on it (its core's
    `tessel.wait_semaphore`, or its DMA channel's for a multicast's `after`
    credits), taking what it waited for. Running a core further never keeps another
    from running, so running every core as far as it can, until none moves,
    decides deadlock for every timing: a core left waiting waits forever.
    The pass reports the first such wait, its tile, the count it needs and
    the most its semaphore can hold, with a note on every other stuck core.
    (Token waits cannot deadlock: each waits for a transfer its own core
    started earlier, which SSA dominance guarantees.) A multicast's credits
    (`after`) are taken by its DMA channel while the core goes on; they are
    run here as the core's waits before it, as the ISA asks every program
    to survive and the emulators run them (the channel's wait only lets the
    core further).

    A transfer into another tile's SRAM (`tessel.dma`, or a target of
    `tessel.dma_multicast`) must be followed in its core by a
    `tessel.signal` to a semaphore of that tile: the receiving tile can
    learn that its data has arrived in no other way.

    ```
    error: 'tessel.wait_semaphore' op would wait forever: the core of tile
    (0, 1) waits for 2 on its semaphore, which can only reach 1 (every
    signal the other cores can send has arrived); the program would deadlock
    ```
  }];
  let statistics = [
    Statistic<"numDeadlocks", "num-deadlocks", "Number of deadlocks found">,
    Statistic<"numUnsignalledDeliveries", "num-unsignalled-deliveries",
              "Number of transfers into another tile that no signal follows">
  ];
}

def TesselAllocateSram
    : Pass<"tessel-allocate-sram", "::mlir::ModuleOp"> {
  let summary = "Place each core's SRAM allocations in its tile's SRAM";
  let description = [{
    Every tile gets one SRAM arena, `tessel.buffer @sram_R_C on %tile at 0 :
    memref<Nxi8, #sram>`, declared before the device's cores so that any
    core can address it, and every `memref.alloc` in SRAM inside its core
    becomes a `memref.view` of the arena. A core is straight-line code, so
    every allocation's lifetime (from its `memref.alloc` to its
    `memref.dealloc`, or the end of the core) is known before any is placed:
    largest first, each takes the lowest offset, aligned to
    `tile.sram.alignment`, that no allocation live at the same time holds
    ("greedy by size", which fragments far less than placing in program
    order), or the same in program order where that gives the smaller arena
    (a chain of equal step buffers). `N` is the arena's extent. When a
    tile's arena exceeds its SRAM, the error names the first allocation
    placed past the end, the tile, the bytes needed and the bytes available.

    A slice kept on chip is read through a `tessel.buffer` without an
    address (tessel-keep-on-chip), which its allocation names in
    `tessel.held_as`: once the allocation is placed, that buffer's uses
    become, in each core that reads it, a view of the holder's arena at the
    allocation's offset.

    ```mlir
    tessel.core(%tile_0_0) {
      %a = memref.alloc() : memref<16x16xf32, #sram>
      ...
      memref.dealloc %a : memref<16x16xf32, #sram>
    }
    // becomes
    %sram_0_0 = tessel.buffer @sram_0_0 on %tile_0_0 at 0 : memref<1024xi8, #sram>
    tessel.core(%tile_0_0) {
      %c0 = arith.constant 0 : index
      %a = memref.view %sram_0_0[%c0][] : memref<1024xi8, #sram> to memref<16x16xf32, #sram>
      ...
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tessel::TesselDialect"
  ];
}

//===----------------------------------------------------------------------===//
// The program's resources: each decision the program format needs, made in
// the IR (docs/isa.md, "Emitting from tessel IR").
//===----------------------------------------------------------------------===//

def TesselAssignDramAddresses
    : Pass<"tessel-assign-dram-addresses", "::mlir::ModuleOp"> {
  let summary = "Give every DRAM buffer its byte offset";
  let description = [{
    A `tessel.dram_buffer` without `at` gets one: in declaration order, the
    lowest multiple of 64 bytes (the program format's DRAM alignment) where
    it overlaps neither a buffer that had an `at` nor one placed before it.
    Buffers with `at` keep it. A buffer that would end past the arch's DRAM
    capacity is an error naming it, its bytes and the capacity.

    ```mlir
    %x = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
    %w = tessel.dram_buffer @w weight at 256 : memref<4x4xf32, #dram>
    %y = tessel.dram_buffer @y output : memref<8x4xf32, #dram>
    // becomes
    %x = tessel.dram_buffer @x input at 0 : memref<8x4xf32, #dram>
    %w = tessel.dram_buffer @w weight at 256 : memref<4x4xf32, #dram>
    %y = tessel.dram_buffer @y output at 128 : memref<8x4xf32, #dram>
    ```
  }];
}

def TesselAssignSemaphoreIds
    : Pass<"tessel-assign-semaphore-ids", "::mlir::ModuleOp"> {
  let summary = "Number each tile's semaphores";
  let description = [{
    A `tessel.semaphore` without `id` gets the lowest id its tile's other
    semaphores do not have, in declaration order: with none given, a
    tile's semaphores are 0, 1, 2, ... as declared. The id is the
    semaphore's index in the tile's list in the program (`semaphores` in
    the manifest), which `signal` and `wait_semaphore` name.

    ```mlir
    %a = tessel.semaphore on %tile_0_1 init 3
    %b = tessel.semaphore on %tile_0_1
    %c = tessel.semaphore on %tile_0_0
    // becomes
    %a = tessel.semaphore on %tile_0_1 init 3 id 0
    %b = tessel.semaphore on %tile_0_1 id 1
    %c = tessel.semaphore on %tile_0_0 id 0
    ```
  }];
}

def TesselAssignDmaChannels
    : Pass<"tessel-assign-dma-channels", "::mlir::ModuleOp"> {
  let summary = "Give every transfer a DMA channel";
  let description = [{
    A transfer (`tessel.dma`, `tessel.dma_multicast`, `tessel.dma_gather`)
    that names no channel takes the next of its tile's DMA channels in
    turn, counting over the core's transfers without one in program order,
    so that consecutive transfers run side by side. Channels named earlier
    (`tessel-split-transfers`, `tessel-share-loads`) are kept. A load or
    multicast marked `tessel.issued_early` (`tessel-schedule`: issued during
    the ops before its own) takes its turn and holds its channel until a
    `tessel.wait` on it; a transfer whose turn falls on a held channel takes
    the next one not held, where one is, and where every channel is held,
    the one whose early loads move the fewest bytes (of equals, the first
    from its turn on). The mark is removed.

    ```mlir
    %t0 = tessel.dma %x0 to %a0 : ...
    %t1 = tessel.dma %y to %out channel 1 : ...
    %t2 = tessel.dma %x1 to %a1 : ...
    // becomes, with 4 channels
    %t0 = tessel.dma %x0 to %a0 channel 0 : ...
    %t1 = tessel.dma %y to %out channel 1 : ...
    %t2 = tessel.dma %x1 to %a1 channel 1 : ...
    ```
  }];
}

def TesselAssignDmaSlots
    : Pass<"tessel-assign-dma-slots", "::mlir::ModuleOp"> {
  let summary = "Give every transfer the token slot it holds until waited for";
  let description = [{
    A transfer holds a token slot of its tile from its issue to the first
    `tessel.wait` on its token. In each core, in program order, a transfer
    without `slot` takes the lowest slot no pending transfer holds; a wait
    frees the slots of its tokens. The program's `tokens` for the tile is
    then the highest slot plus one, the most transfers pending at once.
    Slots given earlier are kept; one given while an earlier transfer still
    holds it is an error (the core's verifier says which).

    ```mlir
    %t0 = tessel.dma %x0 to %a0 channel 0 : ...
    %t1 = tessel.dma %x1 to %a1 channel 1 : ...
    tessel.wait %t0
    %t2 = tessel.dma %x2 to %a2 channel 2 : ...
    // becomes
    %t0 = tessel.dma %x0 to %a0 channel 0 slot 0 : ...
    %t1 = tessel.dma %x1 to %a1 channel 1 slot 1 : ...
    tessel.wait %t0
    %t2 = tessel.dma %x2 to %a2 channel 2 slot 0 : ...
    ```
  }];
}

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
