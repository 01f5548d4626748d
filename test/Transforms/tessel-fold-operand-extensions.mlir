// RUN: tessel-opt %s -split-input-file -tessel-fold-operand-extensions | FileCheck %s

// A bf16 nn.Linear as torch-mlir imports it: both operands extended to f32.
// The matmul reads the bf16 tensors into its f32 accumulator; the
// extensions go.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xbf16>, %[[W:.+]]: tensor<64x16xbf16>)
// CHECK-NOT:     arith.extf
// CHECK:         linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xbf16>, tensor<64x16xbf16>) outs(%{{.+}} : tensor<8x16xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear(%x: tensor<8x64xbf16>, %w: tensor<64x16xbf16>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xbf16>) outs(%0 : tensor<8x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  %1 = tensor.empty() : tensor<64x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x16xbf16>) outs(%1 : tensor<64x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<64x16xf32>
  %2 = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// An extension another op also reads stays for that op; the batch matmul
// reads the f16 tensors.
// CHECK-LABEL: func.func @shared
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4x8xf16>, %[[W:.+]]: tensor<2x8x4xf16>)
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK:           arith.extf
// CHECK-NOT:     arith.extf
// CHECK:         %[[Y:.+]] = linalg.batch_matmul ins(%[[X]], %[[W]] : tensor<2x4x8xf16>, tensor<2x8x4xf16>) outs(%{{.+}} : tensor<2x4x4xf32>)
// CHECK:         return %[[Y]], %[[A]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @shared(%x: tensor<2x4x8xf16>, %w: tensor<2x8x4xf16>) -> (tensor<2x4x4xf32>, tensor<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<2x4x8xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x8xf16>) outs(%0 : tensor<2x4x8xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  } -> tensor<2x4x8xf32>
  %1 = tensor.empty() : tensor<2x8x4xf32>
  %b = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<2x8x4xf16>) outs(%1 : tensor<2x8x4xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  } -> tensor<2x8x4xf32>
  %2 = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>)
                           outs(%acc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y, %a : tensor<2x4x4xf32>, tensor<2x4x8xf32>
}

// -----

// One bf16 operand beside an f32 one: the MAC array multiplies two operands
// of one type, so nothing changes.
// CHECK-LABEL: func.func @mixed
// CHECK:         arith.extf
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x16xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed(%x: tensor<8x64xbf16>, %w: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xbf16>) outs(%0 : tensor<8x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  %2 = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
