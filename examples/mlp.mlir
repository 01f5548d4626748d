// A 2-layer MLP (Linear 64->128, ReLU, Linear 128->10, batch 8) as torch-mlir
// 20261001 imports it to linalg-on-tensors, parameters lifted to arguments
// (weights, bias, weights, bias, input).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @mlp(%arg0: tensor<128x64xf32>, %arg1: tensor<128xf32>, %arg2: tensor<10x128xf32>, %arg3: tensor<10xf32>, %arg4: tensor<8x64xf32>) -> tensor<8x10xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x128xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<128x64xf32>) outs(%0 : tensor<64x128xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x128xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x128xf32>) -> tensor<8x128xf32>
    %3 = linalg.matmul ins(%arg4, %transposed : tensor<8x64xf32>, tensor<64x128xf32>) outs(%2 : tensor<8x128xf32>) -> tensor<8x128xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg1 : tensor<8x128xf32>, tensor<128xf32>) outs(%1 : tensor<8x128xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.addf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<8x128xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x128xf32>) outs(%1 : tensor<8x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.cmpf ugt, %in, %cst : f32
      %12 = arith.select %11, %in, %cst : f32
      linalg.yield %12 : f32
    } -> tensor<8x128xf32>
    %6 = tensor.empty() : tensor<128x10xf32>
    %transposed_0 = linalg.transpose ins(%arg2 : tensor<10x128xf32>) outs(%6 : tensor<128x10xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<8x10xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<8x10xf32>) -> tensor<8x10xf32>
    %9 = linalg.matmul ins(%5, %transposed_0 : tensor<8x128xf32>, tensor<128x10xf32>) outs(%8 : tensor<8x10xf32>) -> tensor<8x10xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg3 : tensor<8x10xf32>, tensor<10xf32>) outs(%7 : tensor<8x10xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.addf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<8x10xf32>
    return %10 : tensor<8x10xf32>
  }
}

