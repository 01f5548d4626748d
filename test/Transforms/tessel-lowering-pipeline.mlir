// RUN: tessel-opt %s -tessel-lowering-pipeline | FileCheck %s

// The bundled MLP (examples/mlp.mlir, as torch-mlir imports it) on tessel-4x4:
// every op is split over tiles, in SRAM-sized steps, on SRAM buffers.
#arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = [[0, 0], [0, 3], [3, 0], [3, 3]], bytes_per_cycle = 32, capacity_bytes = 8589934592, channels = 4, latency_cycles = 100}, grid = {cols = 4, rows = 4}, name = "tessel-4x4", noc = {hop_cycles = 2, link_bytes_per_cycle = 32, routing = "xy", topology = "mesh"}, tile = {dma = {bytes_per_cycle = 32, channels = 2, setup_cycles = 20}, mac = {cols = 16, dataflow = "weight_stationary", macs_per_cycle = {bf16 = 256, f16 = 256, f32 = 256, i8 = 256}, rows = 16}, sram = {alignment = 64, banks = 8, bytes = 262144, bytes_per_cycle = 64}, vector = {dtypes = ["f32", "f16", "bf16"], lanes = 16, latency = {abs = 1, add = 2, cast = 2, cmp = 1, div = 12, erf = 10, sin = 10, cos = 10, exp = 8, log = 8, max = 1, min = 1, mul = 3, neg = 1, recip = 8, reduce_add = 4, reduce_max = 2, rsqrt = 10, select = 1, sqrt = 10, sub = 2, tanh = 10}}}}>
// The whole pipeline: one device whose cores are instruction streams.
// CHECK-LABEL: tessel.device @mlp arch #arch {
// Every decision the program format needs is in the IR: DRAM offsets (first
// fit, 64-byte aligned, in declaration order), semaphore ids per tile, DMA
// channels in turn and the lowest free token slot.
// CHECK-DAG:     tessel.dram_buffer @arg0 input at 0 : memref<128x64xf32, #dram>
// CHECK-DAG:     tessel.dram_buffer @result0 output at 48704 : memref<8x10xf32, #dram>
// CHECK-DAG:     tessel.semaphore on %tile_0_0 id 0
// Every tile has one SRAM arena, at address 0.
// CHECK:         %[[ARENA:.+]] = tessel.buffer @sram_0_0 on %tile_0_0 at 0 : memref<{{[0-9]+}}xi8, #sram>
// CHECK:         tessel.core(%tile_0_0) {
// The first op is the first matmul (the weights' transposes are read in
// place): the tile's 8 features of the weight, 8 rows of 64 as they lie in
// DRAM, which the MAC array reads transposed (its columns 64 elements
// apart), and the input, multicast to every tile; 8x64 by 64x8 on a 16x16
// array, 4 blocks along k.
// CHECK:           %[[W:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<{{[0-9]+}}xi8, #sram> to memref<8x64xf32, #sram>
// CHECK:           %[[T:.+]] = tessel.dma %{{.+}} to %[[W]] channel 0 slot 0
// CHECK:           tessel.dma_multicast
// CHECK:           tessel.wait %[[T]]
// CHECK:           tessel.matmul {{.*}} : memref<8x16xf32, {{.*}}>, memref<16x8xf32, strided<[1, 64]>, #sram>, memref<8x8xf32, {{.*}}>
// CHECK:           tessel.matmul
// CHECK:           tessel.matmul
// CHECK:           tessel.matmul
// CHECK-NOT:       linalg.
// CHECK:         }
// CHECK-NOT:     func.func
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module attributes {tessel.arch = #arch} {
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

