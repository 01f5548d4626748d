// RUN: tessel-opt %s -allow-unregistered-dialect -split-input-file -tessel-scans-as-reductions | FileCheck %s

// torch.cumsum(x, 1) as torch-mlir writes it: a prefix sum becomes a
// reduction over an extra loop k, the terms masked by k <= j.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[K:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[J:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>)
// CHECK:     %[[POS:.+]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK:     %[[ZEROS:.+]] = linalg.fill
// CHECK:     %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[K]], #[[J]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[POS]], %[[POS]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%[[ZEROS]] : tensor<4x8xf32>)
// CHECK:       %[[LE:.+]] = arith.cmpf ole, %{{.+}}, %{{.+}} : f32
// CHECK:       %[[T:.+]] = arith.select %[[LE]], %{{.+}}, %{{.+}} : f32
// CHECK:       arith.addf %[[T]], %{{.+}} : f32
// CHECK:     return %[[SUM]]
// CHECK-NOT: tm_tensor
func.func @cumsum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tensor.empty() : tensor<4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4xf32>) -> tensor<4xf32>
  %4:2 = "tm_tensor.scan"(%x, %1, %3) <{dimension = 1 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    %5 = arith.addf %a, %b : f32
    "tm_tensor.yield"(%5) : (f32) -> ()
  }) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return %4#0 : tensor<4x8xf32>
}

// -----

// Integers sum with addi; the scanned dimension may be the first.
// CHECK-LABEL: func.func @integer_cumsum
// CHECK:     linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:       arith.select %{{.+}}, %{{.+}}, %{{.+}} : i64
// CHECK:       arith.addi
func.func @integer_cumsum(%x: tensor<3x2xi64>) -> tensor<3x2xi64> {
  %c0 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<3x2xi64>
  %1 = linalg.fill ins(%c0 : i64) outs(%0 : tensor<3x2xi64>) -> tensor<3x2xi64>
  %2 = tensor.empty() : tensor<2xi64>
  %3 = linalg.fill ins(%c0 : i64) outs(%2 : tensor<2xi64>) -> tensor<2xi64>
  %4:2 = "tm_tensor.scan"(%x, %1, %3) <{dimension = 0 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: i64, %b: i64):
    %5 = arith.addi %a, %b : i64
    "tm_tensor.yield"(%5) : (i64) -> ()
  }) : (tensor<3x2xi64>, tensor<3x2xi64>, tensor<2xi64>) -> (tensor<3x2xi64>, tensor<2xi64>)
  return %4#0 : tensor<3x2xi64>
}

// -----

// An exclusive scan, or one whose final accumulator is read, stays (the
// input contract check names it).
// CHECK-LABEL: func.func @exclusive
// CHECK:     "tm_tensor.scan"
func.func @exclusive(%x: tensor<8xf32>, %init: tensor<8xf32>, %acc: tensor<f32>) -> tensor<8xf32> {
  %4:2 = "tm_tensor.scan"(%x, %init, %acc) <{dimension = 0 : i64, inclusive = false, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    %5 = arith.addf %a, %b : f32
    "tm_tensor.yield"(%5) : (f32) -> ()
  }) : (tensor<8xf32>, tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
  return %4#0 : tensor<8xf32>
}
