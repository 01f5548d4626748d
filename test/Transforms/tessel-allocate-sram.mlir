// RUN: tessel-opt %s -split-input-file -tessel-allocate-sram -verify-diagnostics | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// 16 KiB of SRAM per tile, 64-byte alignment.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Allocations become views of one arena per tile; a freed range is reused
// (first fit), and the arena is as large as the most that is live at once.
// CHECK-LABEL: tessel.device @reuse
// CHECK:         %[[ARENA:.+]] = tessel.buffer @sram_0_0 on %tile_0_0 at 0 : memref<8192xi8, #sram>
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           memref.view %[[ARENA]][%c0][] : memref<8192xi8, #sram> to memref<32x32xf32, #sram>
// CHECK:           memref.view %[[ARENA]][%c4096][] : memref<8192xi8, #sram> to memref<32x32xf32, #sram>
// The first range is free again: the third allocation takes it, rounded up
// from 40 to 64 bytes; the fourth goes after it.
// CHECK:           memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8, #sram> to memref<10xf32, #sram>
// CHECK:           memref.view %[[ARENA]][%c64][] : memref<8192xi8, #sram> to memref<4xf32, #sram>
// CHECK-NOT:       memref.dealloc
// CHECK-NOT:       memref.alloc
tessel.device @reuse arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<32x32xf32, #dram>
  tessel.core(%t) {
    %a = memref.alloc() : memref<32x32xf32, #sram>
    %b = memref.alloc() : memref<32x32xf32, #sram>
    %d = tessel.dma %x to %a : memref<32x32xf32, #dram> to memref<32x32xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %a, %b : memref<32x32xf32, #sram>, memref<32x32xf32, #sram>
    memref.dealloc %a : memref<32x32xf32, #sram>
    %c = memref.alloc() : memref<10xf32, #sram>
    %e = memref.alloc() : memref<4xf32, #sram>
    tessel.vector_fill 0.0, %c : memref<10xf32, #sram>
    tessel.vector_fill 1.0, %e : memref<4xf32, #sram>
    memref.dealloc %b : memref<32x32xf32, #sram>
    memref.dealloc %c : memref<10xf32, #sram>
    memref.dealloc %e : memref<4xf32, #sram>
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @overflow arch #tiny {
  %t = tessel.tile(1, 0)
  tessel.core(%t) {
    %a = memref.alloc() : memref<64x64xf32, #sram>
    // expected-error @+1 {{'memref.alloc' op does not fit in the SRAM of tile (1, 0): the buffers live here need 16448 bytes and the SRAM holds 16384 bytes}}
    %b = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_fill 0.0, %a : memref<64x64xf32, #sram>
    tessel.vector_fill 0.0, %b : memref<16xf32, #sram>
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Largest first would put %d (256 bytes) at 0, %a above it, %b at 0 and %c
// above %a: 576 bytes. In program order %d, which outlives only %a, takes
// the range %b and %c freed: 512 bytes, so that placement is kept.
// CHECK-LABEL: tessel.device @program_order_packs_tighter
// CHECK:         tessel.buffer @sram_0_0 on %tile_0_0 at 0 : memref<512xi8, #sram>
// CHECK:           memref.view %{{.+}}[%c0{{.*}}][] : memref<512xi8, #sram> to memref<48xf32, #sram>
// CHECK:           memref.view %{{.+}}[%c192{{.*}}][] : memref<512xi8, #sram> to memref<48xf32, #sram>
// CHECK:           memref.view %{{.+}}[%c384{{.*}}][] : memref<512xi8, #sram> to memref<32xf32, #sram>
// CHECK:           memref.view %{{.+}}[%c192{{.*}}][] : memref<512xi8, #sram> to memref<64xf32, #sram>
tessel.device @program_order_packs_tighter arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %a = memref.alloc() : memref<48xf32, #sram>
    %b = memref.alloc() : memref<48xf32, #sram>
    %c = memref.alloc() : memref<32xf32, #sram>
    memref.dealloc %b : memref<48xf32, #sram>
    memref.dealloc %c : memref<32xf32, #sram>
    %d = memref.alloc() : memref<64xf32, #sram>
    memref.dealloc %a : memref<48xf32, #sram>
    memref.dealloc %d : memref<64xf32, #sram>
  }
}

// -----

// A slice another tile reads (tessel-keep-on-chip): its buffer without an
// address becomes, in the reader's core, a view of the holder's arena
// where the holder's allocation was placed.
// CHECK-LABEL: tessel.device @held
// CHECK-NOT:     tessel.buffer @h.held0
// CHECK:         %[[ARENA0:.+]] = tessel.buffer @sram_0_0 on %tile_0_0 at 0 : memref<512xi8, #sram>
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           memref.view %[[ARENA0]][%c256][] : memref<512xi8, #sram> to memref<8x8xf32, #sram>
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           %[[SHIFT:.+]] = arith.constant 256 : index
// CHECK:           %[[HELD:.+]] = memref.view %[[ARENA0]][%[[SHIFT]]][] : memref<512xi8, #sram> to memref<8x8xf32, #sram>
// CHECK:           tessel.dma %[[HELD]] to
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @held arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %held = tessel.buffer @h.held0 on %t0 : memref<8x8xf32, #sram>
  tessel.core(%t0) {
    %a = memref.alloc() : memref<8x8xf32, #sram>
    %h = memref.alloc() {tessel.held_as = @h.held0} : memref<8x8xf32, #sram>
    tessel.vector_fill 0.0, %a : memref<8x8xf32, #sram>
    tessel.vector_unary exp %a, %h : memref<8x8xf32, #sram>, memref<8x8xf32, #sram>
    memref.dealloc %a : memref<8x8xf32, #sram>
    memref.dealloc %h : memref<8x8xf32, #sram>
  }
  tessel.core(%t1) {
    %b = memref.alloc() : memref<8x8xf32, #sram>
    %d = tessel.dma %held to %b : memref<8x8xf32, #sram> to memref<8x8xf32, #sram>
    tessel.wait %d
    memref.dealloc %b : memref<8x8xf32, #sram>
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @unplaced arch #tiny {
  %t0 = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op has no address and no SRAM allocation names it in 'tessel.held_as'; it is a slice tessel-keep-on-chip keeps, placed with its allocation}}
  %held = tessel.buffer @h.held0 on %t0 : memref<8x8xf32, #sram>
  tessel.core(%t0) {
    %b = memref.alloc() : memref<8x8xf32, #sram>
    %d = tessel.dma %held to %b : memref<8x8xf32, #sram> to memref<8x8xf32, #sram>
    tessel.wait %d
    memref.dealloc %b : memref<8x8xf32, #sram>
  }
}
