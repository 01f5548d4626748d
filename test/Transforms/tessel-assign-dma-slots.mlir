// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-assign-dma-slots | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A transfer takes the lowest slot no pending transfer holds; a wait frees
// the slots of its tokens (a second wait on a token frees nothing); a slot
// given is kept and skipped while it is held.
// CHECK-LABEL: tessel.device @lowest_free
// CHECK:         %[[A:.+]] = tessel.dma {{.+}} slot 0 :
// CHECK-NEXT:    %[[B:.+]] = tessel.dma {{.+}} slot 1 :
// CHECK-NEXT:    %[[C:.+]] = tessel.dma {{.+}} slot 2 :
// CHECK-NEXT:    tessel.wait %[[B]]
// CHECK-NEXT:    %[[D:.+]] = tessel.dma {{.+}} slot 1 :
// CHECK-NEXT:    tessel.wait %[[A]], %[[B]]
// CHECK-NEXT:    %[[E:.+]] = tessel.dma {{.+}} slot 0 :
// CHECK-NEXT:    %[[F:.+]] = tessel.dma {{.+}} slot 3 :
// CHECK-NEXT:    tessel.wait %[[C]], %[[D]], %[[E]], %[[F]]
tessel.device @lowest_free arch #tiny {
  %t0 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<8xf32, #sram>
  tessel.core(%t0) {
    %0 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %1 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %2 = tessel.dma %x to %a slot 2 : memref<8xf32, #dram> to memref<8xf32, #sram>
    tessel.wait %1
    %3 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    tessel.wait %0, %1
    %4 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %5 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    tessel.wait %2, %3, %4, %5
  }
}
