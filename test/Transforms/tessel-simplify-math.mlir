// RUN: tessel-opt %s -split-input-file -tessel-simplify-math | FileCheck %s

// tanh-approximated GELU's cube, as torch-mlir imports `x.pow(3)`: two
// multiplications, (x * x) * x, as PyTorch's kernel computes it.
// CHECK-LABEL: func.func @cube
// CHECK-NOT:     math.fpowi
// CHECK:         ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:           %[[SQ:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:           %[[CUBE:.+]] = arith.mulf %[[SQ]], %[[X]] : f32
// CHECK:           linalg.yield %[[CUBE]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @cube(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c3 = arith.constant 3 : i64
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %c3 : f32, i64
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A square root by power.
// CHECK-LABEL: func.func @half
// CHECK-NOT:     math.powf
// CHECK:         math.sqrt
func.func @half(%x: f32) -> f32 {
  %h = arith.constant 0.5 : f32
  %p = math.powf %x, %h : f32
  return %p : f32
}

// -----

// An exponent that is not a constant stays, for the lowering to reject.
// CHECK-LABEL: func.func @variable
// CHECK:         math.fpowi
func.func @variable(%x: f32, %n: i32) -> f32 {
  %p = math.fpowi %x, %n : f32, i32
  return %p : f32
}

// -----

// A power by a larger constant: multiplications by squaring (x^9 = x *
// ((x^2)^2)^2), a negative one the reciprocal of that.
// CHECK-LABEL: func.func @fpowi
// CHECK-SAME:    (%[[X:.+]]: f32)
// CHECK:         %[[X2:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:         %[[X4:.+]] = arith.mulf %[[X2]], %[[X2]] : f32
// CHECK:         %[[X8:.+]] = arith.mulf %[[X4]], %[[X4]] : f32
// CHECK:         %[[X9:.+]] = arith.mulf %[[X]], %[[X8]] : f32
// CHECK:         arith.mulf %[[X]], %[[X]] : f32
// CHECK:         arith.mulf
// CHECK:         arith.mulf
// CHECK:         %[[Y9:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK:         arith.divf %{{.+}}, %[[Y9]] : f32
// CHECK-NOT:     math.fpowi
func.func @fpowi(%x: f32) -> (f32, f32) {
  %c9 = arith.constant 9 : i32
  %cm9 = arith.constant -9 : i32
  %0 = math.fpowi %x, %c9 : f32, i32
  %1 = math.fpowi %x, %cm9 : f32, i32
  return %0, %1 : f32, f32
}

// -----

// ONNX's QuantizeLinear to i8 (scale 0.5, zero point -3): the value clamped
// to [-128 + 3, 127 + 3], rounded by the conversion to i32, the zero point
// added in i32, narrowed to i8.
// CHECK-LABEL: func.func @quantize
// CHECK-SAME:    (%[[X:.+]]: f32)
// CHECK-DAG:     %[[LO:.+]] = arith.constant -1.250000e+02 : f32
// CHECK-DAG:     %[[HI:.+]] = arith.constant 1.300000e+02 : f32
// CHECK-DAG:     %[[ZP:.+]] = arith.constant -3 : i32
// CHECK:         %[[S:.+]] = arith.divf %[[X]]
// CHECK:         %[[MAX:.+]] = arith.maximumf %[[S]], %[[LO]] : f32
// CHECK:         %[[MIN:.+]] = arith.minimumf %[[MAX]], %[[HI]] : f32
// CHECK:         %[[R:.+]] = math.roundeven %[[MIN]] : f32
// CHECK:         %[[I:.+]] = arith.fptosi %[[R]] : f32 to i32
// CHECK:         %[[A:.+]] = arith.addi %[[I]], %[[ZP]] : i32
// CHECK:         %[[Q:.+]] = arith.trunci %[[A]] : i32 to i8
// CHECK:         return %[[Q]]
func.func @quantize(%x: f32) -> i8 {
  %scale = arith.constant 0.5 : f32
  %zp = arith.constant -3.0 : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %0 = arith.divf %x, %scale : f32
  %1 = math.roundeven %0 : f32
  %2 = arith.addf %1, %zp : f32
  %3 = arith.maximumf %2, %lo : f32
  %4 = arith.minimumf %3, %hi : f32
  %5 = arith.fptosi %4 : f32 to i8
  return %5 : i8
}

// -----

// PT2E's quantize_per_tensor (PyTorch's kernel: x * (1 / scale), rounded,
// plus the zero point 6, clamped) as torch-mlir imports `aten.clamp`: a
// cmpf and a select per bound. The clamp moves before the rounding in the
// same form, so a NaN still clamps to the lower bound.
// CHECK-LABEL: func.func @quantize_clamped_by_selects
// CHECK-SAME:    (%[[X:.+]]: f32)
// CHECK-DAG:     %[[LO:.+]] = arith.constant -1.340000e+02 : f32
// CHECK-DAG:     %[[HI:.+]] = arith.constant 1.210000e+02 : f32
// CHECK-DAG:     %[[ZP:.+]] = arith.constant 6 : i32
// CHECK:         %[[S:.+]] = arith.mulf %[[X]]
// CHECK:         %[[BELOW:.+]] = arith.cmpf ult, %[[S]], %[[LO]] : f32
// CHECK:         %[[MAX:.+]] = arith.select %[[BELOW]], %[[LO]], %[[S]] : f32
// CHECK:         %[[ABOVE:.+]] = arith.cmpf ugt, %[[MAX]], %[[HI]] : f32
// CHECK:         %[[MIN:.+]] = arith.select %[[ABOVE]], %[[HI]], %[[MAX]] : f32
// CHECK:         %[[R:.+]] = math.roundeven %[[MIN]] : f32
// CHECK:         %[[I:.+]] = arith.fptosi %[[R]] : f32 to i32
// CHECK:         %[[A:.+]] = arith.addi %[[I]], %[[ZP]] : i32
// CHECK:         %[[Q:.+]] = arith.trunci %[[A]] : i32 to i8
// CHECK:         return %[[Q]]
func.func @quantize_clamped_by_selects(%x: f32) -> i8 {
  %inverse = arith.constant 35.1 : f32
  %zp = arith.constant 6.0 : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %0 = arith.mulf %x, %inverse : f32
  %1 = math.roundeven %0 : f32
  %2 = arith.addf %1, %zp : f32
  %3 = arith.cmpf ult, %2, %lo : f32
  %4 = arith.select %3, %lo, %2 : f32
  %5 = arith.cmpf ugt, %4, %hi : f32
  %6 = arith.select %5, %hi, %4 : f32
  %7 = arith.fptosi %6 : f32 to i8
  return %7 : i8
}

// -----

// A clamp to bounds that are not integers is left alone: rounding would
// not commute with it.
// CHECK-LABEL: func.func @clamp_to_fractions
// CHECK:         math.roundeven
// CHECK:         arith.fptosi %{{.+}} : f32 to i8
func.func @clamp_to_fractions(%x: f32) -> i8 {
  %lo = arith.constant -127.5 : f32
  %hi = arith.constant 127.0 : f32
  %1 = math.roundeven %x : f32
  %3 = arith.maximumf %1, %lo : f32
  %4 = arith.minimumf %3, %hi : f32
  %5 = arith.fptosi %4 : f32 to i8
  return %5 : i8
}

// -----

// ONNX's DequantizeLinear subtracts the zero point in i16: the difference
// of two i8 values is computed in i32.
// CHECK-LABEL: func.func @dequantize
// CHECK-SAME:    (%[[Q:.+]]: i8)
// CHECK:         %[[E:.+]] = arith.extsi %[[Q]] : i8 to i32
// CHECK:         %[[D:.+]] = arith.subi %[[E]], %{{.+}} : i32
// CHECK:         arith.sitofp %[[D]] : i32 to f32
// CHECK-NOT:     i16
func.func @dequantize(%q: i8) -> f32 {
  %zp = arith.constant 5 : i16
  %0 = arith.extsi %q : i8 to i16
  %1 = arith.subi %0, %zp : i16
  %2 = arith.sitofp %1 : i16 to f32
  return %2 : f32
}

// -----

// PT2E's dequantize_per_channel subtracts zero points read from a tensor
// (i64): not an i8 value, so the difference stays as it is (and the pass
// converges: nothing is built for it).
// CHECK-LABEL: func.func @dequantize_by_a_zero_point_tensor
// CHECK:         %[[D:.+]] = arith.subi %{{.+}}, %{{.+}} : i64
// CHECK:         arith.sitofp %[[D]] : i64 to f32
func.func @dequantize_by_a_zero_point_tensor(%q: i8, %zp: i64) -> f32 {
  %0 = arith.extsi %q : i8 to i64
  %1 = arith.subi %0, %zp : i64
  %2 = arith.sitofp %1 : i64 to f32
  return %2 : f32
}

// -----

// A quantization and its dequantization in one body (elementwise fusion
// brings them together): the integer clamped to [-125 - 3, 130 - 3] plus
// the zero point fits i8, so narrowing it, extending it back and taking the
// zero point away again gives the same integer, converted directly.
// CHECK-LABEL: func.func @quantize_dequantize
// CHECK:         %[[I:.+]] = arith.fptosi %{{.+}} : f32 to i32
// CHECK-NEXT:    %[[F:.+]] = arith.sitofp %[[I]] : i32 to f32
// CHECK-NEXT:    return %[[F]]
func.func @quantize_dequantize(%x: f32) -> f32 {
  %lo = arith.constant -125.0 : f32
  %hi = arith.constant 130.0 : f32
  %zp = arith.constant -3 : i32
  %0 = arith.maximumf %x, %lo : f32
  %1 = arith.minimumf %0, %hi : f32
  %2 = math.roundeven %1 : f32
  %3 = arith.fptosi %2 : f32 to i32
  %4 = arith.addi %3, %zp : i32
  %5 = arith.trunci %4 : i32 to i8
  %6 = arith.extsi %5 : i8 to i32
  %7 = arith.subi %6, %zp : i32
  %8 = arith.sitofp %7 : i32 to f32
  return %8 : f32
}

// -----

// PT2E's form: the zero point (6) taken away in f32 after the conversion.
// CHECK-LABEL: func.func @quantize_dequantize_in_f32
// CHECK:         %[[I:.+]] = arith.fptosi %{{.+}} : f32 to i32
// CHECK-NEXT:    %[[F:.+]] = arith.sitofp %[[I]] : i32 to f32
// CHECK-NEXT:    return %[[F]]
func.func @quantize_dequantize_in_f32(%x: f32) -> f32 {
  %lo = arith.constant -134.0 : f32
  %hi = arith.constant 121.0 : f32
  %zp = arith.constant 6 : i32
  %zpf = arith.constant 6.0 : f32
  %0 = arith.cmpf ult, %x, %lo : f32
  %1 = arith.select %0, %lo, %x : f32
  %2 = arith.cmpf ugt, %1, %hi : f32
  %3 = arith.select %2, %hi, %1 : f32
  %4 = math.roundeven %3 : f32
  %5 = arith.fptosi %4 : f32 to i32
  %6 = arith.addi %5, %zp : i32
  %7 = arith.trunci %6 : i32 to i8
  %8 = arith.sitofp %7 : i8 to f32
  %9 = arith.subf %8, %zpf : f32
  return %9 : f32
}

// -----

// A clamp wider than i8 after the zero point: the narrowing wraps some
// values, and stays.
// CHECK-LABEL: func.func @narrowing_that_wraps
// CHECK:         arith.trunci
// CHECK:         arith.extsi
func.func @narrowing_that_wraps(%x: f32) -> f32 {
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %zp = arith.constant 5 : i32
  %0 = arith.maximumf %x, %lo : f32
  %1 = arith.minimumf %0, %hi : f32
  %2 = math.roundeven %1 : f32
  %3 = arith.fptosi %2 : f32 to i32
  %4 = arith.addi %3, %zp : i32
  %5 = arith.trunci %4 : i32 to i8
  %6 = arith.extsi %5 : i8 to i32
  %7 = arith.subi %6, %zp : i32
  %8 = arith.sitofp %7 : i32 to f32
  return %8 : f32
}
