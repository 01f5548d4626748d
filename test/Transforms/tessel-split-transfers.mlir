// RUN: tessel-opt %s -split-input-file -tessel-split-transfers | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// One tile, two DRAM channels at its corner, two DMA channels: both
// channels are its own.
#one = #tessel.arch<{name = "one", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// A store of 5 rows is cut along its rows into 3 + 2, one piece per DMA
// channel; the wait takes both pieces, beside the token it already had. A
// load of one row of 8 elements (32 bytes, less than one piece's minimum
// of setup x rate = 80 bytes) stays whole, as does a transfer that names
// its channel.
// CHECK-LABEL: tessel.device @store
// CHECK:         %[[S0:.+]] = memref.subview %[[SRC:.+]][0, 0] [3, 8] [1, 1]
// CHECK:         %[[D0:.+]] = memref.subview %[[DST:.+]][0, 0] [3, 8] [1, 1]
// CHECK:         %[[T0:.+]] = tessel.dma %[[S0]] to %[[D0]] channel 0
// CHECK:         %[[S1:.+]] = memref.subview %[[SRC]][3, 0] [2, 8] [1, 1]
// CHECK:         %[[D1:.+]] = memref.subview %[[DST]][3, 0] [2, 8] [1, 1]
// CHECK:         %[[T1:.+]] = tessel.dma %[[S1]] to %[[D1]] channel 1
// CHECK:         %[[L:.+]] = tessel.dma %{{.+}} to %{{.+}} :
// CHECK:         %[[N:.+]] = tessel.dma %{{.+}} to %{{.+}} channel 1 :
// CHECK:         tessel.wait %[[T0]], %[[T1]], %[[L]], %[[N]]
tessel.device @store arch #one {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<5x8xf32, #dram>
  %x = tessel.dram_buffer @x input : memref<1x8xf32, #dram>
  %z = tessel.dram_buffer @z output : memref<5x8xf32, #dram>
  %arena = tessel.buffer @sram_0_0 on %t at 0 : memref<512xi8, #sram>
  tessel.core(%t) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %b = memref.view %arena[%c0][] : memref<512xi8, #sram> to memref<5x8xf32, #sram>
    %e = memref.view %arena[%c256][] : memref<512xi8, #sram> to memref<1x8xf32, #sram>
    %s = tessel.dma %b to %y : memref<5x8xf32, #sram> to memref<5x8xf32, #dram>
    %l = tessel.dma %x to %e : memref<1x8xf32, #dram> to memref<1x8xf32, #sram>
    %n = tessel.dma %b to %z channel 1 : memref<5x8xf32, #sram> to memref<5x8xf32, #dram>
    tessel.wait %s, %l, %n
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// Two tiles nearest to the same two DRAM channels: neither has them to
// itself, so their transfers stay whole.
#two = #tessel.arch<{name = "two", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 1]]}}>

// CHECK-LABEL: tessel.device @shared_channels
// CHECK:         %[[T:.+]] = tessel.dma %{{.+}} to %{{.+}} :
// CHECK-NEXT:    tessel.wait %[[T]]
tessel.device @shared_channels arch #two {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<5x8xf32, #dram>
  %arena = tessel.buffer @sram_0_0 on %t at 0 : memref<512xi8, #sram>
  tessel.core(%t) {
    %c0 = arith.constant 0 : index
    %b = memref.view %arena[%c0][] : memref<512xi8, #sram> to memref<5x8xf32, #sram>
    %s = tessel.dma %b to %y : memref<5x8xf32, #sram> to memref<5x8xf32, #dram>
    tessel.wait %s
  }
}
