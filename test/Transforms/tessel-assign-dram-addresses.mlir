// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-assign-dram-addresses | FileCheck %s

#dram = #tessel.memory_space<dram>
// Two tiles, 3 DMA channels each, 1 MiB of DRAM.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Buffers with an address keep it; the others take, in declaration order,
// the lowest multiple of 64 bytes free of both: @a's 128 bytes fit below
// @fixed, @b's 256 do not fit in the 128 left there and go after @fixed, @c
// (8 bytes) takes the gap, an empty buffer overlaps nothing.
// CHECK-LABEL: tessel.device @first_fit
// CHECK:         tessel.dram_buffer @a input at 0 : memref<32xf32, #dram>
// CHECK:         tessel.dram_buffer @fixed weight at 256 : memref<16xf32, #dram>
// CHECK:         tessel.dram_buffer @b scratch at 320 : memref<64xf32, #dram>
// CHECK:         tessel.dram_buffer @c output at 128 : memref<2xf32, #dram>
// CHECK:         tessel.dram_buffer @empty scratch at 0 : memref<0xf32, #dram>
// CHECK:         tessel.dram_buffer @d output at 192 : memref<8xi8, #dram>
tessel.device @first_fit arch #tiny {
  %a = tessel.dram_buffer @a input : memref<32xf32, #dram>
  %fixed = tessel.dram_buffer @fixed weight at 256 : memref<16xf32, #dram>
  %b = tessel.dram_buffer @b scratch : memref<64xf32, #dram>
  %c = tessel.dram_buffer @c output : memref<2xf32, #dram>
  %empty = tessel.dram_buffer @empty scratch : memref<0xf32, #dram>
  %d = tessel.dram_buffer @d output : memref<8xi8, #dram>
}

// -----

#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The buffers fit the 1 MiB DRAM together, but @fixed at 512 KiB leaves no
// room for @a's 600 KiB on either side.
tessel.device @full arch #tiny {
  %fixed = tessel.dram_buffer @fixed weight at 524288 : memref<16xf32, #dram>
  // expected-error @+1 {{'tessel.dram_buffer' op does not fit in DRAM: its 614400 bytes would start at 524352 (the lowest offset free of the buffers placed before it) and the DRAM holds 1048576 bytes}}
  %a = tessel.dram_buffer @a input : memref<153600xf32, #dram>
}
