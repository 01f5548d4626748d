// RUN: tessel-opt %s -split-input-file -tessel-extracts-as-operands -canonicalize | FileCheck %s

// A position embedding: the table looked up at `arange(4)` (a constant
// progression) and at the op's last loop index reads the table with the
// identity map; the progression operand and the index arithmetic go.
// CHECK-LABEL: func.func @positions
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>, %[[TABLE:.+]]: tensor<4x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[ID:.+]], #[[ID]], #[[ID]]]
// CHECK-SAME:      ins(%[[X]], %[[TABLE]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:         ^bb0(%[[IN:.+]]: f32, %[[E:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[IN]], %[[E]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NOT:     tensor.extract
func.func @positions(%x: tensor<4x8xf32>, %table: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %pos = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %o = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %pos : tensor<4x8xf32>, tensor<4xi64>) outs(%o : tensor<4x8xf32>) {
  ^bb0(%in: f32, %p: i64, %out: f32):
    %i = arith.index_cast %p : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%i, %j] : tensor<4x8xf32>
    %s = arith.addf %in, %e : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Read at swapped loop indices: the table is an input read transposed.
// CHECK-LABEL: func.func @transposed
// CHECK:         linalg.generic {indexing_maps = [#[[T:.+]], #{{.+}}]
// CHECK-SAME:      ins(%{{.+}} : tensor<8x4xf32>)
// CHECK-NOT:     tensor.extract
func.func @transposed(%table: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %o = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : tensor<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%j, %i] : tensor<8x4xf32>
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Token ids that are data: a gather, left as it is.
// CHECK-LABEL: func.func @tokens
// CHECK:         tensor.extract
func.func @tokens(%ids: tensor<4xi64>, %table: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %o = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<4xi64>) outs(%o : tensor<4x8xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%i, %j] : tensor<100x8xf32>
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// GroupNorm's per-group statistics spread over the channels: constant
// indices (wrapped like negative ones) that read the source element after
// element in order. That is a reshape.
// CHECK-LABEL: func.func @in_order
// CHECK-SAME:    (%[[S:.+]]: tensor<2x4xf32>)
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK:         return %[[R]]
func.func @in_order(%s: tensor<2x4xf32>) -> tensor<1x8xf32> {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %groups = arith.constant dense<[[0, 0, 0, 0, 1, 1, 1, 1]]> : tensor<1x8xi64>
  %within = arith.constant dense<[[0, 1, 2, 3, 0, 1, 2, 3]]> : tensor<1x8xi64>
  %o = tensor.empty() : tensor<1x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%groups, %within : tensor<1x8xi64>, tensor<1x8xi64>) outs(%o : tensor<1x8xf32>) {
  ^bb0(%g: i64, %w: i64, %out: f32):
    %gn = arith.cmpi slt, %g, %c0 : i64
    %ga = arith.addi %g, %c2 : i64
    %gs = arith.select %gn, %ga, %g : i64
    %gi = arith.index_cast %gs : i64 to index
    %wi = arith.index_cast %w : i64 to index
    %e = tensor.extract %s[%gi, %wi] : tensor<2x4xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// The same lookup out of order (a transpose by constant indices) stays.
// CHECK-LABEL: func.func @out_of_order
// CHECK:         tensor.extract
func.func @out_of_order(%s: tensor<2x4xf32>) -> tensor<1x8xf32> {
  %groups = arith.constant dense<[[0, 1, 0, 1, 0, 1, 0, 1]]> : tensor<1x8xi64>
  %within = arith.constant dense<[[0, 0, 1, 1, 2, 2, 3, 3]]> : tensor<1x8xi64>
  %o = tensor.empty() : tensor<1x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%groups, %within : tensor<1x8xi64>, tensor<1x8xi64>) outs(%o : tensor<1x8xf32>) {
  ^bb0(%g: i64, %w: i64, %out: f32):
    %gi = arith.index_cast %g : i64 to index
    %wi = arith.index_cast %w : i64 to index
    %e = tensor.extract %s[%gi, %wi] : tensor<2x4xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// GPT-2's position embeddings: a table of 32 positions read at 8 tokens'
// positions (arange(8)): the op reads the table's first 8 rows.
// CHECK-LABEL: func.func @longer_table
// CHECK:         %[[ROWS:.+]] = tensor.extract_slice %arg0[0, 0] [8, 4] [1, 1] : tensor<32x4xf32> to tensor<8x4xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[ROWS]] : tensor<8x4xf32>)
// CHECK-NOT:     tensor.extract %
func.func @longer_table(%table: tensor<32x4xf32>) -> tensor<1x8x4xf32> {
  %positions = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>
  %e = tensor.empty() : tensor<1x8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%positions : tensor<1x8xi64>) outs(%e : tensor<1x8x4xf32>) {
  ^bb0(%p: i64, %out: f32):
    %i = arith.index_cast %p : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%i, %j] : tensor<32x4xf32>
    linalg.yield %v : f32
  } -> tensor<1x8x4xf32>
  return %r : tensor<1x8x4xf32>
}
