// RUN: tessel-opt %s -split-input-file -tessel-spread-stores | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// One tile with two DRAM channels of its own and two DMA channels: stores and
// loads share the channels. A piece is at least 4 x setup (2) x rate (8) x 2
// channels = 128 bytes; the array does 16 MACs a cycle, each cycle 16 bytes
// of DMA time. As tessel-schedule orders them, each step's loads go out
// before the previous step's products and are waited for after them.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// The 256-byte store and the next step's 64-byte load take the channels 20
// cycles; the products before that load's wait 4. Three runs of loads
// follow before the store's wait: the store leaves in two pieces of four
// rows, after the first and the second run (none after the last, whose step
// the wait follows). The last step's 40 products keep the tile's transfers
// (512 bytes) under its products (176 cycles, 2,816 bytes of DMA time).
// CHECK-LABEL: tessel.device @spread
// CHECK:         tessel.wait
// CHECK:         tessel.dma %{{.+}} to %[[A1:.+]] : memref<4x4xf32, #dram>
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[ACC:.+]][0, 0] [4, 8] [1, 1]
// CHECK-NEXT:    %[[D0:.+]] = memref.subview %[[Y:.+]][0, 0] [4, 8] [1, 1]
// CHECK-NEXT:    %[[P0:.+]] = tessel.dma %[[S0]] to %[[D0]] :
// CHECK:         tessel.dma %{{.+}} to %[[A2:.+]] : memref<4x4xf32, #dram>
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[ACC]][4, 0] [4, 8] [1, 1]
// CHECK-NEXT:    %[[D1:.+]] = memref.subview %[[Y]][4, 0] [4, 8] [1, 1]
// CHECK-NEXT:    %[[P1:.+]] = tessel.dma %[[S1]] to %[[D1]] :
// CHECK:         tessel.dma %{{.+}} to %[[A3:.+]] : memref<4x4xf32, #dram>
// CHECK-NOT:     tessel.dma
// CHECK:         tessel.matmul %[[A3]]
// CHECK:         tessel.wait %[[P0]], %[[P1]]
tessel.device @spread arch #tiny {
  %t = tessel.tile(0, 0)
  %sem = tessel.semaphore on %t
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x4xf32, #sram>
    %c = memref.alloc() : memref<4x4xf32, #sram>
    %a0 = memref.alloc() : memref<4x4xf32, #sram>
    %l0 = tessel.dma %x to %a0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %l0
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %a1 = memref.alloc() : memref<4x4xf32, #sram>
    %l1 = tessel.dma %x to %a1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l1
    %a2 = memref.alloc() : memref<4x4xf32, #sram>
    %l2 = tessel.dma %x to %a2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l2
    %a3 = memref.alloc() : memref<4x4xf32, #sram>
    %l3 = tessel.dma %x to %a3 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a2, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l3
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// One run of loads before the wait: the whole store goes out after it.
// CHECK-LABEL: tessel.device @after_one_run
// CHECK:         tessel.wait
// CHECK:         %[[L1:.+]] = tessel.dma %{{.+}} to %[[A1:.+]] : memref<4x4xf32, #dram>
// CHECK-NEXT:    %[[S:.+]] = tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
// CHECK:         tessel.wait %[[L1]]
// CHECK:         tessel.wait %[[S]]
tessel.device @after_one_run arch #tiny {
  %t = tessel.tile(0, 0)
  %sem = tessel.semaphore on %t
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x4xf32, #sram>
    %c = memref.alloc() : memref<4x4xf32, #sram>
    %a0 = memref.alloc() : memref<4x4xf32, #sram>
    %l0 = tessel.dma %x to %a0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %l0
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %a1 = memref.alloc() : memref<4x4xf32, #sram>
    %l1 = tessel.dma %x to %a1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l1
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// The steps of @spread without the long last step: the tile's transfers (512
// bytes) take its channels longer than its products take the array (16
// cycles, 256 bytes of DMA time), every order of them keeps the channels
// busy, and the store stays where it is.
// CHECK-LABEL: tessel.device @dram_bound
// CHECK:         tessel.wait
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
// CHECK-NOT:     strided
tessel.device @dram_bound arch #tiny {
  %t = tessel.tile(0, 0)
  %sem = tessel.semaphore on %t
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x4xf32, #sram>
    %c = memref.alloc() : memref<4x4xf32, #sram>
    %a0 = memref.alloc() : memref<4x4xf32, #sram>
    %l0 = tessel.dma %x to %a0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %l0
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %a1 = memref.alloc() : memref<4x4xf32, #sram>
    %l1 = tessel.dma %x to %a1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l1
    %a2 = memref.alloc() : memref<4x4xf32, #sram>
    %l2 = tessel.dma %x to %a2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l2
    %a3 = memref.alloc() : memref<4x4xf32, #sram>
    %l3 = tessel.dma %x to %a3 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a2, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l3
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// Stores that stay where they are: one whose next run's loads are waited
// for after twelve products (48 cycles, 768 bytes of DMA time; the store and
// the load move 320); one before a signal.
// CHECK-LABEL: tessel.device @whole
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
// CHECK-NEXT:    %{{.+}} = memref.alloc()
// CHECK-NEXT:    tessel.dma %x
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
// CHECK-NEXT:    tessel.signal
// CHECK-NOT:     strided
tessel.device @whole arch #tiny {
  %t = tessel.tile(0, 0)
  %sem = tessel.semaphore on %t
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  %z = tessel.dram_buffer @z output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x4xf32, #sram>
    %c = memref.alloc() : memref<4x4xf32, #sram>
    %a0 = memref.alloc() : memref<4x4xf32, #sram>
    %l0 = tessel.dma %x to %a0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %l0
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %a1 = memref.alloc() : memref<4x4xf32, #sram>
    %l1 = tessel.dma %x to %a1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l1
    %a2 = memref.alloc() : memref<4x4xf32, #sram>
    %l2 = tessel.dma %x to %a2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l2
    tessel.matmul %a2, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s
    %acc2 = memref.alloc() : memref<8x8xf32, #sram>
    %s2 = tessel.dma %acc2 to %z : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.signal %sem
    %b1 = memref.alloc() : memref<4x4xf32, #sram>
    %m1 = tessel.dma %x to %b1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %m1
    %b2 = memref.alloc() : memref<4x4xf32, #sram>
    %m2 = tessel.dma %x to %b2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %b1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %m2
    tessel.matmul %b2, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s2
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 4, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// With four DMA channels for its two DRAM channels the tile stores on channels
// its loads do not use (tessel-split-transfers): the store stays where it is.
// CHECK-LABEL: tessel.device @own_channels
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
// CHECK-NEXT:    %{{.+}} = memref.alloc()
// CHECK-NEXT:    tessel.dma %x
tessel.device @own_channels arch #tiny {
  %t = tessel.tile(0, 0)
  %sem = tessel.semaphore on %t
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x4xf32, #sram>
    %c = memref.alloc() : memref<4x4xf32, #sram>
    %a0 = memref.alloc() : memref<4x4xf32, #sram>
    %l0 = tessel.dma %x to %a0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %l0
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %a1 = memref.alloc() : memref<4x4xf32, #sram>
    %l1 = tessel.dma %x to %a1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a0, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l1
    %a2 = memref.alloc() : memref<4x4xf32, #sram>
    %l2 = tessel.dma %x to %a2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a1, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l2
    %a3 = memref.alloc() : memref<4x4xf32, #sram>
    %l3 = tessel.dma %x to %a3 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.matmul %a2, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %l3
    tessel.matmul %a3, %w, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
    tessel.wait %s
  }
}
