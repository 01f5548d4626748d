// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -mlir-print-op-generic | tessel-opt | FileCheck %s

// A 2x2 chip with 16 KiB of SRAM per tile and a 4x4 MAC array.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000,
  grid = {rows = 2, cols = 2},
  tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary",
                 macs_per_cycle = {f32 = 16, i8 = 64}},
          vector = {lanes = 4, dtypes = ["f32", "bf16"],
                    latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1,
                               cmp = 1, select = 1, neg = 1, abs = 1, exp = 4,
                               log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4,
                               recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}},
          sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64},
          dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}},
  noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1},
  dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50,
          capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>

// The architecture prints once, as an alias, with integers untyped.
// CHECK: #arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = {{\[\[}}0, 0]], bytes_per_cycle = 8, capacity_bytes = 1048576, channels = 1, latency_cycles = 50}, grid = {cols = 2, rows = 2}, name = "tiny",
// CHECK-SAME: tile = {dma = {bytes_per_cycle = 8, channels = 2, setup_cycles = 10}, mac = {cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}, rows = 4}
// CHECK: module attributes {tessel.arch = #arch}
module attributes {tessel.arch = #tiny} {

// CHECK-LABEL: tessel.device @main arch #arch {
// CHECK:   %tile_0_0 = tessel.tile(0, 0)
// CHECK:   %tile_0_1 = tessel.tile(0, 1)
// CHECK:   %tile_1_1 = tessel.tile(1, 1)
// CHECK:   %x = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
// CHECK:   %w = tessel.dram_buffer @w weight at 4096 : memref<4x4xf32, #dram>
// CHECK:   %y = tessel.dram_buffer @y output : memref<8x4xf32, #dram>
// CHECK:   %wt = tessel.dram_buffer @wt weight permuted [1, 0] : memref<4x8xf32, #dram>
// CHECK:   %mask = tessel.dram_buffer @mask constant value(dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>) : memref<2xf32, #dram>
// CHECK:   %a = tessel.buffer @a on %tile_0_0 at 0 : memref<8x4xf32, #sram>
// CHECK:   %b = tessel.buffer @b on %tile_0_0 at 128 : memref<4x4xf32, #sram>
// CHECK:   %c = tessel.buffer @c on %tile_0_0 : memref<8x4xf32, #sram>
// CHECK:   %r = tessel.buffer @r on %tile_0_0 : memref<8xf32, #sram>
// CHECK:   %in = tessel.buffer @in on %tile_0_1 : memref<8x4xf32, #sram>
// CHECK:   %q = tessel.buffer @q on %tile_1_1 : memref<8x4xi8, #sram>
// CHECK:   %acc = tessel.buffer @acc on %tile_1_1 : memref<8x4xi32, #sram>
// CHECK:   %qw = tessel.buffer @qw on %tile_1_1 : memref<4x4xi8, #sram>
// CHECK:   %ids = tessel.buffer @ids on %tile_0_0 at 256 : memref<2xi64, #sram>
// CHECK:   %[[IDS:.+]] = memref.reinterpret_cast %ids to offset: [0], sizes: [2, 4], strides: [1, 0]
// CHECK:   %g = tessel.buffer @g on %tile_0_0 at 320 : memref<2x4xf32, #sram>
// CHECK:   %[[READY:sem.*]] = tessel.semaphore on %tile_0_1
// CHECK:   %[[DONE:sem.*]] = tessel.semaphore on %tile_0_0 init 1 id 0
// CHECK:   %[[FREE:sem.*]] = tessel.semaphore on %tile_0_0
// CHECK:   tessel.core(%tile_0_0) {
// CHECK:     %[[T0:dma.*]] = tessel.dma %x to %a : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
// CHECK:     %[[T1:dma.*]] = tessel.dma %w to %b channel 1 slot 1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
// CHECK:     tessel.wait %[[T0]], %[[T1]]
// CHECK:     tessel.matmul %a, %b, %c : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     %[[ROWS:.+]] = memref.reinterpret_cast %a to offset: [0], sizes: [2, 3, 4], strides: [16, 4, 1]
// CHECK:     %[[OUT:.+]] = tessel.strided_view %c : memref<8x4xf32, #sram> to memref<2x3x4xf32, strided<[12, 4, 1]>, #sram>
// CHECK:     tessel.matmul %[[ROWS]], %b, %[[OUT]] : memref<2x3x4xf32, strided<[16, 4, 1]>, #sram>, memref<4x4xf32, #sram>, memref<2x3x4xf32, strided<[12, 4, 1]>, #sram>
// CHECK:     tessel.vector_unary exp %c, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_binary max %a, %c, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_reduce add %c, %r dim 1 : memref<8x4xf32, #sram>, memref<8xf32, #sram>
// CHECK:     tessel.vector_binary_imm max %c, 0.000000e+00, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_binary_imm div %c, 1.000000e+00, %c {imm_lhs} : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_fill 0.000000e+00, %a : memref<8x4xf32, #sram>
// CHECK:     tessel.vector_compare gt %a, %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_select %a, %c, %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.vector_unary copy %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     %[[HALF:.+]] = memref.subview %c[0, 0] [4, 4] [1, 1]
// CHECK:     %[[YHALF:.+]] = memref.subview %y[0, 0] [4, 4] [1, 1]
// CHECK:     %[[T2:dma.*]] = tessel.dma %[[HALF]] to %[[YHALF]]
// CHECK:     %[[T3:dma.*]] = tessel.dma %c to %in
// CHECK:     tessel.wait %[[T2]], %[[T3]]
// CHECK:     %[[M:multicast.*]] = tessel.dma_multicast %x to %a, %in channel 0 slot 0 : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     %[[M2:multicast.*]] = tessel.dma_multicast %x to %a, %in after %[[FREE]], %[[DONE]] channel 1 : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
// CHECK:     tessel.wait %[[M]]
// CHECK:     %[[ROWS:.+]] = memref.reinterpret_cast %x to offset: [0], sizes: [2, 4], strides: [0, 1]
// CHECK:     %[[G:gather.*]] = tessel.dma_gather %[[ROWS]][%[[IDS]]] rows 8 index_stride 4 to %g channel 1 slot 0 : memref<2x4xf32, strided<[0, 1]>, #dram>, memref<2x4xi64, strided<[1, 0]>, #sram> to memref<2x4xf32, #sram>
// CHECK:     tessel.wait %[[G]]
// CHECK:     tessel.fence
// CHECK:     tessel.signal %[[READY]]
// CHECK:     tessel.wait_semaphore %[[DONE]] for 2
// CHECK:   }
// CHECK:   tessel.core(%tile_0_1) {
// CHECK:     tessel.wait_semaphore %[[READY]]
// CHECK:     tessel.signal %[[DONE]] by 2
// CHECK:   }
// CHECK:   tessel.core(%tile_1_1) {
// CHECK:     tessel.matmul %q, %qw, %acc : memref<8x4xi8, #sram>, memref<4x4xi8, #sram>, memref<8x4xi32, #sram>
// CHECK:   }
// CHECK: }
tessel.device @main arch #tiny {
  %t00 = tessel.tile(0, 0)
  %t01 = tessel.tile(0, 1)
  %t11 = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %w = tessel.dram_buffer @w weight at 4096 : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x4xf32, #dram>
  %wt = tessel.dram_buffer @wt weight permuted [1, 0] : memref<4x8xf32, #dram>
  %mask = tessel.dram_buffer @mask constant value(dense<[0.0, 1.0]> : tensor<2xf32>) : memref<2xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<8x4xf32, #sram>
  %b = tessel.buffer @b on %t00 at 128 : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %t00 : memref<8x4xf32, #sram>
  %r = tessel.buffer @r on %t00 : memref<8xf32, #sram>
  %in = tessel.buffer @in on %t01 : memref<8x4xf32, #sram>
  %q = tessel.buffer @q on %t11 : memref<8x4xi8, #sram>
  %acc = tessel.buffer @acc on %t11 : memref<8x4xi32, #sram>
  %qw = tessel.buffer @qw on %t11 : memref<4x4xi8, #sram>
  %ids0 = tessel.buffer @ids on %t00 at 256 : memref<2xi64, #sram>
  %ids = memref.reinterpret_cast %ids0 to offset: [0], sizes: [2, 4], strides: [1, 0] : memref<2xi64, #sram> to memref<2x4xi64, strided<[1, 0]>, #sram>
  %gathered = tessel.buffer @g on %t00 at 320 : memref<2x4xf32, #sram>
  %ready = tessel.semaphore on %t01
  %done = tessel.semaphore on %t00 init 1 id 0
  %free = tessel.semaphore on %t00
  tessel.core(%t00) {
    %t0 = tessel.dma %x to %a : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    %t1 = tessel.dma %w to %b channel 1 slot 1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %t0, %t1
    tessel.matmul %a, %b, %c : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram>
    // Two groups of 3 rows, 4 rows apart in %a and 3 in %c.
    %grouped = memref.reinterpret_cast %a to offset: [0], sizes: [2, 3, 4], strides: [16, 4, 1] : memref<8x4xf32, #sram> to memref<2x3x4xf32, strided<[16, 4, 1]>, #sram>
    %out = tessel.strided_view %c : memref<8x4xf32, #sram> to memref<2x3x4xf32, strided<[12, 4, 1]>, #sram>
    tessel.matmul %grouped, %b, %out : memref<2x3x4xf32, strided<[16, 4, 1]>, #sram>, memref<4x4xf32, #sram>, memref<2x3x4xf32, strided<[12, 4, 1]>, #sram>
    tessel.vector_unary exp %c, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_binary max %a, %c, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_reduce add %c, %r dim 1 : memref<8x4xf32, #sram>, memref<8xf32, #sram>
    tessel.vector_binary_imm max %c, 0.0, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_binary_imm div %c, 1.0, %c {imm_lhs} : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_fill 0.0, %a : memref<8x4xf32, #sram>
    tessel.vector_compare gt %a, %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_select %a, %c, %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_unary copy %c, %a : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    %half = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    %yhalf = memref.subview %y[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #dram> to memref<4x4xf32, strided<[4, 1]>, #dram>
    %t2 = tessel.dma %half to %yhalf : memref<4x4xf32, strided<[4, 1]>, #sram> to memref<4x4xf32, strided<[4, 1]>, #dram>
    %t3 = tessel.dma %c to %in : memref<8x4xf32, #sram> to memref<8x4xf32, #sram>
    tessel.wait %t2, %t3
    %m = tessel.dma_multicast %x to %a, %in channel 0 slot 0 : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    %m2 = tessel.dma_multicast %x to %a, %in after %free, %done channel 1 : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.wait %m
    %rows = memref.reinterpret_cast %x to offset: [0], sizes: [2, 4], strides: [0, 1] : memref<8x4xf32, #dram> to memref<2x4xf32, strided<[0, 1]>, #dram>
    %g = tessel.dma_gather %rows[%ids] rows 8 index_stride 4 to %gathered channel 1 slot 0 : memref<2x4xf32, strided<[0, 1]>, #dram>, memref<2x4xi64, strided<[1, 0]>, #sram> to memref<2x4xf32, #sram>
    tessel.wait %g
    tessel.fence
    tessel.signal %ready
    tessel.wait_semaphore %done for 2
  }
  tessel.core(%t01) {
    tessel.wait_semaphore %ready
    tessel.signal %done by 2
  }
  tessel.core(%t11) {
    tessel.matmul %q, %qw, %acc : memref<8x4xi8, #sram>, memref<4x4xi8, #sram>, memref<8x4xi32, #sram>
  }
}

// The grid attribute stands on its own, qualified.
// CHECK-LABEL: func.func @grid_attr
// CHECK-SAME:    grid = #tessel.grid<16, 16>
func.func @grid_attr() attributes {grid = #tessel.grid<16, 16>} {
  return
}

// A mapping prints its optional fields only when set: the stage when not 0,
// the steps and the order when given, `resident`, `shared` and `on_chip`
// when set (the optional fields parse in any order).
// CHECK-LABEL: func.func @mapping_attrs
// CHECK-SAME:    kept = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1], shared, on_chip>
// CHECK-SAME:    ordered = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1], steps = [4, 4, 8], order = [2, 1, 0], shared>
// CHECK-SAME:    plain = #tessel.mapping<row = 0, col = 1, rows = 1, cols = 2, parts = [2, 1]>
// CHECK-SAME:    resident = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1], stage = 2, steps = [4, 8], resident>
// CHECK-SAME:    shared = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1], resident, shared>
// CHECK-SAME:    staged = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [1, 2], stage = 1, steps = [8, 4]>
// CHECK-SAME:    stepped = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1], steps = [8, 8]>
func.func @mapping_attrs() attributes {
    plain = #tessel.mapping<row = 0, col = 1, rows = 1, cols = 2, parts = [2, 1], stage = 0>,
    kept = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1], on_chip, shared>,
    ordered = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1], shared, order = [2, 1, 0], steps = [4, 4, 8]>,
    staged = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [1, 2], steps = [8, 4], stage = 1>,
    resident = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1], resident, steps = [4, 8], stage = 2>,
    shared = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1], shared, resident>,
    stepped = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1], steps = [8, 8]>} {
  return
}

// A padded view, on tensors and on DRAM memrefs.
// CHECK-LABEL: func.func @pad_view
// CHECK:         tessel.pad_view %{{.+}} low [0, 1] high [0, 2] value 0.000000e+00 : tensor<4x8xf32> to tensor<4x11xf32>
// CHECK:         tessel.pad_view %{{.+}} low [1, 1] high [1, 1] value 0xFF800000 : memref<4x8xf32, #dram> to memref<6x10xf32, #dram>
func.func @pad_view(%x: tensor<4x8xf32>, %m: memref<4x8xf32, #dram>) -> tensor<4x11xf32> {
  %p = tessel.pad_view %x low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> to tensor<4x11xf32>
  %v = tessel.pad_view %m low [1, 1] high [1, 1] value 0xFF800000 : memref<4x8xf32, #dram> to memref<6x10xf32, #dram>
  return %p : tensor<4x11xf32>
}

// A transposed view of a tensor.
// CHECK-LABEL: func.func @transpose_view
// CHECK:         tessel.transpose_view %{{.+}} permutation [0, 2, 1, 3] : tensor<1x128x12x64xf32> to tensor<1x12x128x64xf32>
func.func @transpose_view(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32> {
  %t = tessel.transpose_view %x permutation [0, 2, 1, 3] : tensor<1x128x12x64xf32> to tensor<1x12x128x64xf32>
  return %t : tensor<1x12x128x64xf32>
}

// CHECK-LABEL: func.func private @types(!tessel.tile, !tessel.token, !tessel.semaphore)
func.func private @types(!tessel.tile, !tessel.token, !tessel.semaphore)
}
