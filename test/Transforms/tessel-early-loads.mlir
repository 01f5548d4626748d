// RUN: tessel-opt %s -split-input-file -tessel-early-loads | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// A 4 x 4 array; a piece is at least 4 x setup (2) x rate (8) = 64 bytes.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// An op's first step: both loads are waited for before any compute. The
// first block streams all 8 rows of %x (128 bytes), so it is split into two
// blocks of 4 rows, each reading its own piece of %x; the weights' columns
// are read first by different blocks. The pieces go out in the order they
// are read, each waited for just before its first reader.
// CHECK-LABEL: tessel.device @first_step
// CHECK-DAG:     %[[X0:.+]] = memref.subview %[[XS:.+]][0, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram>
// CHECK-DAG:     %[[X1:.+]] = memref.subview %[[XS]][4, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram>
// CHECK-DAG:     %[[W0:.+]] = memref.subview %[[WS:.+]][0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram>
// CHECK-DAG:     %[[W1:.+]] = memref.subview %[[WS]][0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram>
// CHECK:         %[[TW0:.+]] = tessel.dma %{{.+}} to %[[W0]] {tessel.first_load}
// CHECK-NEXT:    %[[TX0:.+]] = tessel.dma %{{.+}} to %[[X0]] {tessel.first_load}
// CHECK-NEXT:    %[[TX1:.+]] = tessel.dma %{{.+}} to %[[X1]] {tessel.first_load}
// CHECK-NEXT:    %[[TW1:.+]] = tessel.dma %{{.+}} to %[[W1]] {tessel.first_load}
// CHECK-NOT:     tessel.dma
// CHECK:         tessel.wait %[[TW0]], %[[TX0]]
// CHECK-NEXT:    tessel.matmul init %{{.+}}, %{{.+}}, %{{.+}} : memref<4x4xf32, strided<[4, 1]>, #sram>
// CHECK:         tessel.wait %[[TX1]]
// CHECK-NEXT:    tessel.matmul init %{{.+}}, %{{.+}}, %{{.+}} : memref<4x4xf32, strided<[4, 1], offset: 16>, #sram>
// CHECK:         tessel.wait %[[TW1]]
// CHECK-NEXT:    tessel.matmul init %{{.+}}, %{{.+}}, %{{.+}} : memref<8x4xf32, #sram>
tessel.device @first_step arch #tiny {
  %t = tessel.tile(0, 0)
  %xd = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %wd = tessel.dram_buffer @w weight : memref<4x8xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %tw = tessel.dma %wd to %w : memref<4x8xf32, #dram> to memref<4x8xf32, #sram>
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %tx = tessel.dma %xd to %x : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    tessel.wait %tx, %tw
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul init %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul init %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Loads that stay whole: one issued under compute (a later step's, waited
// for after the product), one marked for sharing whose first products are
// too short to hide its pieces (@shared_loads_whole below), and one too
// small to cut (64 bytes: two pieces would be under 64 bytes each).
// CHECK-LABEL: tessel.device @whole
// CHECK-NOT:     tessel.first_load
// CHECK-NOT:     memref.subview %{{.+}}[4, 0]
tessel.device @whole arch #tiny {
  %t = tessel.tile(0, 0)
  %xd = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %wd = tessel.dram_buffer @w weight : memref<4x8xf32, #dram>
  %sd = tessel.dram_buffer @s input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x8xf32, #dram>
  tessel.core(%t) {
    %s = memref.alloc() : memref<4x4xf32, #sram>
    %ts = tessel.dma %sd to %s : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %tw = tessel.dma %wd to %w {tessel.share = 0 : i64} : memref<4x8xf32, #dram> to memref<4x8xf32, #sram>
    tessel.wait %ts, %tw
    %acc = memref.alloc() : memref<4x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul init %s, %w0, %c0 : memref<4x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %tx = tessel.dma %xd to %x : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul init %s, %w1, %c1 : memref<4x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.wait %tx
    %acc2 = memref.alloc() : memref<8x4xf32, #sram>
    tessel.matmul init %x, %s, %acc2 : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram>
    %st = tessel.dma %acc to %y : memref<4x8xf32, #sram> to memref<4x8xf32, #dram>
    tessel.wait %st
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// Two DRAM channels of the tile's own and two DMA channels, no second group
// for them: each channel runs the pieces in the order they are issued.
#own = #tessel.arch<{name = "own", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 0]]}}>

// A pad border's fill between the weights' load and the window's: where
// pieces queue in issue order, both loads are still cut (their pieces go
// out after the fill, in the order they are read), as in @first_step.
// CHECK-LABEL: tessel.device @fill_between
// CHECK:         tessel.vector_fill
// CHECK:         %[[TW0:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK-NEXT:    %[[TX0:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK-NEXT:    %[[TX1:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK-NEXT:    %[[TW1:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK:         tessel.wait %[[TW0]], %[[TX0]]
tessel.device @fill_between arch #own {
  %t = tessel.tile(0, 0)
  %xd = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %wd = tessel.dram_buffer @w weight : memref<4x8xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %tw = tessel.dma %wd to %w : memref<4x8xf32, #dram> to memref<4x8xf32, #sram>
    %pad = memref.alloc() : memref<2x4xf32, #sram>
    tessel.vector_fill 0.0, %pad : memref<2x4xf32, #sram>
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %tx = tessel.dma %xd to %x : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    tessel.wait %tx, %tw
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul init %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul init %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %s
    tessel.vector_unary copy %pad, %pad : memref<2x4xf32, #sram>, memref<2x4xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same on one DRAM channel that both DMA channels read: a later piece
// would run beside the window's first one and take half its share of DRAM,
// so the fill ends the group. The weights' load, waited for only after the
// fill, stays whole; the window's is cut.
// CHECK-LABEL: tessel.device @fill_between_shared_channel
// CHECK:         %[[TW:.+]] = tessel.dma %{{.+}} to %{{.+}} : memref<4x8xf32, #dram> to memref<4x8xf32, #sram>
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    tessel.vector_fill
// CHECK:         tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load} : memref<4x4xf32
// CHECK-NOT:     tessel.first_load
tessel.device @fill_between_shared_channel arch #tiny {
  %t = tessel.tile(0, 0)
  %xd = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %wd = tessel.dram_buffer @w weight : memref<4x8xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  tessel.core(%t) {
    %w = memref.alloc() : memref<4x8xf32, #sram>
    %tw = tessel.dma %wd to %w : memref<4x8xf32, #dram> to memref<4x8xf32, #sram>
    %pad = memref.alloc() : memref<2x4xf32, #sram>
    tessel.vector_fill 0.0, %pad : memref<2x4xf32, #sram>
    %x = memref.alloc() : memref<8x4xf32, #sram>
    %tx = tessel.dma %xd to %x : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    tessel.wait %tx, %tw
    %acc = memref.alloc() : memref<8x8xf32, #sram>
    %w0 = memref.subview %w[0, 0] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.matmul init %x, %w0, %c0 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1]>, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %w1 = memref.subview %w[0, 4] [4, 4] [1, 1] : memref<4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>
    %c1 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul init %x, %w1, %c1 : memref<8x4xf32, #sram>, memref<4x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %s = tessel.dma %acc to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %s
    tessel.vector_unary copy %pad, %pad : memref<2x4xf32, #sram>, memref<2x4xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 65536, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Loads marked for sharing, waited for after the accumulator's zeros. The
// first step's products (eight blocks of 256 rows, 516 cycles each at the
// SRAM port: 4,128) take more than twice what the loads take at DRAM's 8
// bytes a cycle (8,704 bytes: 1,088 cycles), which is more than twice the
// setups and latencies of four pieces of each (2 x 4 x 52 = 416): the
// loads are cut. The blocks take turns over the four accumulators, each
// one's two blocks in order, and both loads are cut along the reduction:
// the blocks of the first half read the first pieces, those of the second
// half the second.
// CHECK-LABEL: tessel.device @shared_reduction_pieces
// CHECK:         %[[TB0:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32, strided<[16, 1]>, #dram>
// CHECK-NEXT:    %[[TA0:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 1 : i64} : memref<256x4xf32, strided<[8, 1]>, #dram>
// CHECK-NEXT:    %[[TB1:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32, strided<[16, 1], offset: 64>, #dram>
// CHECK-NEXT:    %[[TA1:.+]] = tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 1 : i64} : memref<256x4xf32, strided<[8, 1], offset: 4>, #dram>
// CHECK:         tessel.vector_fill
// CHECK:         tessel.wait %[[TB0]], %[[TA0]]
// CHECK-NEXT:    tessel.matmul init {{.+}} : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
// CHECK-NEXT:    tessel.matmul init {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
// CHECK-NEXT:    tessel.matmul init {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
// CHECK-NEXT:    tessel.matmul init {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
// CHECK-NEXT:    tessel.wait %[[TB1]], %[[TA1]]
// CHECK-NEXT:    tessel.matmul {{.+}} : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
// CHECK-NEXT:    tessel.matmul {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
// CHECK-NEXT:    tessel.matmul {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
// CHECK-NEXT:    tessel.matmul {{.+}}, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
tessel.device @shared_reduction_pieces arch #tiny {
  %t = tessel.tile(0, 0)
  %ad = tessel.dram_buffer @a input : memref<256x8xf32, #dram>
  %bd = tessel.dram_buffer @b weight : memref<8x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<256x16xf32, #dram>
  tessel.core(%t) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 1 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same with blocks of 8 rows: the products (eight blocks of 20 cycles)
// are shorter than twice the loads (768 bytes: 96 cycles), themselves
// shorter than four pieces' setups and latencies, and every tile sharing
// the loads would wait for each piece in turn. The loads stay whole, and
// the blocks in their order.
// CHECK-LABEL: tessel.device @shared_loads_whole
// CHECK-NOT:     tessel.first_load
// CHECK:         tessel.wait
// CHECK:         tessel.matmul init {{.+}}, memref<8x4xf32, strided<[16, 1]>, #sram>
// CHECK-NOT:     tessel.matmul
// CHECK:         tessel.matmul {{.+}}, memref<8x4xf32, strided<[16, 1]>, #sram>
tessel.device @shared_loads_whole arch #tiny {
  %t = tessel.tile(0, 0)
  %ad = tessel.dram_buffer @a input : memref<8x8xf32, #dram>
  %bd = tessel.dram_buffer @b weight : memref<8x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x16xf32, #dram>
  tessel.core(%t) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<8x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 1 : i64} : memref<8x8xf32, #dram> to memref<8x8xf32, #sram>
    %acc = memref.alloc() : memref<8x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<8x16xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<8x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<8x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<8x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<8x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<8x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<8x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [8, 4] [1, 1] : memref<8x16xf32, #sram> to memref<8x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<8x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y : memref<8x16xf32, #sram> to memref<8x16xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny2 = #tessel.arch<{name = "tiny2", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 65536, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two tiles share the loads of @shared_reduction_pieces (one mark, as the
// loads of an op mapped `shared` are), but the second has work before its
// wait: its loads are not cut, so neither are the first tile's.
// tessel-share-loads pairs the n-th load of a mark on each tile, and pieces
// on one tile against whole loads on the other would share nothing.
// CHECK-LABEL: tessel.device @shared_cut_on_every_tile
// CHECK-NOT:     tessel.first_load
tessel.device @shared_cut_on_every_tile arch #tiny2 {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %ad = tessel.dram_buffer @a input : memref<256x8xf32, #dram>
  %bd = tessel.dram_buffer @b weight : memref<8x16xf32, #dram>
  %y0 = tessel.dram_buffer @y0 output : memref<256x16xf32, #dram>
  %y1 = tessel.dram_buffer @y1 output : memref<256x16xf32, #dram>
  tessel.core(%t0) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 0 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y0 : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
  tessel.core(%t1) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 0 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    %pad = memref.alloc() : memref<2x4xf32, #sram>
    tessel.vector_unary copy %pad, %pad : memref<2x4xf32, #sram>, memref<2x4xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y1 : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny2 = #tessel.arch<{name = "tiny2", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 65536, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two tiles share the loads of @shared_reduction_pieces (one mark, as the
// loads of an op mapped `shared` are), each worth cutting and cut alike:
// the same pieces in the same order on both, so tessel-share-loads pairs
// each piece with the other tile's.
// CHECK-LABEL: tessel.device @shared_cut_on_both_tiles
// CHECK:         tessel.core(%[[T0:.+]])
// CHECK:         tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<256x4xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<256x4xf32
// CHECK:         tessel.core(%[[T1:.+]])
// CHECK:         tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<256x4xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<4x16xf32
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.first_load, tessel.share = 0 : i64} : memref<256x4xf32
tessel.device @shared_cut_on_both_tiles arch #tiny2 {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %ad = tessel.dram_buffer @a input : memref<256x8xf32, #dram>
  %bd = tessel.dram_buffer @b weight : memref<8x16xf32, #dram>
  %y0 = tessel.dram_buffer @y0 output : memref<256x16xf32, #dram>
  %y1 = tessel.dram_buffer @y1 output : memref<256x16xf32, #dram>
  tessel.core(%t0) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 0 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y0 : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
  tessel.core(%t1) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 0 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    %pad = memref.alloc() : memref<2x4xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %s = tessel.dma %acc to %y1 : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 1}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 65536, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 2}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// @shared_reduction_pieces with one more block that reads the first
// accumulator as its left operand: taking turns would move it before the
// products it reads, so the blocks keep their order (each accumulator's
// two blocks one after the other), and the loads are cut by their readers
// in that order.
// CHECK-LABEL: tessel.device @shared_blocks_keep_order
// CHECK:         tessel.first_load
// CHECK:         tessel.matmul init {{.+}} : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
// CHECK-NOT:     tessel.matmul
// CHECK:         tessel.matmul {{.+}} : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
tessel.device @shared_blocks_keep_order arch #tiny {
  %t = tessel.tile(0, 0)
  %ad = tessel.dram_buffer @a input : memref<256x8xf32, #dram>
  %bd = tessel.dram_buffer @b weight : memref<8x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<256x16xf32, #dram>
  tessel.core(%t) {
    %b = memref.alloc() : memref<8x16xf32, #sram>
    %tb = tessel.dma %bd to %b {tessel.share = 0 : i64} : memref<8x16xf32, #dram> to memref<8x16xf32, #sram>
    %a = memref.alloc() : memref<256x8xf32, #sram>
    %ta = tessel.dma %ad to %a {tessel.share = 0 : i64} : memref<256x8xf32, #dram> to memref<256x8xf32, #sram>
    %acc = memref.alloc() : memref<256x16xf32, #sram>
    tessel.vector_fill 0.0, %acc : memref<256x16xf32, #sram>
    tessel.wait %ta, %tb
    %a0 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b0 = memref.subview %b[0, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1]>, #sram>
    %c0 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul init %a0, %b0, %c0 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a1 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b1 = memref.subview %b[4, 0] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>
    %c1 = memref.subview %acc[0, 0] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1]>, #sram>
    tessel.matmul %a1, %b1, %c1 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 64>, #sram>, memref<256x4xf32, strided<[16, 1]>, #sram>
    %a2 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b2 = memref.subview %b[0, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %c2 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul init %a2, %b2, %c2 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a3 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b3 = memref.subview %b[4, 4] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>
    %c3 = memref.subview %acc[0, 4] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    tessel.matmul %a3, %b3, %c3 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 68>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 4>, #sram>
    %a4 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b4 = memref.subview %b[0, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>
    %c4 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul init %a4, %b4, %c4 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 8>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a5 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b5 = memref.subview %b[4, 8] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>
    %c5 = memref.subview %acc[0, 8] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    tessel.matmul %a5, %b5, %c5 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 72>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 8>, #sram>
    %a6 = memref.subview %a[0, 0] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1]>, #sram>
    %b6 = memref.subview %b[0, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>
    %c6 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul init %a6, %b6, %c6 : memref<256x4xf32, strided<[8, 1]>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 12>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %a7 = memref.subview %a[0, 4] [256, 4] [1, 1] : memref<256x8xf32, #sram> to memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>
    %b7 = memref.subview %b[4, 12] [4, 4] [1, 1] : memref<8x16xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>
    %c7 = memref.subview %acc[0, 12] [256, 4] [1, 1] : memref<256x16xf32, #sram> to memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    tessel.matmul %a7, %b7, %c7 : memref<256x4xf32, strided<[8, 1], offset: 4>, #sram>, memref<4x4xf32, strided<[16, 1], offset: 76>, #sram>, memref<256x4xf32, strided<[16, 1], offset: 12>, #sram>
    %d = memref.alloc() : memref<256x4xf32, #sram>
    tessel.matmul init %c0, %b0, %d : memref<256x4xf32, strided<[16, 1]>, #sram>, memref<4x4xf32, strided<[16, 1]>, #sram>, memref<256x4xf32, #sram>
    %s = tessel.dma %acc to %y : memref<256x16xf32, #sram> to memref<256x16xf32, #dram>
    tessel.wait %s
  }
}
