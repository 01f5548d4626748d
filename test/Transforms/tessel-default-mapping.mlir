// RUN: tessel-opt %s -split-input-file -tessel-default-mapping -verify-diagnostics | FileCheck %s

// A 2x2 grid.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

module attributes {tessel.arch = #tiny} {
// The largest parallel loop (m = 64) feeds all four tiles.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1], shared>}
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// The larger loop wins, even if it is not the outermost (n = 5 > m = 3). Four
// parts of 5 would be 2 + 2 + 1 and leave a tile idle: 2 parts (3 + 2).
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic {{.*}}tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2]>
func.func @elementwise(%a: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// Too short for the grid: the largest rectangle with at most 3 tiles (1x2).
// CHECK-LABEL: func.func @short
// CHECK: linalg.fill {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2]>}
func.func @short(%a: tensor<3xf32>) -> tensor<3xf32> {
  %z = arith.constant 0.0 : f32
  %0 = linalg.fill ins(%z : f32) outs(%a : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Loops of extent 0 or 1 are not split (nothing to share).
// CHECK-LABEL: func.func @empty
// CHECK: linalg.fill {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
func.func @empty(%a: tensor<0xf32>) -> tensor<0xf32> {
  %z = arith.constant 0.0 : f32
  %0 = linalg.fill ins(%z : f32) outs(%a : tensor<0xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// No parallel loop: one tile.
// CHECK-LABEL: func.func @sum
// CHECK: linalg.reduce {{.*}}tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>
func.func @sum(%a: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.reduce ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}

// A mapping already there (the mapper's, or a test's) is kept.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul {tessel.mapping = #tessel.mapping<row = 1, col = 0, rows = 1, cols = 2, parts = [1, 2, 1], stage = 1>}
func.func @kept(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 1, col = 0, rows = 1, cols = 2, parts = [1, 2, 1], stage = 1>} ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
}

// -----

// expected-error @+1 {{no target: the enclosing module has no 'tessel.arch' attribute; attach the target's #tessel.arch to the module (the Python driver does this)}}
module {
}
