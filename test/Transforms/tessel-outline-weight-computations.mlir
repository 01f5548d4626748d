// RUN: tessel-opt %s -split-input-file -tessel-outline-weight-computations | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// A batch norm's scale, `gamma * rsqrt(var + eps)`, reads weights alone: it
// is computed by @bn.weights, and @bn reads it as a weight of its own,
// named after the first weight it reads. The eps the body uses from above
// goes with it.
// CHECK-LABEL: func.func private @bn.weights(
// CHECK-SAME:      %{{.+}}: tensor<4xf32> {tessel.kind = "weight", tessel.name = "bn.weight"}
// CHECK-SAME:      %{{.+}}: tensor<4xf32> {tessel.kind = "weight", tessel.name = "bn.running_var"}
// CHECK-SAME:      -> (tensor<4xf32> {tessel.name = "derived.bn.weight"})
// CHECK-SAME:      attributes {tessel.weights_of = @bn}
// CHECK:         arith.constant 9.99999974E-6 : f32
// CHECK:         math.rsqrt
// CHECK:         return
// CHECK-LABEL: func.func @bn(
// CHECK-SAME:      %[[S:[a-z0-9]+]]: tensor<4xf32> {tessel.kind = "weight", tessel.name = "derived.bn.weight"})
// CHECK-NOT:     math.rsqrt
// CHECK:         linalg.generic {{.*}} ins(%{{.+}}, %[[S]] : tensor<1x4x8x8xf32>, tensor<4xf32>)
func.func @bn(%gamma: tensor<4xf32> {tessel.kind = "weight", tessel.name = "bn.weight"},
              %var: tensor<4xf32> {tessel.kind = "weight", tessel.name = "bn.running_var"},
              %x: tensor<1x4x8x8xf32> {tessel.kind = "input", tessel.name = "x"}) -> tensor<1x4x8x8xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<4xf32>
  %scale = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%gamma, %var : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%g: f32, %v: f32, %o: f32):
    %a = arith.addf %v, %eps : f32
    %r = math.rsqrt %a : f32
    %m = arith.mulf %g, %r : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %ey = tensor.empty() : tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %scale : tensor<1x4x8x8xf32>, tensor<4xf32>) outs(%ey : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// What stays: a weight read through a broadcast only (no computation), a
// value larger than the weights it is computed from, and what an input
// takes part in.
// CHECK-LABEL: func.func @stays(
// CHECK-NOT:     derived
// CHECK-NOT:     func.func private
func.func @stays(%w: tensor<4xf32> {tessel.kind = "weight", tessel.name = "w"},
                 %x: tensor<1x4x8x8xf32> {tessel.kind = "input", tessel.name = "x"})
    -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %b = linalg.broadcast ins(%w : tensor<4xf32>) outs(%e : tensor<1x4x8x8xf32>) dimensions = [0, 2, 3]
  %big = linalg.generic {indexing_maps = [#ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<4xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #nchw, #nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b, %big : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %n = arith.addf %m, %d : f32
    linalg.yield %n : f32
  } -> tensor<1x4x8x8xf32>
  return %y, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
