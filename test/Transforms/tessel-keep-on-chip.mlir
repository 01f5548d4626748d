// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-keep-on-chip | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Each tile computes 4 rows of @h and stores them; then each loads all 8
// rows of @h (the next op, split by columns). The stores are gone and each
// slice stays in the buffer it was computed in until the tile's release
// fence (whose mark goes with the buffer); each load reads the slices that
// cover it where they are, its own tile's and the other's, each through a
// buffer on the holder's tile that the slice's allocation names. The
// shared mark stays on the reads, and @h, now unused, is erased.
// CHECK-LABEL: tessel.device @rows
// CHECK-NOT:     tessel.dram_buffer @h
// CHECK-DAG:     %[[HELD0:.+]] = tessel.buffer @h.held0 on %tile_0_0 : memref<4x8xf32, #sram>
// CHECK-DAG:     %[[HELD1:.+]] = tessel.buffer @h.held1 on %tile_0_1 : memref<4x8xf32, #sram>
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           %[[MINE:.+]] = memref.alloc() {tessel.held_as = @h.held0} : memref<4x8xf32, #sram>
// CHECK:           tessel.vector_fill 1.000000e+00, %[[MINE]]
// CHECK-NOT:       tessel.dma %[[MINE]]
// CHECK:           tessel.signal
// CHECK:           %[[IN:.+]] = memref.alloc() : memref<8x4xf32, #sram>
// CHECK:           %[[OWN:.+]] = memref.subview %[[HELD0]][0, 0] [4, 4] [1, 1]
// CHECK:           %[[TOP:.+]] = memref.subview %[[IN]][0, 0] [4, 4] [1, 1]
// CHECK:           %[[T0:.+]] = tessel.dma %[[OWN]] to %[[TOP]] {tessel.share = 1 : i64}
// CHECK:           %[[THEIRS:.+]] = memref.subview %[[HELD1]][0, 0] [4, 4] [1, 1]
// CHECK:           %[[BOTTOM:.+]] = memref.subview %[[IN]][4, 0] [4, 4] [1, 1]
// CHECK:           %[[T1:.+]] = tessel.dma %[[THEIRS]] to %[[BOTTOM]] {tessel.share = 1 : i64}
// CHECK:           tessel.wait %[[T0]], %[[T1]]
// CHECK:           tessel.fence{{$}}
// CHECK-NEXT:      memref.dealloc %[[MINE]]
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           memref.alloc() {tessel.held_as = @h.held1} : memref<4x8xf32, #sram>
// CHECK:           memref.subview %[[HELD0]][0, 4] [4, 4] [1, 1]
// CHECK:           memref.subview %[[HELD1]][0, 4] [4, 4] [1, 1]
// CHECK:           tessel.fence{{$}}
// CHECK-NEXT:      memref.dealloc
tessel.device @rows arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<8x8xf32, #dram>
  %go0 = tessel.semaphore on %t0
  %go1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<4x8xf32, #sram>
    %top = memref.subview %h[0, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    %st = tessel.dma %s to %top : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.signal %go1
    tessel.wait_semaphore %go0
    %in = memref.alloc() : memref<8x4xf32, #sram>
    %cols = memref.subview %h[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #dram> to memref<8x4xf32, strided<[8, 1]>, #dram>
    %ld = tessel.dma %cols to %in {tessel.share = 1 : i64} : memref<8x4xf32, strided<[8, 1]>, #dram> to memref<8x4xf32, #sram>
    tessel.wait %ld
    tessel.vector_unary exp %in, %in : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    memref.dealloc %in : memref<8x4xf32, #sram>
    tessel.signal %go1
    tessel.wait_semaphore %go0
    tessel.fence {tessel.release = @h}
  }
  tessel.core(%t1) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 2.0, %s : memref<4x8xf32, #sram>
    %bottom = memref.subview %h[4, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    %st = tessel.dma %s to %bottom : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.signal %go0
    tessel.wait_semaphore %go1
    %in = memref.alloc() : memref<8x4xf32, #sram>
    %cols = memref.subview %h[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #dram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #dram>
    %ld = tessel.dma %cols to %in {tessel.share = 1 : i64} : memref<8x4xf32, strided<[8, 1], offset: 4>, #dram> to memref<8x4xf32, #sram>
    tessel.wait %ld
    tessel.vector_unary exp %in, %in : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    memref.dealloc %in : memref<8x4xf32, #sram>
    tessel.signal %go0
    tessel.wait_semaphore %go1
    tessel.fence {tessel.release = @h}
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A load of rows no slice holds: the buffer stays in DRAM, with a warning,
// and loses its marks.
// CHECK-LABEL: tessel.device @uncovered
// CHECK:         tessel.dram_buffer @h scratch : memref<8x8xf32, #dram>
// CHECK:         tessel.dma
// CHECK:         tessel.fence
// CHECK-NOT:       tessel.release
tessel.device @uncovered arch #tiny {
  %t0 = tessel.tile(0, 0)
  // expected-warning @+1 {{stays in DRAM: a load reads elements no slice stores}}
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<8x8xf32, #dram>
  tessel.core(%t0) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<4x8xf32, #sram>
    %top = memref.subview %h[0, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    %st = tessel.dma %s to %top : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    %in = memref.alloc() : memref<8x8xf32, #sram>
    %ld = tessel.dma %h to %in : memref<8x8xf32, #dram> to memref<8x8xf32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<8x8xf32, #sram>
    tessel.fence {tessel.release = @h}
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Read through a reshape that splits a dimension: a box of the view is no
// box of the buffer, so it stays in DRAM.
tessel.device @reshaped arch #tiny {
  %t0 = tessel.tile(0, 0)
  // expected-warning @+1 {{stays in DRAM: a transfer reads or writes it through a view that is not a subview with constant offsets and unit strides, nor a reshape that only adds or removes dimensions of one element}}
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<8x8xf32, #dram>
  tessel.core(%t0) {
    %s = memref.alloc() : memref<8x8xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<8x8xf32, #sram>
    %st = tessel.dma %s to %h : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<8x8xf32, #sram>
    %e = memref.expand_shape %h [[0, 1], [2]] output_shape [2, 4, 8] : memref<8x8xf32, #dram> into memref<2x4x8xf32, #dram>
    %in = memref.alloc() : memref<2x4x8xf32, #sram>
    %ld = tessel.dma %e to %in : memref<2x4x8xf32, #dram> to memref<2x4x8xf32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<2x4x8xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Read through reshapes that only add or remove dimensions of one element
// (an 8x8 result read as 1x8x8, as a layer norm reads a matmul's): the
// window of the view is a
// box of the buffer, so the slices cover it as they would a window of the
// buffer itself, each cut to the read's shape.
// CHECK-LABEL: tessel.device @unit_reshapes
// CHECK-NOT:     tessel.dram_buffer @h
// CHECK-DAG:     %[[HELD0:.+]] = tessel.buffer @h.held{{[0-9]+}} on %tile_0_0 : memref<4x8xf32, #sram>
// CHECK-DAG:     %[[HELD1:.+]] = tessel.buffer @h.held{{[0-9]+}} on %tile_0_1 : memref<4x8xf32, #sram>
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           %[[IN:.+]] = memref.alloc() : memref<1x8x4xf32, #sram>
// CHECK:           %[[OWN:.+]] = memref.subview %[[HELD0]][0, 0] [4, 4] [1, 1]
// CHECK:           %[[TOP:.+]] = memref.subview %[[IN]][0, 0, 0] [1, 4, 4] [1, 1, 1] : memref<1x8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #sram>
// CHECK:           tessel.dma %[[OWN]] to %[[TOP]]
// CHECK:           %[[THEIRS:.+]] = memref.subview %[[HELD1]][0, 0] [4, 4] [1, 1]
// CHECK:           %[[BOTTOM:.+]] = memref.subview %[[IN]][0, 4, 0] [1, 4, 4] [1, 1, 1]
// CHECK:           tessel.dma %[[THEIRS]] to %[[BOTTOM]]
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           %[[IN1:.+]] = memref.alloc() : memref<8x4xf32, #sram>
// CHECK:           memref.subview %[[HELD0]][0, 4] [4, 4] [1, 1]
// CHECK:           memref.subview %[[IN1]][0, 0] [4, 4] [1, 1]
// CHECK:           memref.subview %[[HELD1]][0, 4] [4, 4] [1, 1]
// CHECK:           memref.subview %[[IN1]][4, 0] [4, 4] [1, 1]
// CHECK-NOT:     memref.expand_shape
// CHECK-NOT:     memref.collapse_shape
tessel.device @unit_reshapes arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<8x8xf32, #dram>
  %go0 = tessel.semaphore on %t0
  %go1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<4x8xf32, #sram>
    %top = memref.subview %h[0, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    %st = tessel.dma %s to %top : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.signal %go1
    tessel.wait_semaphore %go0
    %e = memref.expand_shape %h [[0, 1], [2]] output_shape [1, 8, 8] : memref<8x8xf32, #dram> into memref<1x8x8xf32, #dram>
    %cols = memref.subview %e[0, 0, 0] [1, 8, 4] [1, 1, 1] : memref<1x8x8xf32, #dram> to memref<1x8x4xf32, strided<[64, 8, 1]>, #dram>
    %in = memref.alloc() : memref<1x8x4xf32, #sram>
    %ld = tessel.dma %cols to %in : memref<1x8x4xf32, strided<[64, 8, 1]>, #dram> to memref<1x8x4xf32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<1x8x4xf32, #sram>
    tessel.signal %go1
    tessel.wait_semaphore %go0
    tessel.fence {tessel.release = @h}
  }
  tessel.core(%t1) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 2.0, %s : memref<4x8xf32, #sram>
    %bottom = memref.subview %h[4, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    %st = tessel.dma %s to %bottom : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.signal %go0
    tessel.wait_semaphore %go1
    %e = memref.expand_shape %h [[0, 1], [2]] output_shape [1, 8, 8] : memref<8x8xf32, #dram> into memref<1x8x8xf32, #dram>
    %c = memref.collapse_shape %e [[0, 1], [2]] : memref<1x8x8xf32, #dram> into memref<8x8xf32, #dram>
    %cols = memref.subview %c[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #dram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #dram>
    %in = memref.alloc() : memref<8x4xf32, #sram>
    %ld = tessel.dma %cols to %in : memref<8x4xf32, strided<[8, 1], offset: 4>, #dram> to memref<8x4xf32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<8x4xf32, #sram>
    tessel.signal %go0
    tessel.wait_semaphore %go1
    tessel.fence {tessel.release = @h}
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// One row of the buffer read as a vector: the subview's row dimension, of
// one element, is what the collapse removes; the read is the row's box.
// CHECK-LABEL: tessel.device @one_row
// CHECK-DAG:     %[[HELD0:.+]] = tessel.buffer @h.held{{[0-9]+}} on %tile_0_0 : memref<4x8xf32, #sram>
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           %[[IN:.+]] = memref.alloc() : memref<8xf32, #sram>
// CHECK:           %[[ROW:.+]] = memref.subview %[[HELD0]][3, 0] [1, 8] [1, 1] : memref<4x8xf32, #sram> to memref<8xf32, strided<[1], offset: 24>, #sram>
// CHECK:           %[[ALL:.+]] = memref.subview %[[IN]][0] [8] [1]
// CHECK:           tessel.dma %[[ROW]] to %[[ALL]]
tessel.device @one_row arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<8x8xf32, #dram>
  %go0 = tessel.semaphore on %t0
  %go1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<4x8xf32, #sram>
    %top = memref.subview %h[0, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    %st = tessel.dma %s to %top : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.signal %go1
    tessel.wait_semaphore %go0
    tessel.fence {tessel.release = @h}
  }
  tessel.core(%t1) {
    %s = memref.alloc() : memref<4x8xf32, #sram>
    tessel.vector_fill 2.0, %s : memref<4x8xf32, #sram>
    %bottom = memref.subview %h[4, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    %st = tessel.dma %s to %bottom : memref<4x8xf32, #sram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<4x8xf32, #sram>
    tessel.wait_semaphore %go1
    %row = memref.subview %h[3, 0] [1, 8] [1, 1] : memref<8x8xf32, #dram> to memref<1x8xf32, strided<[8, 1], offset: 24>, #dram>
    %flat = memref.collapse_shape %row [[0, 1]] : memref<1x8xf32, strided<[8, 1], offset: 24>, #dram> into memref<8xf32, strided<[1], offset: 24>, #dram>
    %in = memref.alloc() : memref<8xf32, #sram>
    %ld = tessel.dma %flat to %in : memref<8xf32, strided<[1], offset: 24>, #dram> to memref<8xf32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<8xf32, #sram>
    tessel.signal %go0
    tessel.fence {tessel.release = @h}
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A 1x1 result read as a scalar: a rank-0 view has no dimension to pair
// with the buffer's, so it stays in DRAM.
tessel.device @scalar arch #tiny {
  %t0 = tessel.tile(0, 0)
  // expected-warning @+1 {{stays in DRAM: a transfer reads or writes it through a view that is not a subview with constant offsets and unit strides, nor a reshape that only adds or removes dimensions of one element}}
  %h = tessel.dram_buffer @h scratch {tessel.on_chip} : memref<1x1xf32, #dram>
  tessel.core(%t0) {
    %s = memref.alloc() : memref<1x1xf32, #sram>
    tessel.vector_fill 1.0, %s : memref<1x1xf32, #sram>
    %st = tessel.dma %s to %h : memref<1x1xf32, #sram> to memref<1x1xf32, #dram>
    tessel.wait %st
    memref.dealloc %s : memref<1x1xf32, #sram>
    %c = memref.collapse_shape %h [] : memref<1x1xf32, #dram> into memref<f32, #dram>
    %in = memref.alloc() : memref<f32, #sram>
    %ld = tessel.dma %c to %in : memref<f32, #dram> to memref<f32, #sram>
    tessel.wait %ld
    memref.dealloc %in : memref<f32, #sram>
    tessel.fence {tessel.release = @h}
  }
}
