// RUN: tessel-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tessel-hoist-epilogue-operands))' | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#pix = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>

// A batch norm: its scale, computed from the running variance between the
// convolution and the op applying it, moves before the convolution, with
// the empty tensor it fills; the op applying it comes right after.
// CHECK-LABEL: func.func @batch_norm
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[S:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:         math.rsqrt
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[C]], %[[S]] : tensor<1x4x6x6xf32>, tensor<4xf32>)
func.func @batch_norm(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %var: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %cst = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %o = tensor.empty() : tensor<1x4x6x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%z : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%var : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#pix, #chan, #pix], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s : tensor<1x4x6x6xf32>, tensor<4xf32>) outs(%o : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %m = arith.mulf %in, %in_1 : f32
    linalg.yield %m : f32
  } -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// An op between the two that the elementwise op does not read stays where
// it is.
// CHECK-LABEL: func.func @unrelated
// CHECK:         linalg.matmul
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.+}} : tensor<8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.exp
// CHECK:         linalg.generic {{.*}} ins(%{{.+}} : tensor<8x8xf32>)
// CHECK:         return
func.func @unrelated(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %v: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>) {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x8xf32>) outs(%o : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %y, %n : tensor<8x8xf32>, tensor<8xf32>
}

// -----

// The scale depends on the producer's result through another reader: the
// producer's result has two readers, so nothing moves.
// CHECK-LABEL: func.func @two_readers
// CHECK:         linalg.matmul
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    linalg.generic
func.func @two_readers(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  } -> tensor<8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %s : tensor<8x8xf32>, tensor<8x8xf32>) outs(%o : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %r = arith.mulf %in, %in_1 : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// Two matmuls added, as a residual block's two branches: only the later can
// come right before the add, so the scale between them stays where it is
// and the one between the later and the add moves before the later.
// CHECK-LABEL: func.func @two_producers
// CHECK:         %[[A:.+]] = linalg.matmul
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    %[[S:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<8xf32>)
// CHECK:         math.exp
// CHECK:         %[[B:.+]] = linalg.matmul
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]], %[[B]], %[[S]] :
func.func @two_producers(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %v: tensor<8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = linalg.matmul ins(%w, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #cols, #id2], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %s : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) outs(%o : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %t = arith.addf %in, %in_1 : f32
    %u = arith.mulf %t, %in_2 : f32
    linalg.yield %u : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
