// RUN: tessel-opt %s -split-input-file -tessel-outline-weight-computations | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// A batch norm's scale, `gamma * rsqrt(var + eps)`, reads weights alone: it
// is computed by @bn.weights.0, and @bn reads it as a weight of its own,
// named after the first weight it reads. The eps the body uses from above
// goes with it.
// CHECK-LABEL: func.func private @bn.weights.0(
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

// -----

#id = affine_map<(d0) -> (d0)>
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Two batch norms: each one's scale and the shift computed from it share an
// op and leave in one function; the two share only the constant eps, which
// each function gets a copy of, so each batch norm has a function of its
// own.
// CHECK-LABEL: func.func private @two.weights.0(
// CHECK-SAME:      tessel.name = "a.weight"
// CHECK-SAME:      tessel.name = "a.running_var"
// CHECK-SAME:      tessel.name = "a.bias"
// CHECK-SAME:      -> (tensor<4xf32> {tessel.name = "derived.a.weight"}, tensor<4xf32> {tessel.name = "derived.a.weight.1"})
// CHECK:         arith.constant 9.99999974E-6 : f32
// CHECK:         math.rsqrt
// CHECK-NOT:     math.rsqrt
// CHECK:         return
// CHECK-LABEL: func.func private @two.weights.1(
// CHECK-SAME:      tessel.name = "b.weight"
// CHECK-SAME:      tessel.name = "b.running_var"
// CHECK-SAME:      tessel.name = "b.bias"
// CHECK-SAME:      -> (tensor<4xf32> {tessel.name = "derived.b.weight"}, tensor<4xf32> {tessel.name = "derived.b.weight.1"})
// CHECK:         arith.constant 9.99999974E-6 : f32
// CHECK:         math.rsqrt
// CHECK-NOT:     math.rsqrt
// CHECK:         return
// CHECK-LABEL: func.func @two(
// CHECK-NOT:     math.rsqrt
// CHECK:         return
func.func @two(%ga: tensor<4xf32> {tessel.kind = "weight", tessel.name = "a.weight"},
               %va: tensor<4xf32> {tessel.kind = "weight", tessel.name = "a.running_var"},
               %ba: tensor<4xf32> {tessel.kind = "weight", tessel.name = "a.bias"},
               %gb: tensor<4xf32> {tessel.kind = "weight", tessel.name = "b.weight"},
               %vb: tensor<4xf32> {tessel.kind = "weight", tessel.name = "b.running_var"},
               %bb: tensor<4xf32> {tessel.kind = "weight", tessel.name = "b.bias"},
               %x: tensor<1x4x8x8xf32> {tessel.kind = "input", tessel.name = "x"}) -> tensor<1x4x8x8xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<4xf32>
  %sa = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ga, %va : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%g: f32, %v: f32, %o: f32):
    %a = arith.addf %v, %eps : f32
    %r = math.rsqrt %a : f32
    %m = arith.mulf %g, %r : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %ta = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%sa, %ba : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%s: f32, %b: f32, %o: f32):
    %m = arith.mulf %s, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %sb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%gb, %vb : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%g: f32, %v: f32, %o: f32):
    %a = arith.addf %v, %eps : f32
    %r = math.rsqrt %a : f32
    %m = arith.mulf %g, %r : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %tb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%sb, %bb : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%s: f32, %b: f32, %o: f32):
    %m = arith.mulf %s, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %ey = tensor.empty() : tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #ch, #ch, #ch, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sa, %ta, %sb, %tb : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%ey : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %s1: f32, %t1: f32, %s2: f32, %t2: f32, %o: f32):
    %m = arith.mulf %a, %s1 : f32
    %n = arith.addf %m, %t1 : f32
    %p = arith.mulf %n, %s2 : f32
    %q = arith.addf %p, %t2 : f32
    linalg.yield %q : f32
  } -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
