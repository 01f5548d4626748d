// RUN: tessel-opt %s -tessel-promote-to-sram | FileCheck %s

// On a target, an input that no step loop changes is kept across the steps
// only where it is at least what one transfer moves in its DMA setup and
// DRAM latency: (2 + 50) x 8 = 416 bytes here.

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
module attributes {tessel.arch = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>} {

// The right operand (4 KiB) is loaded once, before the steps of rows.
// CHECK-LABEL: func.func @large_input_kept
// CHECK:           %[[BS:.+]] = memref.alloc() : memref<64x16xf32, #sram>
// CHECK-NEXT:      memref.copy %{{.+}}, %[[BS]] : memref<64x16xf32, #dram> to memref<64x16xf32, #sram>
// CHECK:           scf.for
// CHECK:             linalg.matmul ins(%{{.+}}, %[[BS]] : memref<16x64xf32, #sram>, memref<64x16xf32, #sram>)
func.func @large_input_kept(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %c: memref<32x16xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      %ai = memref.subview %a[%i, 0] [16, 64] [1, 1] : memref<32x64xf32, #dram> to memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>
      %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      linalg.matmul ins(%ai, %b : memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>, memref<64x16xf32, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return
}

// The right operand (4 x 4, 64 bytes) is loaded at every step.
// CHECK-LABEL: func.func @small_input_per_step
// CHECK:           scf.for
// CHECK:             memref.alloc() : memref<16x4xf32, #sram>
// CHECK:             %[[BS:.+]] = memref.alloc() : memref<4x4xf32, #sram>
// CHECK-NEXT:        memref.copy %{{.+}}, %[[BS]] : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
// CHECK:             linalg.matmul
// CHECK:             memref.dealloc %[[BS]]
func.func @small_input_per_step(%a: memref<32x4xf32, #dram>, %b: memref<4x4xf32, #dram>, %c: memref<32x4xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      %ai = memref.subview %a[%i, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: ?>, #dram>
      %ci = memref.subview %c[%i, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: ?>, #dram>
      linalg.matmul ins(%ai, %b : memref<16x4xf32, strided<[4, 1], offset: ?>, #dram>, memref<4x4xf32, #dram>) outs(%ci : memref<16x4xf32, strided<[4, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return
}

}
