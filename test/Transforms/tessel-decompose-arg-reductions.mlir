// RUN: tessel-opt %s -split-input-file -tessel-decompose-arg-reductions | FileCheck %s

// torch.argmax(x, -1) as torch-mlir imports it: the maximum, the least
// position that holds it (in f32), and that position as i64.
// CHECK-LABEL: func.func @argmax
// CHECK:         %[[IOTA:.+]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK:         %[[MAX:.+]] = linalg.generic {{.+}} ins(%arg0 : tensor<4x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[NONE:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[POS:.+]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]], %[[IOTA]] : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) outs(%[[NONE]] : tensor<4xf32>)
// CHECK:           %[[EQ:.+]] = arith.cmpf oeq
// CHECK:           %[[C:.+]] = arith.select %[[EQ]]
// CHECK:           arith.minimumf %[[C]]
// CHECK:         %[[IDX:.+]] = linalg.generic {{.*}} ins(%[[POS]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xi64>)
// CHECK:           %[[R:.+]] = math.roundeven
// CHECK:           arith.fptosi %[[R]] : f32 to i64
// CHECK:         return %[[IDX]]
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %c0 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<4xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %ef = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%ef : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %in, %m : f32
    %gt = arith.cmpf ogt, %in, %m : f32
    %s = arith.select %gt, %jj, %i : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// -----

// A select on a non-strict comparison keeps the last position: not this
// pattern, left as it is.
// CHECK-LABEL: func.func @last_position
// CHECK:         linalg.generic
// CHECK:           arith.cmpf oge
// CHECK-NOT:     math.roundeven
func.func @last_position(%x: tensor<4x8xf32>, %m0: tensor<4xf32>, %i0: tensor<4xi64>) -> tensor<4xi64> {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %in, %m : f32
    %ge = arith.cmpf oge, %in, %m : f32
    %s = arith.select %ge, %jj, %i : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}
