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
