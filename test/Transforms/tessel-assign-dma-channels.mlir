// RUN: tessel-opt %s -split-input-file -tessel-assign-dma-channels | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// Two tiles, 3 DMA channels each.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Transfers without a channel take the engine's 3 channels in turn, in
// program order, each core counting its own; a channel already named is
// kept and not counted. Multicasts and gathers count like loads.
// CHECK-LABEL: tessel.device @in_turn
// CHECK:         tessel.core(%{{.+}}) {
// CHECK:           tessel.dma {{.+}} channel 0 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 2 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.dma_multicast {{.+}} channel 2 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 0 :
// CHECK:         tessel.core(%{{.+}}) {
// CHECK:           tessel.dma {{.+}} channel 0 :
tessel.device @in_turn arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<8xf32, #sram>
  %b = tessel.buffer @b on %t1 at 0 : memref<8xf32, #sram>
  %ready = tessel.semaphore on %t1
  tessel.core(%t0) {
    %0 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %1 = tessel.dma %x to %a channel 2 : memref<8xf32, #dram> to memref<8xf32, #sram>
    %2 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %3 = tessel.dma_multicast %x to %a, %b : memref<8xf32, #dram> to memref<8xf32, #sram>, memref<8xf32, #sram>
    %4 = tessel.dma %a to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %0, %1, %2, %3, %4
    tessel.signal %ready
  }
  tessel.core(%t1) {
    tessel.wait_semaphore %ready
    %0 = tessel.dma %b to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %0
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Loads issued early (tessel-schedule) take their turn and hold their
// channel until they are waited for: while %0 and %1 hold channels 0 and 1,
// the other transfers take channel 2, and once both are waited for, the
// channels are taken in turn again. The mark is gone afterwards.
// CHECK-LABEL: tessel.device @issued_early
// CHECK:           tessel.dma {{.+}} channel 0 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 2 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 2 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 2 :
// CHECK-NEXT:      tessel.wait
// CHECK-NEXT:      tessel.dma {{.+}} channel 0 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NOT:       tessel.issued_early
tessel.device @issued_early arch #tiny {
  %t0 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<8xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<8xf32, #sram>
  %b = tessel.buffer @b on %t0 at 64 : memref<8xf32, #sram>
  %c = tessel.buffer @c on %t0 at 128 : memref<8xf32, #sram>
  tessel.core(%t0) {
    %0 = tessel.dma %w to %b {tessel.issued_early} : memref<8xf32, #dram> to memref<8xf32, #sram>
    %1 = tessel.dma %w to %c {tessel.issued_early} : memref<8xf32, #dram> to memref<8xf32, #sram>
    %2 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %3 = tessel.dma %a to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    %4 = tessel.dma %a to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %0, %1
    %5 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %6 = tessel.dma %b to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %2, %3, %4, %5, %6
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A multicast issued early (a load both tiles make, tessel-share-loads)
// holds its channel as a load does: the transfers before its wait take the
// other one.
// CHECK-LABEL: tessel.device @multicast_issued_early
// CHECK:           tessel.dma_multicast {{.+}} channel 0 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.wait
// CHECK-NEXT:      tessel.dma {{.+}} channel 0 :
// CHECK-NOT:       tessel.issued_early
tessel.device @multicast_issued_early arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<8xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<8xf32, #sram>
  %b = tessel.buffer @b on %t0 at 64 : memref<8xf32, #sram>
  %b1 = tessel.buffer @b1 on %t1 at 64 : memref<8xf32, #sram>
  tessel.core(%t0) {
    %0 = tessel.dma_multicast %w to %b, %b1 {tessel.issued_early} : memref<8xf32, #dram> to memref<8xf32, #sram>, memref<8xf32, #sram>
    %1 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %2 = tessel.dma %a to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %0
    %3 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    tessel.wait %1, %2, %3
  }
  tessel.core(%t1) {
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Where every channel holds a load issued early (a classifier's weights on
// channel 0, its bias on channel 1), the transfers before their waits take
// the channel whose early loads move the fewest bytes, not their turn: the
// store would queue behind the weights.
// CHECK-LABEL: tessel.device @every_channel_held
// CHECK:           tessel.dma {{.+}} channel 0 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.dma {{.+}} channel 1 :
// CHECK-NEXT:      tessel.wait
tessel.device @every_channel_held arch #tiny {
  %t0 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<8xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<512xf32, #dram>
  %bias = tessel.dram_buffer @bias weight : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<8xf32, #sram>
  %b = tessel.buffer @b on %t0 at 64 : memref<512xf32, #sram>
  %c = tessel.buffer @c on %t0 at 4096 : memref<8xf32, #sram>
  tessel.core(%t0) {
    %0 = tessel.dma %w to %b {tessel.issued_early} : memref<512xf32, #dram> to memref<512xf32, #sram>
    %1 = tessel.dma %bias to %c {tessel.issued_early} : memref<8xf32, #dram> to memref<8xf32, #sram>
    %2 = tessel.dma %x to %a : memref<8xf32, #dram> to memref<8xf32, #sram>
    %3 = tessel.dma %a to %x : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %0, %1, %2, %3
  }
}
