// RUN: tessel-opt %s -split-input-file -tessel-transposes-into-matmuls | FileCheck %s

// q @ k^T: the keys split into heads and transposed across their innermost
// dimension in one permutation. The batch matmul reads the keys with only
// the heads' split left of the transpose (which keeps the innermost
// dimension), its right-hand map transposed.
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG:   #[[ACC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores
// CHECK-NOT:     permutation = [0, 2, 3, 1]
// CHECK:         %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<1x128x12x64xf32>) outs(%{{.+}} : tensor<1x12x128x64xf32>) permutation = [0, 2, 1, 3]
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]] : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
// CHECK:         linalg.batch_matmul indexing_maps = [#[[LHS]], #[[RHS]], #[[ACC]]] ins(%{{.+}}, %[[C]] : tensor<12x128x64xf32>, tensor<12x128x64xf32>)
func.func @scores(%q: tensor<12x128x64xf32>, %k: tensor<1x128x12x64xf32>) -> tensor<12x128x128xf32> {
  %e = tensor.empty() : tensor<1x12x64x128xf32>
  %t = linalg.transpose ins(%k : tensor<1x128x12x64xf32>) outs(%e : tensor<1x12x64x128xf32>) permutation = [0, 2, 3, 1]
  %c = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<1x12x64x128xf32> into tensor<12x64x128xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<12x128x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r = linalg.batch_matmul ins(%q, %c : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

// -----

// x @ y^T with nothing left of the transpose: the matmul reads y as it is.
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[ACC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @plain
// CHECK-SAME:    (%[[X:.+]]: tensor<32x64xf32>, %[[Y:.+]]: tensor<16x64xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul indexing_maps = [#[[LHS]], #[[RHS]], #[[ACC]]] ins(%[[X]], %[[Y]] : tensor<32x64xf32>, tensor<16x64xf32>)
func.func @plain(%x: tensor<32x64xf32>, %y: tensor<16x64xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %t = linalg.transpose ins(%y : tensor<16x64xf32>) outs(%e : tensor<64x16xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.matmul ins(%x, %t : tensor<32x64xf32>, tensor<64x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

// The left-hand operand transposed: x^T @ y reads x as it is.
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @left
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul indexing_maps = [#[[LHS]], {{.+}}] ins(%{{.+}}, %{{.+}} : tensor<64x32xf32>, tensor<64x16xf32>)
func.func @left(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.matmul ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

// Both operands transposed: x^T @ y^T reads both as they are.
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @both
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul indexing_maps = [#[[LHS]], #[[RHS]], {{.+}}] ins(%{{.+}}, %{{.+}} : tensor<64x32xf32>, tensor<16x64xf32>)
func.func @both(%x: tensor<64x32xf32>, %y: tensor<16x64xf32>) -> tensor<32x16xf32> {
  %ex = tensor.empty() : tensor<32x64xf32>
  %tx = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%ex : tensor<32x64xf32>) permutation = [1, 0]
  %ey = tensor.empty() : tensor<64x16xf32>
  %ty = linalg.transpose ins(%y : tensor<16x64xf32>) outs(%ey : tensor<64x16xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.matmul ins(%tx, %ty : tensor<32x64xf32>, tensor<64x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

// A broadcast operand (a batch matmul's right-hand side without the batch)
// stays transposed: the op takes no transposed broadcast map.
// CHECK-DAG:   #[[KN:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @broadcast
// CHECK:         %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x8xf32>)
// CHECK:         linalg.batch_matmul indexing_maps = [#{{.+}}, #[[KN]], #{{.+}}] ins(%{{.+}}, %[[T]] :
func.func @broadcast(%a: tensor<2x4x8xf32>, %y: tensor<16x8xf32>) -> tensor<2x4x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%y : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<2x4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %r = linalg.batch_matmul indexing_maps = [
      affine_map<(b, m, n, k) -> (b, m, k)>,
      affine_map<(b, m, n, k) -> (k, n)>,
      affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %t : tensor<2x4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// A transpose another op reads too stays: it is computed anyway.
// CHECK-LABEL: func.func @read_elsewhere
// CHECK:         linalg.transpose
// CHECK-NOT:     indexing_maps
func.func @read_elsewhere(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>) -> (tensor<32x16xf32>, tensor<32x64xf32>) {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.matmul ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r, %t : tensor<32x16xf32>, tensor<32x64xf32>
}

// -----

// A permutation that, its last two dimensions swapped, still moves the
// innermost one stays: the transpose left would cost as much.
// CHECK-LABEL: func.func @innermost_moves
// CHECK:         linalg.transpose {{.+}} permutation = [2, 0, 1]
// CHECK-NOT:     indexing_maps
func.func @innermost_moves(%a: tensor<16x2x4xf32>, %y: tensor<4x8x16xf32>) -> tensor<16x2x8xf32> {
  %e = tensor.empty() : tensor<16x4x8xf32>
  %t = linalg.transpose ins(%y : tensor<4x8x16xf32>) outs(%e : tensor<16x4x8xf32>) permutation = [2, 0, 1]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x2x8xf32>) -> tensor<16x2x8xf32>
  %r = linalg.batch_matmul ins(%a, %t : tensor<16x2x4xf32>, tensor<16x4x8xf32>) outs(%f : tensor<16x2x8xf32>) -> tensor<16x2x8xf32>
  return %r : tensor<16x2x8xf32>
}

// -----

// Read through a collapse of its last two dimensions, the transpose stays:
// swapped, they would not collapse into the operand's.
// CHECK-LABEL: func.func @last_two_collapsed
// CHECK:         linalg.transpose
// CHECK-NOT:     indexing_maps
func.func @last_two_collapsed(%a: tensor<4x8xf32>, %y: tensor<8x2x8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<8x8x2xf32>
  %t = linalg.transpose ins(%y : tensor<8x2x8xf32>) outs(%e : tensor<8x8x2xf32>) permutation = [0, 2, 1]
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<8x8x2xf32> into tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
