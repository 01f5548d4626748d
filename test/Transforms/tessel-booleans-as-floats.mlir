// RUN: tessel-opt %s -split-input-file -tessel-booleans-as-floats | FileCheck %s

// scaled_dot_product_attention's guard for rows masked everywhere: a
// comparison stored between ops, an AND reduction of it from `true`, and a
// select reading the result. Stored as f32: the comparison yields 1.0 /
// 0.0, the AND reduction is a maximum of -1.0 / 0.0 from -1.0, the select
// reads `!= 0`.
// CHECK-LABEL: func.func @masked_rows
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[MINUS_ONE:.+]] = arith.constant -1.000000e+00 : f32
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[CMP:.+]] = linalg.generic {{.+}} outs(%[[E]] : tensor<4x8xf32>)
// CHECK:           %[[B:.+]] = arith.cmpf oeq
// CHECK:           %[[S:.+]] = arith.select %[[B]], %[[ONE]], %[[ZERO:[^ ]+]] : f32
// CHECK:           linalg.yield %[[S]] : f32
// CHECK:         %[[E1:.+]] = tensor.empty() : tensor<4x1xf32>
// CHECK:         %[[T:.+]] = linalg.fill ins(%[[MINUS_ONE]] : f32) outs(%[[E1]] : tensor<4x1xf32>)
// CHECK:         %[[ALL:.+]] = linalg.generic {{.+}} ins(%[[CMP]] : tensor<4x8xf32>) outs(%[[T]] : tensor<4x1xf32>)
// CHECK:           ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[IB:.+]] = arith.cmpf une, %[[IN]], %[[ZERO]]
// CHECK:             %[[NEG:.+]] = arith.select %[[IB]], %[[MINUS_ONE]], %[[ZERO]] : f32
// CHECK:             %[[MAX:.+]] = arith.maximumf %[[NEG]], %[[ACC]] : f32
// CHECK-NEXT:        linalg.yield %[[MAX]] : f32
// CHECK:         linalg.generic {{.+}} ins(%[[ALL]], %{{.+}} : tensor<4x1xf32>, tensor<4x8xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[AB:.+]] = arith.cmpf une, %[[A]], %[[ZERO]]
// CHECK:             arith.select %[[AB]], %{{.+}}, %[[X]] : f32
// CHECK-NOT:     i1>
func.func @masked_rows(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<4x8xi1>
  %masked = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf oeq, %in, %ninf : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %e1 = tensor.empty() : tensor<4x1xi1>
  %t = linalg.fill ins(%true : i1) outs(%e1 : tensor<4x1xi1>) -> tensor<4x1xi1>
  %all = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%masked : tensor<4x8xi1>) outs(%t : tensor<4x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %a = arith.andi %in, %acc : i1
    linalg.yield %a : i1
  } -> tensor<4x1xi1>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%all, %x : tensor<4x1xi1>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: i1, %in: f32, %out: f32):
    %s = arith.select %a, %zero, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// An OR reduction from `false`: a maximum of 1.0 / 0.0 from 0.0; a boolean
// view (expand_shape) follows.
// CHECK-LABEL: func.func @any
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         arith.maximumf
// CHECK:         tensor.expand_shape %{{.+}} : tensor<4xf32> into tensor<4x1xf32>
func.func @any(%m: tensor<4x8xf32>, %x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %e = tensor.empty() : tensor<4xi1>
  %f = linalg.fill ins(%false : i1) outs(%e : tensor<4xi1>) -> tensor<4xi1>
  %any = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<4x8xf32>) outs(%f : tensor<4xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %c = arith.cmpf ogt, %in, %zero : f32
    %o = arith.ori %c, %acc : i1
    linalg.yield %o : i1
  } -> tensor<4xi1>
  %v = tensor.expand_shape %any [[0, 1]] output_shape [4, 1] : tensor<4xi1> into tensor<4x1xi1>
  %e2 = tensor.empty() : tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v, %x : tensor<4x1xi1>, tensor<4x1xf32>) outs(%e2 : tensor<4x1xf32>) {
  ^bb0(%a: i1, %in: f32, %out: f32):
    %s = arith.select %a, %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// A boolean result of the function has no f32 form the caller would read:
// the function is left as it is.
// CHECK-LABEL: func.func @boolean_result
// CHECK:         tensor<4xi1>
func.func @boolean_result(%x: tensor<4xf32>) -> tensor<4xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %c : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}
