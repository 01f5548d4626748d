// RUN: tessel-opt %s -tessel-bufferize | FileCheck %s

// Every buffer, the function's included, is in DRAM; a part's slices become
// subviews of them.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[A:.+]]: memref<64x32xf32, #dram>, %[[B:.+]]: memref<32x8xf32, #dram>) -> memref<64x8xf32, #dram>
// CHECK:         %[[OUT:.+]] = memref.alloc() {{.*}} : memref<64x8xf32, #dram>
// CHECK:         scf.forall (%[[I:.+]]) = (0) to (64) step (16) {
// CHECK:           %[[AI:.+]] = memref.subview %[[A]][%[[I]], 0] [16, 32] [1, 1] : memref<64x32xf32, #dram> to memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>
// CHECK:           %[[OI:.+]] = memref.subview %[[OUT]][%[[I]], 0] [16, 8] [1, 1]
// CHECK:           linalg.matmul ins(%[[AI]], %[[B]] : {{.*}}) outs(%[[OI]] : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>)
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
// CHECK:         return %[[OUT]] : memref<64x8xf32, #dram>
module {
func.func @rows(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>) -> tensor<64x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x8xf32>
  %0 = scf.forall (%i) = (0) to (64) step (16) shared_outs(%o = %e) -> (tensor<64x8xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [16, 32] [1, 1] : tensor<64x32xf32> to tensor<16x32xf32>
    %oi = tensor.extract_slice %o[%i, 0] [16, 8] [1, 1] : tensor<64x8xf32> to tensor<16x8xf32>
    %r = linalg.matmul ins(%ai, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%oi : tensor<16x8xf32>) -> tensor<16x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[%i, 0] [16, 8] [1, 1] : tensor<16x8xf32> into tensor<64x8xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
  return %0 : tensor<64x8xf32>
}
// A padded view bufferizes to a view of its source's buffer: no buffer of
// the padded shape is allocated, and the part's window is a subview of it.
// CHECK-LABEL: func.func @padded
// CHECK-SAME:    (%[[X:.+]]: memref<1x2x6x6xf32, #dram>
// CHECK-NOT:     memref.alloc() {{.*}} : memref<1x2x8x8xf32
// CHECK:         %[[P:.+]] = tessel.pad_view %[[X]] low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.000000e+00 : memref<1x2x6x6xf32, #dram> to memref<1x2x8x8xf32, #dram>
// CHECK:         scf.forall
// CHECK:           memref.subview %[[P]][0, 0, %{{.+}}, 0] [1, 2, 5, 8] [1, 1, 1, 1]
func.func @padded(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %p = tessel.pad_view %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %0 = scf.forall (%i) = (0) to (6) step (3) shared_outs(%o = %e) -> (tensor<1x4x6x6xf32>) {
    %pi = tensor.extract_slice %p[0, 0, %i, 0] [1, 2, 5, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> to tensor<1x2x5x8xf32>
    %oi = tensor.extract_slice %o[0, 0, %i, 0] [1, 4, 3, 6] [1, 1, 1, 1] : tensor<1x4x6x6xf32> to tensor<1x4x3x6xf32>
    %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
        ins(%pi, %w : tensor<1x2x5x8xf32>, tensor<4x2x3x3xf32>) outs(%oi : tensor<1x4x3x6xf32>) -> tensor<1x4x3x6xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, 0, %i, 0] [1, 4, 3, 6] [1, 1, 1, 1] : tensor<1x4x3x6xf32> into tensor<1x4x6x6xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 1, 2, 1, 1, 1, 1]>}
  return %0 : tensor<1x4x6x6xf32>
}
// A transposed view bufferizes to a memref.transpose of its source's
// buffer, and the part's window is a strided subview of the view (the one
// allocation is the result's).
// CHECK-LABEL: func.func @transposed
// CHECK-SAME:    (%[[X:.+]]: memref<1x8x4x16xf32, #dram>
// CHECK-NEXT:    %[[T:.+]] = memref.transpose %[[X]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x8x4x16xf32, #dram> to memref<1x4x8x16xf32, strided<[512, 16, 64, 1]>, #dram>
// CHECK:         scf.forall
// CHECK:           memref.subview %[[T]][0, %{{.+}}, 0, 0] [1, 2, 8, 16] [1, 1, 1, 1] : memref<1x4x8x16xf32, strided<[512, 16, 64, 1]>, #dram> to memref<1x2x8x16xf32, strided<[512, 16, 64, 1], offset: ?>, #dram>
func.func @transposed(%x: tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32> {
  %t = tessel.transpose_view %x permutation [0, 2, 1, 3] : tensor<1x8x4x16xf32> to tensor<1x4x8x16xf32>
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %0 = scf.forall (%i) = (0) to (4) step (2) shared_outs(%o = %e) -> (tensor<1x4x8x16xf32>) {
    %ti = tensor.extract_slice %t[0, %i, 0, 0] [1, 2, 8, 16] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x2x8x16xf32>
    %oi = tensor.extract_slice %o[0, %i, 0, 0] [1, 2, 8, 16] [1, 1, 1, 1] : tensor<1x4x8x16xf32> to tensor<1x2x8x16xf32>
    %r = linalg.exp ins(%ti : tensor<1x2x8x16xf32>) outs(%oi : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, %i, 0, 0] [1, 2, 8, 16] [1, 1, 1, 1] : tensor<1x2x8x16xf32> into tensor<1x4x8x16xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2, 1, 1]>}
  return %0 : tensor<1x4x8x16xf32>
}
}
