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
}
