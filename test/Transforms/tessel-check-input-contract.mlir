// RUN: tessel-opt %s -split-input-file -allow-unregistered-dialect -tessel-check-input-contract -verify-diagnostics | FileCheck %s

// Linalg on tensors, as torch-mlir emits it for a linear layer + relu, passes
// through unchanged.
// CHECK-LABEL: func.func @linear_relu
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:         arith.maximumf
// CHECK:         return
func.func @linear_relu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %relu : tensor<4x16xf32>
}

// -----

// torch-mlir guards dynamic shapes with cf.assert; it is accepted.
// CHECK-LABEL: func.func @shape_guard
// CHECK:         cf.assert
func.func @shape_guard(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sgt, %d, %c0 : index
  cf.assert %ok, "mismatching contracting dimension"
  return %x : tensor<?xf32>
}

// -----

func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' is outside Tessel's input contract (builtin.module, func, linalg, tensor, arith, math, cf.assert, tessel.pad_view); lower the model to linalg-on-tensors before compiling it}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    scf.yield %acc : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @buffers(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{'linalg.matmul' operates on memrefs; Tessel's input is linalg on tensors, which it bufferizes itself}}
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

func.func @branch(%p: i1) {
  // expected-error @+1 {{'cf.cond_br' is outside Tessel's input contract}}
  cf.cond_br %p, ^bb1, ^bb1
^bb1:
  return
}

// -----

// An op of a dialect this build does not know (torch-mlir's tm_tensor).
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tm_tensor.scatter' is outside Tessel's input contract}}
  %0 = "tm_tensor.scatter"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A nested module would hide a second, unchecked program.
module {
  // expected-error @+1 {{'builtin.module' is outside Tessel's input contract}}
  module @inner {
  }
}
