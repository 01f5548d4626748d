// RUN: tessel-opt %s -tessel-fuse-elementwise | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A bias add and a ReLU become one op; the matmul and the flatten before it
// stay as they are (no reshape is propagated through the matmul).
// CHECK-LABEL: func.func @linear_relu
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
func.func @linear_relu(%x: tensor<2x4x4xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x4x4xf32> into tensor<2x16xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %mm = linalg.matmul ins(%flat, %w : tensor<2x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %relu : tensor<2x8xf32>
}

// BERT's token types, token_type_ids[position_ids], then their embedding:
// the producer of indices stays its own op, so that each body reads one
// table at indices that are an operand (one dma_gather each).
// CHECK-LABEL: func.func @gather_of_a_gather
// CHECK:         %[[TYPES:.+]] = linalg.generic
// CHECK:           tensor.extract %{{.+}} : tensor<32xi64>
// CHECK:         linalg.generic {{.*}} ins(%[[TYPES]] : tensor<8xi64>)
// CHECK:           tensor.extract %{{.+}} : tensor<2x4xf32>
func.func @gather_of_a_gather(%positions: tensor<8xi64>, %buffered: tensor<32xi64>, %table: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %ei = tensor.empty() : tensor<8xi64>
  %types = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%positions : tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%p: i64, %o: i64):
    %i = arith.index_cast %p : i64 to index
    %t = tensor.extract %buffered[%i] : tensor<32xi64>
    linalg.yield %t : i64
  } -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%types : tensor<8xi64>) outs(%ef : tensor<8x4xf32>) {
  ^bb0(%t: i64, %o: f32):
    %i = arith.index_cast %t : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%i, %j] : tensor<2x4xf32>
    linalg.yield %e : f32
  } -> tensor<8x4xf32>
  return %rows : tensor<8x4xf32>
}
