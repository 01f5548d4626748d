// RUN: tessel-opt %s -split-input-file -tessel-merge-duplicate-reductions | FileCheck %s

// A layer norm's mean, computed twice from fills of their own: the second
// reads the first. A sum of another tensor, or from another fill value,
// stays.
// CHECK-LABEL: func.func @layer_norm_mean
// CHECK:         %[[F:.+]] = linalg.fill
// CHECK:         %[[M:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>) outs(%[[F]] : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg1 : tensor<4x8xf32>)
// CHECK:         %[[ONE:.+]] = linalg.fill ins(%cst_0
// CHECK:         %[[S:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>) outs(%[[ONE]] : tensor<4xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[M]], %{{.+}}, %[[S]], %[[M]]
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @layer_norm_mean(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m1 = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %other = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %f3 = linalg.fill ins(%one : f32) outs(%e3 : tensor<4xf32>) -> tensor<4xf32>
  %from_one = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f3 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %m2 = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f4 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %m1, %other, %from_one, %m2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The same inputs reduced with another body (a maximum) stay.
// CHECK-LABEL: func.func @other_body
// CHECK-COUNT-2: linalg.generic
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @other_body(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f2 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.maximumf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum, %max : tensor<4xf32>, tensor<4xf32>
}
