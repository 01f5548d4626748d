// RUN: tessel-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tessel-collapse-epilogue-reshapes))' | FileCheck %s

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A residual add after a linear layer on a batch of sequences: computed on
// the matmul's rows, its other input collapsed the same way, its result
// expanded after it.
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    %[[X:[^:]+]]: tensor<128x64xf32>, %[[W:[^:]+]]: tensor<64x64xf32>, %[[R:[^:]+]]: tensor<1x128x64xf32>
// CHECK:         %[[M:.+]] = linalg.matmul
// CHECK:         %[[RC:.+]] = tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2]] : tensor<1x128x64xf32> into tensor<128x64xf32>
// CHECK:         %[[G:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[M]], %[[RC]] : tensor<128x64xf32>, tensor<128x64xf32>)
// CHECK:         %[[Y:.+]] = tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [1, 128, 64]
// CHECK:         return %[[Y]]
func.func @residual(%x: tensor<128x64xf32>, %w: tensor<64x64xf32>, %r: tensor<1x128x64xf32>) -> tensor<1x128x64xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<128x64xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x64xf32>, tensor<64x64xf32>) outs(%z : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 64] : tensor<128x64xf32> into tensor<1x128x64xf32>
  %o3 = tensor.empty() : tensor<1x128x64xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %r : tensor<1x128x64xf32>, tensor<1x128x64xf32>) outs(%o3 : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x128x64xf32>
  return %y : tensor<1x128x64xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The expanded result has another reader: the op stays as it is.
// CHECK-LABEL: func.func @two_readers
// CHECK:         tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]}
func.func @two_readers(%x: tensor<128x64xf32>, %w: tensor<64x64xf32>) -> (tensor<1x128x64xf32>, tensor<1x128x64xf32>) {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<128x64xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x64xf32>, tensor<64x64xf32>) outs(%z : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 128, 64] : tensor<128x64xf32> into tensor<1x128x64xf32>
  %o3 = tensor.empty() : tensor<1x128x64xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<1x128x64xf32>) outs(%o3 : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<1x128x64xf32>
  return %y, %e : tensor<1x128x64xf32>, tensor<1x128x64xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// An expanded elementwise result is left to tessel-fuse-elementwise: only a
// reduction's result is collapsed for.
// CHECK-LABEL: func.func @elementwise_producer
// CHECK:         tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]}
func.func @elementwise_producer(%x: tensor<128x64xf32>) -> tensor<1x128x64xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<128x64xf32>
  %n = linalg.negf ins(%x : tensor<128x64xf32>) outs(%o : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e = tensor.expand_shape %n [[0, 1], [2]] output_shape [1, 128, 64] : tensor<128x64xf32> into tensor<1x128x64xf32>
  %o3 = tensor.empty() : tensor<1x128x64xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<1x128x64xf32>) outs(%o3 : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<1x128x64xf32>
  return %y : tensor<1x128x64xf32>
}
