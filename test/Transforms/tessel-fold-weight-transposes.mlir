// RUN: tessel-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tessel-fold-weight-transposes))' | FileCheck %s

// A linear layer: the weight argument becomes the transposed weight, the
// permutation is recorded on it, and the matmul reads it directly.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    %[[X:.+]]: tensor<8x64xf32>
// CHECK-SAME:    %[[W:.+]]: tensor<64x128xf32> {tessel.kind = "weight", tessel.permutation = array<i64: 1, 0>}
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xf32>, tensor<64x128xf32>)
func.func @linear(%x: tensor<8x64xf32>, %w: tensor<128x64xf32> {tessel.kind = "weight"}) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %t = linalg.transpose ins(%w : tensor<128x64xf32>) outs(%e : tensor<64x128xf32>) permutation = [1, 0]
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<8x128xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8x128xf32>) -> tensor<8x128xf32>
  %y = linalg.matmul ins(%x, %t : tensor<8x64xf32>, tensor<64x128xf32>) outs(%z : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// Two transposes with the same permutation both read the stored weight.
// CHECK-LABEL: func.func @shared
// CHECK-SAME:    %[[W:.+]]: tensor<4x3x2xf32> {tessel.kind = "weight", tessel.permutation = array<i64: 2, 0, 1>}
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[W]], %[[W]]
func.func @shared(%w: tensor<3x2x4xf32> {tessel.kind = "weight"}) -> (tensor<4x3x2xf32>, tensor<4x3x2xf32>) {
  %e = tensor.empty() : tensor<4x3x2xf32>
  %a = linalg.transpose ins(%w : tensor<3x2x4xf32>) outs(%e : tensor<4x3x2xf32>) permutation = [2, 0, 1]
  %b = linalg.transpose ins(%w : tensor<3x2x4xf32>) outs(%e : tensor<4x3x2xf32>) permutation = [2, 0, 1]
  return %a, %b : tensor<4x3x2xf32>, tensor<4x3x2xf32>
}

// -----

// Left alone: an input (its data arrives at run time), a weight also read
// untransposed, and a weight transposed two ways.
// CHECK-LABEL: func.func @kept
// CHECK-SAME:    tensor<4x2xf32> {tessel.kind = "input"}
// CHECK-SAME:    tensor<4x2xf32> {tessel.kind = "weight"}
// CHECK-SAME:    tensor<2x3x4xf32> {tessel.kind = "weight"}
// CHECK-COUNT-4: linalg.transpose
func.func @kept(%x: tensor<4x2xf32> {tessel.kind = "input"}, %w: tensor<4x2xf32> {tessel.kind = "weight"}, %v: tensor<2x3x4xf32> {tessel.kind = "weight"}) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x3x2xf32>, tensor<3x4x2xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %a = linalg.transpose ins(%x : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %b = linalg.transpose ins(%w : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x3x2xf32>
  %c = linalg.transpose ins(%v : tensor<2x3x4xf32>) outs(%e1 : tensor<4x3x2xf32>) permutation = [2, 1, 0]
  %e2 = tensor.empty() : tensor<3x4x2xf32>
  %d = linalg.transpose ins(%v : tensor<2x3x4xf32>) outs(%e2 : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  return %a, %b, %w, %c, %d : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x3x2xf32>, tensor<3x4x2xf32>
}
