// RUN: tessel-opt %s -split-input-file -tessel-decompose-quantized-matmuls | FileCheck %s

// sum_k (a + 1) (b - 2) = sum_k a b - 2 sum_k a + 1 sum_k b + K (-1)(2):
// an i8 batch matmul, the rows' sums of a, the columns' sums of b, and
// their combination (K = 8: the constant -16).
// CHECK-DAG:   #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$KEPT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$SWAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @batch
// CHECK-SAME:    (%[[A:.+]]: tensor<2x4x8xi8>, %[[B:.+]]: tensor<2x8x3xi8>, %[[C:.+]]: tensor<2x4x3xi32>)
// CHECK:         %[[P:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x8xi8>, tensor<2x8x3xi8>) outs(%[[C]] : tensor<2x4x3xi32>)
// CHECK:         %[[ROWS:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$KEPT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]] : tensor<2x4x8xi8>) outs(%{{.+}} : tensor<2x4xi32>)
// CHECK:         %[[COLS:.+]] = linalg.generic {indexing_maps = [#[[$SWAP]], #[[$KEPT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[B]] : tensor<2x8x3xi8>) outs(%{{.+}} : tensor<2x3xi32>)
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[ROWS]], %[[COLS]] : tensor<2x4x3xi32>, tensor<2x4xi32>, tensor<2x3xi32>)
// CHECK:           arith.constant 2 : i32
// CHECK:           arith.constant -1 : i32
// CHECK:           arith.constant -16 : i32
// CHECK:         return %[[Y]]
func.func @batch(%a: tensor<2x4x8xi8>, %b: tensor<2x8x3xi8>, %c: tensor<2x4x3xi32>) -> tensor<2x4x3xi32> {
  %za = arith.constant -1 : i32
  %zb = arith.constant 2 : i32
  %y = linalg.quantized_batch_matmul ins(%a, %b, %za, %zb : tensor<2x4x8xi8>, tensor<2x8x3xi8>, i32, i32)
                                      outs(%c : tensor<2x4x3xi32>) -> tensor<2x4x3xi32>
  return %y : tensor<2x4x3xi32>
}

// -----

// Zero points of 0 leave the plain product.
// CHECK-LABEL: func.func @plain
// CHECK:         %[[P:.+]] = linalg.matmul
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[P]]
func.func @plain(%a: tensor<4x8xi8>, %b: tensor<8x3xi8>, %c: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %z = arith.constant 0 : i32
  %y = linalg.quantized_matmul ins(%a, %b, %z, %z : tensor<4x8xi8>, tensor<8x3xi8>, i32, i32)
                                outs(%c : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %y : tensor<4x3xi32>
}
