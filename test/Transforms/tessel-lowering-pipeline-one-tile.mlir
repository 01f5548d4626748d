// RUN: tessel-opt %s -split-input-file -tessel-lowering-pipeline | FileCheck %s

// On a 1x1 grid every op is a partition of one part: it still runs on the
// one tile (the partition's one-iteration loop is not folded away).
#one = #tessel.arch<{name = "one", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @relu arch #arch {
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.dma
// CHECK:           tessel.vector_binary_imm max
// CHECK:           tessel.dma
// CHECK-NOT:     linalg.
module attributes {tessel.arch = #one} {
  func.func @relu(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x8xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.maximumf %in, %zero : f32
      linalg.yield %1 : f32
    } -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// A fill whose one step takes half the SRAM, then a matmul whose steps take
// the other half: the matmul's first loads are not issued during the fill
// (with both ops' buffers live, they would not fit).
#one = #tessel.arch<{name = "one", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @fill_then_matmul
// CHECK:         tessel.vector_fill
// CHECK:         tessel.matmul
module attributes {tessel.arch = #one} {
  func.func @fill_then_matmul(%a: tensor<64x32xf32>, %b: tensor<32x32xf32>) -> tensor<64x32xf32> {
    %e = tensor.empty() : tensor<64x32xf32>
    %z = arith.constant 0.0 : f32
    %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
    %r = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1], steps = [16, 32, 32]>} ins(%a, %b : tensor<64x32xf32>, tensor<32x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
    return %r : tensor<64x32xf32>
  }
}
