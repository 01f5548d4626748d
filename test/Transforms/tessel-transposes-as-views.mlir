// RUN: tessel-opt %s -split-input-file -tessel-transposes-as-views | FileCheck %s

// The heads split out of a projection: the batch matmul reads its windows
// of the transposed tensor from the untransposed one (the collapse merges a
// dimension of one element).
// CHECK-LABEL: func.func @heads
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[T:.+]] = tessel.transpose_view %{{.+}} permutation [0, 2, 1, 3] : tensor<1x128x12x64xf32> to tensor<1x12x128x64xf32>
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]]
// CHECK:         linalg.batch_matmul ins(%[[C]],
func.func @heads(%x: tensor<1x128x12x64xf32>, %y: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %e = tensor.empty() : tensor<1x12x128x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x128x12x64xf32>) outs(%e : tensor<1x12x128x64xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<1x12x128x64xf32> into tensor<12x128x64xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<12x128x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r = linalg.batch_matmul ins(%c, %y : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

// -----

// The heads merged back into rows: the collapse would merge dimensions that
// are not contiguous in the view (12 heads 8192 elements apart, 64 columns
// 1 apart), which a strided view cannot express; the transpose stays.
// CHECK-LABEL: func.func @merged_heads
// CHECK:         linalg.transpose
// CHECK-NOT:     tessel.transpose_view
func.func @merged_heads(%x: tensor<1x12x128x64xf32>, %w: tensor<768x768xf32>) -> tensor<128x768xf32> {
  %e = tensor.empty() : tensor<1x128x12x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x12x128x64xf32>) outs(%e : tensor<1x128x12x64xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<1x128x12x64xf32> into tensor<128x768xf32>
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<128x768xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<128x768xf32>) -> tensor<128x768xf32>
  %r = linalg.matmul ins(%c, %w : tensor<128x768xf32>, tensor<768x768xf32>) outs(%f : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %r : tensor<128x768xf32>
}

// -----

// The keys transposed for q @ k^T: the innermost dimension changes, so a
// load of the view would move single elements; the transpose stays. So does
// one whose rows are shorter than 64 bytes, and one that is returned (an
// output is a buffer of its own).
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-3: linalg.transpose
// CHECK-NOT:     tessel.transpose_view
func.func @stays(%k: tensor<12x128x64xf32>, %s: tensor<4x8x8xf32>, %x: tensor<2x4x32xf32>) -> (tensor<12x64x128xf32>, tensor<8x4x8xf32>, tensor<4x2x32xf32>) {
  %e = tensor.empty() : tensor<12x64x128xf32>
  %t = linalg.transpose ins(%k : tensor<12x128x64xf32>) outs(%e : tensor<12x64x128xf32>) permutation = [0, 2, 1]
  %e2 = tensor.empty() : tensor<8x4x8xf32>
  %t2 = linalg.transpose ins(%s : tensor<4x8x8xf32>) outs(%e2 : tensor<8x4x8xf32>) permutation = [1, 0, 2]
  %e3 = tensor.empty() : tensor<4x2x32xf32>
  %t3 = linalg.transpose ins(%x : tensor<2x4x32xf32>) outs(%e3 : tensor<4x2x32xf32>) permutation = [1, 0, 2]
  return %t, %t2, %t3 : tensor<12x64x128xf32>, tensor<8x4x8xf32>, tensor<4x2x32xf32>
}

// -----

// Read directly and through an expand by elementwise ops: one view for
// both.
// CHECK-LABEL: func.func @direct_and_expanded
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[T:.+]] = tessel.transpose_view
// CHECK:         tensor.expand_shape %[[T]]
func.func @direct_and_expanded(%x: tensor<8x4x16xf32>) -> (tensor<4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.transpose ins(%x : tensor<8x4x16xf32>) outs(%e : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %o = tensor.empty() : tensor<4x8x16xf32>
  %a = linalg.exp ins(%t : tensor<4x8x16xf32>) outs(%o : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %x4 = tensor.expand_shape %t [[0, 1], [2], [3]] output_shape [1, 4, 8, 16] : tensor<4x8x16xf32> into tensor<1x4x8x16xf32>
  %o4 = tensor.empty() : tensor<1x4x8x16xf32>
  %b = linalg.exp ins(%x4 : tensor<1x4x8x16xf32>) outs(%o4 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %a, %b : tensor<4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// Written into (an op's init) or a weight (kept or streamed at its own
// shape): the transposes stay.
// CHECK-LABEL: func.func @written_or_weight
// CHECK-COUNT-2: linalg.transpose
// CHECK-NOT:     tessel.transpose_view
func.func @written_or_weight(%x: tensor<8x4x16xf32>, %w: tensor<8x4x16xf32> {tessel.kind = "weight"}) -> (tensor<4x8x16xf32>, tensor<4x8x16xf32>) {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.transpose ins(%x : tensor<8x4x16xf32>) outs(%e : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %c = arith.constant 1.0 : f32
  %f = linalg.fill ins(%c : f32) outs(%t : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %e2 = tensor.empty() : tensor<4x8x16xf32>
  %tw = linalg.transpose ins(%w : tensor<8x4x16xf32>) outs(%e2 : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %o = tensor.empty() : tensor<4x8x16xf32>
  %g = linalg.exp ins(%tw : tensor<4x8x16xf32>) outs(%o : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %f, %g : tensor<4x8x16xf32>, tensor<4x8x16xf32>
}
