// RUN: tessel-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tessel-fold-bias-adds))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A linear layer: the matmul starts from the bias broadcast over the rows,
// and the add is gone.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8x64xf32>, %[[W:[^:]+]]: tensor<64x128xf32>, %[[B:[^:]+]]: tensor<128xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[BB:.+]] = linalg.broadcast ins(%[[B]] : tensor<128xf32>) outs(%{{.+}} : tensor<8x128xf32>) dimensions = [0]
// CHECK:         %[[Y:.+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xf32>, tensor<64x128xf32>) outs(%[[BB]] : tensor<8x128xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @linear(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<8x128xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x128xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x128xf32>) -> tensor<8x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z : tensor<8x128xf32>) -> tensor<8x128xf32>
  %y = linalg.generic {indexing_maps = [#cols, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %m : tensor<128xf32>, tensor<8x128xf32>) outs(%o : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in_1, %in : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// A convolution's bias, broadcast over the batch and the pixels.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[BB:.+]] = linalg.broadcast ins(%{{.+}} : tensor<4xf32>) outs(%{{.+}} : tensor<1x4x6x6xf32>) dimensions = [0, 2, 3]
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[BB]] : tensor<1x4x6x6xf32>)
// CHECK-NOT:     linalg.generic
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<1x4x6x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%z : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x4x6x6xf32>, tensor<4xf32>) outs(%o : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// Left alone: an add fused with an activation, a sum another op also reads,
// a sum that does not start from zero, a max pooling (it does not add), and
// an add of a tensor of the result's own shape.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     linalg.broadcast
// CHECK-COUNT-5: linalg.generic
func.func @kept(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>, %r: tensor<8x128xf32>, %i: tensor<1x1x8x8xf32>, %k: tensor<2x2xf32>, %pb: tensor<1xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<1x1x4x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %o = tensor.empty() : tensor<8x128xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x128xf32>) -> tensor<8x128xf32>
  %m1 = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z : tensor<8x128xf32>) -> tensor<8x128xf32>
  %relu = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %b : tensor<8x128xf32>, tensor<128xf32>) outs(%o : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    %r0 = arith.maximumf %s, %cst : f32
    linalg.yield %r0 : f32
  } -> tensor<8x128xf32>
  %m2 = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z : tensor<8x128xf32>) -> tensor<8x128xf32>
  %twice = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"]} ins(%m2, %b : tensor<8x128xf32>, tensor<128xf32>) outs(%o : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %f = linalg.fill ins(%one : f32) outs(%o : tensor<8x128xf32>) -> tensor<8x128xf32>
  %m3 = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%f : tensor<8x128xf32>) -> tensor<8x128xf32>
  %ones = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"]} ins(%m3, %b : tensor<8x128xf32>, tensor<128xf32>) outs(%o : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %m4 = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z : tensor<8x128xf32>) -> tensor<8x128xf32>
  %full = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m4, %r : tensor<8x128xf32>, tensor<8x128xf32>) outs(%o : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %po = tensor.empty() : tensor<1x1x4x4xf32>
  %pf = linalg.fill ins(%cst : f32) outs(%po : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%i, %k : tensor<1x1x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %padd = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pool, %pb : tensor<1x1x4x4xf32>, tensor<1xf32>) outs(%po : tensor<1x1x4x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x4xf32>
  return %relu, %twice, %m2, %ones, %full, %padd : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<1x1x4x4xf32>
}
