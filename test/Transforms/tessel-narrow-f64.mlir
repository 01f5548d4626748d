// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-narrow-f64 | FileCheck %s

// Layer norm's mean as torch-mlir decomposes it: extended to f64, summed,
// divided by an f64 constant. All of it becomes f32; the extension goes.
// CHECK-LABEL: func.func @mean
// CHECK-NOT:     f64
// CHECK:         %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK:         %[[E:.+]] = linalg.generic
// CHECK:         ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         } -> tensor<8xf32>
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1xf32>)
// CHECK:         arith.addf %{{.+}}, %{{.+}} : f32
// CHECK:         arith.divf %{{.+}}, %[[N]] : f32
// CHECK:         return %{{.+}} : tensor<1xf32>
#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> (0)>
func.func @mean(%x: tensor<8xf32>) -> tensor<1xf32> {
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 8.0 : f64
  %0 = tensor.empty() : tensor<8xf64>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%0 : tensor<8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %1 = arith.extf %in : f32 to f64
    linalg.yield %1 : f64
  } -> tensor<8xf64>
  %2 = tensor.empty() : tensor<1xf64>
  %3 = linalg.fill ins(%zero : f64) outs(%2 : tensor<1xf64>) -> tensor<1xf64>
  %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%e : tensor<8xf64>) outs(%3 : tensor<1xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %4 = arith.addf %in, %acc : f64
    linalg.yield %4 : f64
  } -> tensor<1xf64>
  %5 = tensor.empty() : tensor<1xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<1xf64>) outs(%5 : tensor<1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %6 = arith.divf %in, %n : f64
    %7 = arith.truncf %6 : f64 to f32
    linalg.yield %7 : f32
  } -> tensor<1xf32>
  return %m : tensor<1xf32>
}

// -----

// An f64 constant is rounded to the nearest f32 (1e-5 is not exact in
// either), as the truncation after it would round it.
// CHECK-LABEL: func.func @eps
// CHECK:         arith.constant 9.99999974E-6 : f32
// CHECK-NOT:     arith.truncf
func.func @eps() -> f32 {
  %eps = arith.constant 1.0e-5 : f64
  %0 = arith.truncf %eps : f64 to f32
  return %0 : f32
}

// -----

// f64 at the function's boundary is the caller's data: rejected.
// expected-error @below {{function 'takes_f64' takes an f64 argument; the chip computes in f32 at most: convert the model and its inputs to float32 (model.float())}}
func.func @takes_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
