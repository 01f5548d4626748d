// RUN: tessel-opt %s -split-input-file -tessel-early-stores | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// A 4 x 4 array; a piece is at least 4 x setup (2) x rate (8) = 64 bytes.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two blocks of four columns each: the first block's columns (128 bytes)
// leave right after its product, the second's where the store was; the
// wait takes both pieces. Rows are not cut: the last product writes every
// row.
// CHECK-LABEL: tessel.device @columns
// CHECK:         tessel.matmul %[[X:.+]], %{{.+}}, %[[C0:.+]] :
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[ACC:.+]][0, 0] [8, 4] [1, 1]
// CHECK-NEXT:    %[[D0:.+]] = memref.subview %[[Y:.+]][0, 0] [8, 4] [1, 1]
// CHECK-NEXT:    %[[T0:.+]] = tessel.dma %[[S0]] to %[[D0]] :
// CHECK:         tessel.matmul %[[X]], %{{.+}}, %[[C1:.+]] :
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[ACC]][0, 4] [8, 4] [1, 1]
// CHECK-NEXT:    %[[D1:.+]] = memref.subview %[[Y]][0, 4] [8, 4] [1, 1]
// CHECK-NEXT:    %[[T1:.+]] = tessel.dma %[[S1]] to %[[D1]] :
// CHECK-NEXT:    tessel.wait %[[T0]], %[[T1]]
tessel.device @columns arch #tiny {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Stores that stay whole: past a signal (the first block's columns may not
// leave before it), after an elementwise op over the whole result (every
// column final at once), after a load of the DRAM buffer stored into, and
// pieces under 64 bytes (two rows of 4 x 2 elements, 32 bytes each).
// CHECK-LABEL: tessel.device @whole
// CHECK-NOT:     tessel.dma {{.*}}strided
// CHECK:         tessel.wait
tessel.device @whole arch #tiny {
  %t = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %sem = tessel.semaphore on %t1
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  %z = tessel.dram_buffer @z output : memref<8x8xf32, #dram>
  %u = tessel.dram_buffer @u output : memref<8x8xf32, #dram>
  %v = tessel.dram_buffer @v output : memref<8x8xf32, #dram>
  %q = tessel.dram_buffer @q output : memref<2x8xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    // A signal between the blocks.
    %a = memref.alloc() : memref<8x8xf32, #sram>
    %a0 = memref.subview %a[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x, %w0, %a0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.signal %sem
    tessel.matmul %x, %w1, %a1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %sa = tessel.dma %a to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    // An elementwise op over the whole result.
    %b = memref.alloc() : memref<8x8xf32, #sram>
    %b0 = memref.subview %b[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %b1 = memref.subview %b[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x, %w0, %b0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul %x, %w1, %b1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.vector_unary exp %b, %b : memref<8x8xf32, #sram>, memref<8x8xf32, #sram>
    %sb = tessel.dma %b to %z : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    // A load of the DRAM buffer stored into, between the blocks.
    %c = memref.alloc() : memref<8x8xf32, #sram>
    %c0 = memref.subview %c[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %c1 = memref.subview %c[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %e = memref.alloc() : memref<8x8xf32, #sram>
    tessel.matmul %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %l = tessel.dma %u to %e : memref<8x8xf32, #dram> to memref<8x8xf32, #sram>
    tessel.matmul %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %sc = tessel.dma %c to %u : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    // The blocks' pieces under the minimum.
    %d = memref.alloc() : memref<2x8xf32, #sram>
    %x2 = memref.alloc() : memref<2x4xf32, #sram>
    %d0 = memref.subview %d[0, 0] [2, 4] [1, 1] : memref<2x8xf32, #sram> to memref<2x4xf32, strided<[8, 1]>, #sram>
    %d1 = memref.subview %d[0, 4] [2, 4] [1, 1] : memref<2x8xf32, #sram> to memref<2x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x2, %w0, %d0 : memref<2x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<2x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul %x2, %w1, %d1 : memref<2x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<2x4xf32, strided<[8, 1], offset: 4>, #sram>
    %sd = tessel.dma %d to %q : memref<2x8xf32, #sram> to memref<2x8xf32, #dram>
    tessel.wait %sa, %sb, %sc, %sd, %l
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// Two DRAM channels of the tile's own, two DMA channels: no second group, so
// the channels run transfers in issue order. Four MACs a cycle: each 8 x 4 x
// 4 product takes 32 cycles.
#own = #tessel.arch<{name = "own", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 4}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// Only the core's last store is cut (nothing queues behind it); the earlier
// one stays whole. The core's transfers (320 bytes, 20 cycles at 16 bytes a
// cycle) take less than its products (64 cycles).
// CHECK-LABEL: tessel.device @last_only
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<4x4xf32, #sram> to memref<4x4xf32, #dram>
// CHECK:         tessel.matmul
// CHECK-NEXT:    memref.subview %{{.+}}[0, 0] [8, 4] [1, 1]
// CHECK-NEXT:    memref.subview %{{.+}}[0, 0] [8, 4] [1, 1]
// CHECK-NEXT:    %[[T0:.+]] = tessel.dma
// CHECK:         tessel.matmul
// CHECK-NEXT:    memref.subview %{{.+}}[0, 4] [8, 4] [1, 1]
// CHECK-NEXT:    memref.subview %{{.+}}[0, 4] [8, 4] [1, 1]
// CHECK-NEXT:    %[[T1:.+]] = tessel.dma
// CHECK-NEXT:    tessel.wait %{{.+}}, %[[T0]], %[[T1]]
tessel.device @last_only arch #own {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  %z = tessel.dram_buffer @z output : memref<4x4xf32, #dram>
  tessel.core(%t) {
    %e = memref.alloc() : memref<4x4xf32, #sram>
    %se = tessel.dma %e to %z : memref<4x4xf32, #sram> to memref<4x4xf32, #dram>
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %se, %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#own = #tessel.arch<{name = "own", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 4}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// The same tile, its transfers (1,280 bytes, 80 cycles) longer than its
// products (64 cycles): the channels are busy in any order, and the pieces'
// setups and latencies would only add. The last store stays whole.
// CHECK-LABEL: tessel.device @dram_bound
// CHECK-NOT:     tessel.dma {{.*}}strided
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
tessel.device @dram_bound arch #own {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  %big = tessel.dram_buffer @big input : memref<256xf32, #dram>
  tessel.core(%t) {
    %b = memref.alloc() : memref<256xf32, #sram>
    %l = tessel.dma %big to %b : memref<256xf32, #dram> to memref<256xf32, #sram>
    tessel.wait %l
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// Two weight buffers: a run of blocks pays one fill.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two blocks (two taps, say) accumulate into all 64 rows of the stored
// slice: taken block by block, no row is final before the second. Taken
// in four groups of 16 rows, each through both blocks, the first three
// groups' 768 bytes leave while the next are computed: 96 cycles at the
// core's share of the DRAM (8 bytes a cycle, one core), against the 24
// cycles the smaller blocks add at the SRAM port (8 blocks of 36 cycles
// for 2 of 132). Two groups would save 56 cycles, three 69. Each group
// keeps the `init` of the first block.
// CHECK-LABEL: tessel.device @taps
// CHECK:         %[[X0:.+]] = memref.subview %{{.+}}[0, 0] [64, 4] [1, 1]
// CHECK-NOT:     tessel.matmul
// CHECK:         %[[X1:.+]] = memref.subview %{{.+}}[0, 4] [64, 4] [1, 1]
// CHECK-NOT:     tessel.matmul
// CHECK:         %[[R0:.+]] = memref.subview %[[X0]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A0:.+]] = memref.subview %[[ACC:.+]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul init %[[R0]], %[[W0:.+]], %[[A0]] :
// CHECK-NEXT:    %[[R1:.+]] = memref.subview %[[X1]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A1:.+]] = memref.subview %[[ACC]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul %[[R1]], %[[W1:.+]], %[[A1]] :
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[ACC]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[D0:.+]] = memref.subview %[[Y:.+]][0, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[T0:.+]] = tessel.dma %[[S0]] to %[[D0]] :
// CHECK-NEXT:    %[[R2:.+]] = memref.subview %[[X0]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A2:.+]] = memref.subview %[[ACC]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul init %[[R2]], %[[W0]], %[[A2]] :
// CHECK-NEXT:    %[[R3:.+]] = memref.subview %[[X1]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A3:.+]] = memref.subview %[[ACC]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul %[[R3]], %[[W1]], %[[A3]] :
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[ACC]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[D1:.+]] = memref.subview %[[Y]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[T1:.+]] = tessel.dma %[[S1]] to %[[D1]] :
// CHECK-NEXT:    %[[R4:.+]] = memref.subview %[[X0]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A4:.+]] = memref.subview %[[ACC]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul init %[[R4]], %[[W0]], %[[A4]] :
// CHECK-NEXT:    %[[R5:.+]] = memref.subview %[[X1]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A5:.+]] = memref.subview %[[ACC]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul %[[R5]], %[[W1]], %[[A5]] :
// CHECK-NEXT:    %[[S2:.+]] = memref.subview %[[ACC]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[D2:.+]] = memref.subview %[[Y]][32, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[T2:.+]] = tessel.dma %[[S2]] to %[[D2]] :
// CHECK-NEXT:    %[[R6:.+]] = memref.subview %[[X0]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A6:.+]] = memref.subview %[[ACC]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul init %[[R6]], %[[W0]], %[[A6]] :
// CHECK-NEXT:    %[[R7:.+]] = memref.subview %[[X1]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[A7:.+]] = memref.subview %[[ACC]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul %[[R7]], %[[W1]], %[[A7]] :
// CHECK-NEXT:    %[[S3:.+]] = memref.subview %[[ACC]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[D3:.+]] = memref.subview %[[Y]][48, 0] [16, 4] [1, 1]
// CHECK-NEXT:    %[[T3:.+]] = tessel.dma %[[S3]] to %[[D3]] :
// CHECK-NEXT:    tessel.wait %[[T0]], %[[T1]], %[[T2]], %[[T3]]
tessel.device @taps arch #tiny {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<64x4xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %acc = memref.alloc() : memref<64x4xf32, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, #sram>
    %s = tessel.dma %acc to %y : memref<64x4xf32, #sram> to memref<64x4xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same blocks over 16 rows: two groups would hide 16 cycles of the
// store for 8 more at the port, a saving under one transfer's setup and
// DRAM latency (52 cycles), which the estimate leaves out. The blocks keep
// their rows, and the store stays whole.
// CHECK-LABEL: tessel.device @taps_short
// CHECK-NOT:     [8, 4]
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<16x4xf32, #sram> to memref<16x4xf32, #dram>
tessel.device @taps_short arch #tiny {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<16x4xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<16x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %acc = memref.alloc() : memref<16x4xf32, #sram>
    %x0 = memref.subview %x[0, 0] [16, 4] [1, 1] : memref<16x8xf32, #sram> to memref<16x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<16x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<16x4xf32, #sram>
    %x1 = memref.subview %x[0, 4] [16, 4] [1, 1] : memref<16x8xf32, #sram> to memref<16x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<16x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<16x4xf32, #sram>
    %s = tessel.dma %acc to %y : memref<16x4xf32, #sram> to memref<16x4xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The 64-row blocks before a later step's compute: that compute hides the
// store whole, and the blocks keep their rows.
// CHECK-LABEL: tessel.device @taps_before_compute
// CHECK-NOT:     [16, 4]
// CHECK:         tessel.vector_fill
tessel.device @taps_before_compute arch #tiny {
  %t = tessel.tile(0, 0)
  %y = tessel.dram_buffer @y output : memref<64x4xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %acc = memref.alloc() : memref<64x4xf32, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, #sram>
    %s = tessel.dma %acc to %y : memref<64x4xf32, #sram> to memref<64x4xf32, #dram>
    %z = memref.alloc() : memref<16x8xf32, #sram>
    tessel.vector_fill 0.0, %z : memref<16x8xf32, #sram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The blocks of @taps write the transpose of the stored 4 x 64 slice, and a
// bias add and a ReLU stand between them and the store. The epilogue goes
// with the row groups: each group's blocks (rows of the accumulator), then
// the epilogue on the same elements (columns of the slice), then its piece
// of the store. The wait for the bias moves below the first group's
// blocks, the free of the sum after the last group's epilogue.
// CHECK-LABEL: tessel.device @taps_epilogue
// CHECK:         %[[L:.+]] = tessel.dma
// CHECK:         %[[B:.+]] = tessel.strided_view
// CHECK:         %[[OUT:.+]] = memref.alloc() : memref<4x64xf32, #sram>
// CHECK:         %[[ACC:.+]] = tessel.strided_view %[[OUT]]
// CHECK-NOT:     tessel.matmul
// CHECK:         %[[SUM:.+]] = memref.alloc() : memref<4x64xf32, #sram>
// CHECK-NOT:     tessel.vector
// CHECK:         tessel.matmul init %{{.+}}, %{{.+}}, %{{.+}} : memref<16x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<16x4xf32, strided<[1, 64]>, #sram>
// CHECK:         tessel.matmul %{{.+}}, %{{.+}}, %{{.+}} : memref<16x4xf32, strided<[8, 1], offset: 4>, #sram>
// CHECK-NEXT:    tessel.wait %[[L]]
// CHECK-NEXT:    %[[O0:.+]] = memref.subview %[[OUT]][0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    %[[B0:.+]] = memref.subview %[[B]][0, 0] [4, 16] [1, 1] : memref<4x64xf32, strided<[1, 0]>, #sram>
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[SUM]][0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    tessel.vector_binary add %[[O0]], %[[B0]], %[[S0]]
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[SUM]][0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    %[[O1:.+]] = memref.subview %[[OUT]][0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    tessel.vector_binary_imm max %[[S1]], 0.000000e+00, %[[O1]]
// CHECK-NEXT:    %[[P0:.+]] = memref.subview %[[OUT]][0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    %[[D0:.+]] = memref.subview %{{.+}}[0, 0] [4, 16] [1, 1]
// CHECK-NEXT:    %[[T0:.+]] = tessel.dma %[[P0]] to %[[D0]]
// CHECK-NEXT:    memref.subview %{{.+}}[16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    memref.subview %[[ACC]][16, 0] [16, 4] [1, 1]
// CHECK-NEXT:    tessel.matmul init
// CHECK:         tessel.matmul
// CHECK-NOT:     tessel.wait
// CHECK:         memref.subview %[[OUT]][0, 16] [4, 16] [1, 1]
// CHECK:         tessel.vector_binary add
// CHECK:         tessel.vector_binary_imm max
// CHECK:         %[[T1:.+]] = tessel.dma %{{.+}} : memref<4x16xf32, strided<[64, 1], offset: 16>, #sram>
// CHECK:         %[[T2:.+]] = tessel.dma %{{.+}} : memref<4x16xf32, strided<[64, 1], offset: 32>, #sram>
// CHECK:         tessel.vector_binary_imm max %{{.+}}, 0.000000e+00, %{{.+}} : memref<4x16xf32, strided<[64, 1], offset: 48>, #sram>
// CHECK:         %[[T3:.+]] = tessel.dma %{{.+}} : memref<4x16xf32, strided<[64, 1], offset: 48>, #sram>
// CHECK-NEXT:    memref.dealloc %[[SUM]]
// CHECK-NEXT:    tessel.wait %[[T0]], %[[T1]], %[[T2]], %[[T3]]
tessel.device @taps_epilogue arch #tiny {
  %t = tessel.tile(0, 0)
  %bias = tessel.dram_buffer @bias input : memref<4x1xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x64xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %b = memref.alloc() : memref<4x1xf32, #sram>
    %l = tessel.dma %bias to %b : memref<4x1xf32, #dram> to memref<4x1xf32, #sram>
    %bb = tessel.strided_view %b : memref<4x1xf32, #sram> to memref<4x64xf32, strided<[1, 0]>, #sram>
    %out = memref.alloc() : memref<4x64xf32, #sram>
    %acc = tessel.strided_view %out : memref<4x64xf32, #sram> to memref<64x4xf32, strided<[1, 64]>, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    tessel.wait %l
    %sum = memref.alloc() : memref<4x64xf32, #sram>
    tessel.vector_binary add %out, %bb, %sum : memref<4x64xf32, #sram>, memref<4x64xf32, strided<[1, 0]>, #sram>, memref<4x64xf32, #sram>
    tessel.vector_binary_imm max %sum, 0.0, %out : memref<4x64xf32, #sram>, memref<4x64xf32, #sram>
    memref.dealloc %sum : memref<4x64xf32, #sram>
    %s = tessel.dma %out to %y : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// @taps_epilogue with the ReLU as a compare and a select on a constant 0,
// one element read through zero strides (tessel-lower-to-instructions):
// the constant stays filled where it was, above the groups, which take
// the compare and the select with them.
// CHECK-LABEL: tessel.device @taps_epilogue_constant
// CHECK:         tessel.vector_fill 0.000000e+00, %[[Z:.+]] : memref<1xf32, #sram>
// CHECK:         tessel.matmul init
// CHECK:         tessel.vector_compare le
// CHECK:         tessel.vector_select
// CHECK:         tessel.dma %{{.+}} : memref<4x16xf32, strided<[64, 1]>, #sram>
// CHECK:         tessel.matmul init
// CHECK:         tessel.dma %{{.+}} : memref<4x16xf32, strided<[64, 1], offset: 16>, #sram>
tessel.device @taps_epilogue_constant arch #tiny {
  %t = tessel.tile(0, 0)
  %bias = tessel.dram_buffer @bias input : memref<4x1xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x64xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %b = memref.alloc() : memref<4x1xf32, #sram>
    %l = tessel.dma %bias to %b : memref<4x1xf32, #dram> to memref<4x1xf32, #sram>
    %bb = tessel.strided_view %b : memref<4x1xf32, #sram> to memref<4x64xf32, strided<[1, 0]>, #sram>
    %out = memref.alloc() : memref<4x64xf32, #sram>
    %acc = tessel.strided_view %out : memref<4x64xf32, #sram> to memref<64x4xf32, strided<[1, 64]>, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    tessel.wait %l
    %sum = memref.alloc() : memref<4x64xf32, #sram>
    tessel.vector_binary add %out, %bb, %sum : memref<4x64xf32, #sram>, memref<4x64xf32, strided<[1, 0]>, #sram>, memref<4x64xf32, #sram>
    %z1 = memref.alloc() : memref<1xf32, #sram>
    tessel.vector_fill 0.0, %z1 : memref<1xf32, #sram>
    %z = tessel.strided_view %z1 : memref<1xf32, #sram> to memref<4x64xf32, strided<[0, 0]>, #sram>
    %m = memref.alloc() : memref<4x64xf32, #sram>
    tessel.vector_compare le %sum, %z, %m : memref<4x64xf32, #sram>, memref<4x64xf32, strided<[0, 0]>, #sram>, memref<4x64xf32, #sram>
    tessel.vector_select %m, %z, %sum, %out : memref<4x64xf32, #sram>, memref<4x64xf32, strided<[0, 0]>, #sram>, memref<4x64xf32, #sram>, memref<4x64xf32, #sram>
    memref.dealloc %sum : memref<4x64xf32, #sram>
    memref.dealloc %z1 : memref<1xf32, #sram>
    memref.dealloc %m : memref<4x64xf32, #sram>
    %s = tessel.dma %out to %y : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same, but the add writes its sum over the blocks' left operand: a
// group's epilogue would overwrite what a later group's blocks read, so
// the blocks keep their rows and the store stays whole.
// CHECK-LABEL: tessel.device @taps_epilogue_writes_operand
// CHECK-NOT:     [16, 4]
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
tessel.device @taps_epilogue_writes_operand arch #tiny {
  %t = tessel.tile(0, 0)
  %bias = tessel.dram_buffer @bias input : memref<4x1xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x64xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %b = memref.alloc() : memref<4x1xf32, #sram>
    %l = tessel.dma %bias to %b : memref<4x1xf32, #dram> to memref<4x1xf32, #sram>
    %out = memref.alloc() : memref<4x64xf32, #sram>
    %acc = tessel.strided_view %out : memref<4x64xf32, #sram> to memref<64x4xf32, strided<[1, 64]>, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    tessel.wait %l
    %sum = memref.alloc() : memref<4x64xf32, #sram>
    %xt = tessel.strided_view %x : memref<64x8xf32, #sram> to memref<4x64xf32, strided<[1, 8]>, #sram>
    tessel.vector_binary add %out, %out, %xt : memref<4x64xf32, #sram>, memref<4x64xf32, #sram>, memref<4x64xf32, strided<[1, 8]>, #sram>
    tessel.vector_binary_imm max %xt, 0.0, %out : memref<4x64xf32, strided<[1, 8]>, #sram>, memref<4x64xf32, #sram>
    memref.dealloc %sum : memref<4x64xf32, #sram>
    %s = tessel.dma %out to %y : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same with a residual of 1 KB added: its transfer, longer than what
// the DMA moves in its setup, may still be under way where the first
// group's blocks end, and waited for there it would stall the later
// groups. The blocks keep their rows, and the store stays whole.
// CHECK-LABEL: tessel.device @taps_epilogue_residual
// CHECK-NOT:     [16, 4]
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
tessel.device @taps_epilogue_residual arch #tiny {
  %t = tessel.tile(0, 0)
  %bias = tessel.dram_buffer @bias input : memref<4x64xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x64xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x8xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %b = memref.alloc() : memref<4x64xf32, #sram>
    %l = tessel.dma %bias to %b : memref<4x64xf32, #dram> to memref<4x64xf32, #sram>
    %out = memref.alloc() : memref<4x64xf32, #sram>
    %acc = tessel.strided_view %out : memref<4x64xf32, #sram> to memref<64x4xf32, strided<[1, 64]>, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x8xf32, #sram> to memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    tessel.wait %l
    %sum = memref.alloc() : memref<4x64xf32, #sram>
    tessel.vector_binary add %out, %b, %sum : memref<4x64xf32, #sram>, memref<4x64xf32, #sram>, memref<4x64xf32, #sram>
    tessel.vector_binary_imm max %sum, 0.0, %out : memref<4x64xf32, #sram>, memref<4x64xf32, #sram>
    memref.dealloc %sum : memref<4x64xf32, #sram>
    %s = tessel.dma %out to %y : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", weight_buffers = 2, macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same with a 14 KB window, freed after the blocks, in 16 KB of SRAM.
// Taken in groups, the window would live on beside the sum until the last
// group: more than the tile holds. The blocks keep their rows, the wait
// and the frees stay where they were, and the store stays whole.
// CHECK-LABEL: tessel.device @taps_epilogue_no_room
// CHECK-NOT:     [16, 4]
// CHECK:         tessel.matmul %{{.+}} : memref<64x4xf32, strided<[56, 1], offset: 4>, #sram>
// CHECK-NEXT:    memref.dealloc %{{.+}} : memref<64x56xf32, #sram>
// CHECK-NEXT:    tessel.wait
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
tessel.device @taps_epilogue_no_room arch #tiny {
  %t = tessel.tile(0, 0)
  %bias = tessel.dram_buffer @bias input : memref<4x1xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x64xf32, #dram>
  tessel.core(%t) {
    %x = memref.alloc() : memref<64x56xf32, #sram>
    %w = memref.alloc() : memref<8x4xf32, #sram>
    %b = memref.alloc() : memref<4x1xf32, #sram>
    %l = tessel.dma %bias to %b : memref<4x1xf32, #dram> to memref<4x1xf32, #sram>
    %bb = tessel.strided_view %b : memref<4x1xf32, #sram> to memref<4x64xf32, strided<[1, 0]>, #sram>
    %out = memref.alloc() : memref<4x64xf32, #sram>
    %acc = tessel.strided_view %out : memref<4x64xf32, #sram> to memref<64x4xf32, strided<[1, 64]>, #sram>
    %x0 = memref.subview %x[0, 0] [64, 4] [1, 1] : memref<64x56xf32, #sram> to memref<64x4xf32, strided<[56, 1]>, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
    tessel.matmul init %x0, %w0, %acc : memref<64x4xf32, strided<[56, 1]>, #sram>, memref<4x4xf32, strided<[4, 1]>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    %x1 = memref.subview %x[0, 4] [64, 4] [1, 1] : memref<64x56xf32, #sram> to memref<64x4xf32, strided<[56, 1], offset: 4>, #sram>
    %w1 = memref.subview %w[4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
    tessel.matmul %x1, %w1, %acc : memref<64x4xf32, strided<[56, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>, memref<64x4xf32, strided<[1, 64]>, #sram>
    memref.dealloc %x : memref<64x56xf32, #sram>
    tessel.wait %l
    %sum = memref.alloc() : memref<4x64xf32, #sram>
    tessel.vector_binary add %out, %bb, %sum : memref<4x64xf32, #sram>, memref<4x64xf32, strided<[1, 0]>, #sram>, memref<4x64xf32, #sram>
    tessel.vector_binary_imm max %sum, 0.0, %out : memref<4x64xf32, #sram>, memref<4x64xf32, #sram>
    memref.dealloc %sum : memref<4x64xf32, #sram>
    %s = tessel.dma %out to %y : memref<4x64xf32, #sram> to memref<4x64xf32, #dram>
    tessel.wait %s
  }
}

