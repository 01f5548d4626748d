// RUN: tessel-opt %s -split-input-file -tessel-precompute-indices -verify-diagnostics | FileCheck %s

// torch.flip(x, [1]) as torch-mlir imports it: the column read is 3 - j.
// The op reads a table of flat offsets into x instead.
// CHECK-LABEL: func.func @flip
// CHECK-DAG:     %[[OFFSETS:.+]] = arith.constant dense<{{\[}}[3, 2, 1, 0], [7, 6, 5, 4]]> : tensor<2x4xi64>
// CHECK-DAG:     %[[FLAT:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[OFFSETS]] : tensor<2x4xi64>)
// CHECK:         ^bb0(%[[OFFSET:.+]]: i64, %{{.+}}: f32):
// CHECK:           %[[P:.+]] = arith.index_cast %[[OFFSET]] : i64 to index
// CHECK:           tensor.extract %[[FLAT]][%[[P]]] : tensor<8xf32>
func.func @flip(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c3, %j : index
    %v = tensor.extract %x[%i, %k] : tensor<2x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Reflection padding reads through constant index operands that wrap
// negative indices with selects (as torch-mlir imports F.pad(mode="reflect")):
// evaluated through the operands. Rows -1 0 1 2 3 4 reflect to 1 0 1 2 3 2.
// CHECK-LABEL: func.func @reflect
// CHECK:         arith.constant dense<[1, 0, 1, 2, 3, 2]> : tensor<6xi64>
func.func @reflect(%x: tensor<4xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : i64
  %rows = arith.constant dense<[-1, 0, 1, 2, 3, 4]> : tensor<6xi64>
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%rows : tensor<6xi64>) outs(%e : tensor<6xf32>) {
  ^bb0(%row: i64, %out: f32):
    %a = math.absi %row : i64
    %b = arith.subi %c3, %a : i64
    %c = math.absi %b : i64
    %d = arith.subi %c3, %c : i64
    %i = arith.index_cast %d : i64 to index
    %v = tensor.extract %x[%i] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// An embedding's row is data: the lookup stays for the gather.
// CHECK-LABEL: func.func @embedding
// CHECK-NOT:     arith.constant dense
// CHECK:         tensor.extract %arg0[%{{.+}}, %{{.+}}] : tensor<10x4xf32>
func.func @embedding(%table: tensor<10x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<10x4xf32>
    linalg.yield %v : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// An index outside the tensor is an error at the point that reads it.
func.func @outside(%x: tensor<4xf32>) -> tensor<2xf32> {
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<2xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %k = arith.addi %i, %c3 : index
    // expected-error @+1 {{'tensor.extract' op reads index 4 of dimension 0 (size 4) at point (1) of the op}}
    %v = tensor.extract %x[%k] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
