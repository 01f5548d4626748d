// RUN: tessel-opt %s -split-input-file -tessel-fold-affine-chains | FileCheck %s

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A batch norm and its ReLU: (x - mean) * inv * gamma + beta becomes
// x * s + t, s and t computed per channel.
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME:  (%[[X:[^:]+]]: tensor<1x4x8x8xf32>, %[[M:[^:]+]]: tensor<4x1x1xf32> {{.+}}, %{{.+}}: tensor<4x1x1xf32> {{.+}}, %[[G:[^:]+]]: tensor<4x1x1xf32> {{.+}}, %[[B:[^:]+]]: tensor<4x1x1xf32> {{.+}})
// CHECK:       %[[I:.+]] = linalg.generic
// CHECK:         math.rsqrt
// CHECK:       %[[S:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[I]], %[[G]] : {{.+}})
// CHECK-NEXT:  ^bb0(%[[IS:.+]]: f32, %[[GS:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[SV:.+]] = arith.mulf %[[IS]], %[[GS]]
// CHECK-NEXT:    linalg.yield %[[SV]]
// CHECK:       %[[T:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[M]], %[[I]], %[[G]], %[[B]] : {{.+}})
// CHECK-NEXT:  ^bb0(%[[MT:.+]]: f32, %[[IT:.+]]: f32, %[[GT:.+]]: f32, %[[BT:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[NEG:.+]] = arith.negf %[[MT]]
// CHECK-NEXT:    %[[T1:.+]] = arith.mulf %[[NEG]], %[[IT]]
// CHECK-NEXT:    %[[T2:.+]] = arith.mulf %[[T1]], %[[GT]]
// CHECK-NEXT:    %[[TV:.+]] = arith.addf %[[T2]], %[[BT]]
// CHECK-NEXT:    linalg.yield %[[TV]]
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[X]], %[[S]], %[[T]] : {{.+}})
// CHECK-NEXT:  ^bb0(%[[XV:.+]]: f32, %[[SA:.+]]: f32, %[[TA:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[P:.+]] = arith.mulf %[[XV]], %[[SA]]
// CHECK-NEXT:    %[[Y:.+]] = arith.addf %[[P]], %[[TA]]
// CHECK-NEXT:    %[[R:.+]] = arith.maximumf %[[Y]]
// CHECK-NEXT:    linalg.yield %[[R]]
func.func @batch_norm(%x: tensor<1x4x8x8xf32>, %mean: tensor<4x1x1xf32> {tessel.kind = "weight"},
                      %var: tensor<4x1x1xf32> {tessel.kind = "weight"}, %gamma: tensor<4x1x1xf32> {tessel.kind = "weight"},
                      %beta: tensor<4x1x1xf32> {tessel.kind = "weight"}) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %ce = tensor.empty() : tensor<4x1x1xf32>
  %inv = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%var : tensor<4x1x1xf32>) outs(%ce : tensor<4x1x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.rsqrt %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x1x1xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#x, #c, #c, #c, #c, #x],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %inv, %gamma, %beta : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>, tensor<4x1x1xf32>)
      outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%v: f32, %m: f32, %i: f32, %g: f32, %b: f32, %o: f32):
    %0 = arith.subf %v, %m : f32
    %1 = arith.mulf %0, %i : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %2, %b : f32
    %4 = arith.maximumf %3, %zero : f32
    linalg.yield %4 : f32
  } -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>

// Two ops are what replaces them: left alone.
// CHECK-LABEL: func.func @short_chain
// CHECK:       linalg.generic
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.subf
// CHECK-NEXT:  arith.mulf
func.func @short_chain(%x: tensor<8x4xf32>, %m: tensor<4xf32> {tessel.kind = "weight"}, %s: tensor<4xf32> {tessel.kind = "weight"}) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#x, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %a: f32, %b: f32, %o: f32):
    %0 = arith.subf %v, %a : f32
    %1 = arith.mulf %0, %b : f32
    linalg.yield %1 : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>
#r = affine_map<(d0, d1) -> (d0)>

// The chain ends where an operand is read at another map; a subtraction
// from an operand negates the scale.
// CHECK-LABEL: func.func @stops_at_another_map
// CHECK:       %[[S:.+]] = linalg.generic
// CHECK-NEXT:  ^bb0(%[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[S0:.+]] = arith.constant -1.000000e+00
// CHECK-NEXT:    %[[S1:.+]] = arith.mulf %[[S0]], %[[B]]
// CHECK-NEXT:    linalg.yield %[[S1]]
// CHECK:       %[[T:.+]] = linalg.generic
// CHECK-NEXT:  ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[C:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[T0:.+]] = arith.mulf %[[A]], %[[B]]
// CHECK-NEXT:    %[[T1:.+]] = arith.addf %[[T0]], %[[C]]
// CHECK-NEXT:    linalg.yield %[[T1]]
// CHECK:       ^bb0(%[[V:.+]]: f32, %[[R:.+]]: f32, %[[SA:.+]]: f32, %[[TA:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[P:.+]] = arith.mulf %[[V]], %[[SA]]
// CHECK-NEXT:    %[[Y:.+]] = arith.addf %[[P]], %[[TA]]
// CHECK-NEXT:    arith.mulf %[[Y]], %[[R]]
func.func @stops_at_another_map(%x: tensor<8x4xf32>, %a: tensor<4xf32> {tessel.kind = "weight"},
                                %b: tensor<4xf32> {tessel.kind = "weight"}, %c: tensor<4xf32> {tessel.kind = "weight"},
                                %r: tensor<8xf32> {tessel.kind = "weight"}) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#x, #c, #c, #c, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %a, %b, %c, %r : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>)
      outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %va: f32, %vb: f32, %vc: f32, %vr: f32, %o: f32):
    %0 = arith.subf %va, %v : f32
    %1 = arith.mulf %0, %vb : f32
    %2 = arith.addf %1, %vc : f32
    %3 = arith.mulf %2, %vr : f32
    linalg.yield %3 : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>

// A residual block's end: two batch norms' results added, a chain on each.
// CHECK-LABEL: func.func @two_chains
// CHECK-COUNT-4: linalg.generic
// CHECK:       ^bb0(%[[U:.+]]: f32, %[[V:.+]]: f32, %[[S1:.+]]: f32, %[[T1:.+]]: f32, %[[S2:.+]]: f32, %[[T2:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[P1:.+]] = arith.mulf %[[U]], %[[S1]]
// CHECK-NEXT:    %[[Y1:.+]] = arith.addf %[[P1]], %[[T1]]
// CHECK-NEXT:    %[[P2:.+]] = arith.mulf %[[V]], %[[S2]]
// CHECK-NEXT:    %[[Y2:.+]] = arith.addf %[[P2]], %[[T2]]
// CHECK-NEXT:    arith.addf %[[Y1]], %[[Y2]]
func.func @two_chains(%u: tensor<8x4xf32>, %v: tensor<8x4xf32>, %a: tensor<4xf32> {tessel.kind = "weight"},
                      %b: tensor<4xf32> {tessel.kind = "weight"}, %c: tensor<4xf32> {tessel.kind = "weight"}, %d: tensor<4xf32> {tessel.kind = "weight"}) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#x, #x, #c, #c, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%u, %v, %a, %b, %c, %d : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%e : tensor<8x4xf32>) {
  ^bb0(%vu: f32, %vv: f32, %va: f32, %vb: f32, %vc: f32, %vd: f32, %o: f32):
    %0 = arith.subf %vu, %va : f32
    %1 = arith.mulf %0, %vb : f32
    %2 = arith.addf %1, %vc : f32
    %3 = arith.subf %vv, %vc : f32
    %4 = arith.mulf %3, %vd : f32
    %5 = arith.addf %4, %va : f32
    %6 = arith.addf %2, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>

// Per-channel values computed from the input (a batch norm in training,
// from its batch's statistics) are no weights: left alone.
// CHECK-LABEL: func.func @not_from_weights
// CHECK:       linalg.generic
// CHECK-NOT:   linalg.generic
// CHECK:       arith.subf
// CHECK-NEXT:  arith.mulf
// CHECK-NEXT:  arith.addf
func.func @not_from_weights(%x: tensor<8x4xf32>, %m: tensor<4xf32>, %s: tensor<4xf32> {tessel.kind = "weight"},
                            %b: tensor<4xf32> {tessel.kind = "weight"}) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#x, #c, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s, %b : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %va: f32, %vb: f32, %vc: f32, %o: f32):
    %0 = arith.subf %v, %va : f32
    %1 = arith.mulf %0, %vb : f32
    %2 = arith.addf %1, %vc : f32
    linalg.yield %2 : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
