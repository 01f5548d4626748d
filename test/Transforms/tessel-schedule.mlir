// RUN: tessel-opt %s -split-input-file -tessel-schedule | FileCheck %s
// RUN: tessel-opt %s -split-input-file -tessel-schedule=min-shared-steps=3 | FileCheck %s --check-prefix=TOGETHER

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Three steps of an elementwise op: each step's load is issued before the
// previous step computes (one step ahead, not two), and waited for just
// before its first use; each step's store is waited for (and its buffer
// released) just before the next step's store, so it drains while the next
// step computes. The last store is waited for at the end.
// CHECK-LABEL: tessel.device @steps
// CHECK:         %[[A0:.+]] = memref.alloc()
// CHECK:         %[[T0:.+]] = tessel.dma %{{.+}} to %[[A0]]
// CHECK:         tessel.wait %[[T0]]
// CHECK:         %[[A1:.+]] = memref.alloc()
// CHECK:         %[[T1:.+]] = tessel.dma %{{.+}} to %[[A1]]
// CHECK:         tessel.vector_unary exp %[[A0]], %[[A0]]
// CHECK:         %[[S0:.+]] = tessel.dma %[[A0]] to
// CHECK:         tessel.wait %[[T1]]
// CHECK:         %[[A2:.+]] = memref.alloc()
// CHECK:         %[[T2:.+]] = tessel.dma %{{.+}} to %[[A2]]
// CHECK:         tessel.vector_unary exp %[[A1]], %[[A1]]
// CHECK:         tessel.wait %[[S0]]
// CHECK-NEXT:    memref.dealloc %[[A0]]
// CHECK:         %[[S1:.+]] = tessel.dma %[[A1]] to
// CHECK:         tessel.wait %[[T2]]
// CHECK-NEXT:    tessel.vector_unary exp %[[A2]], %[[A2]]
// CHECK-NEXT:    tessel.wait %[[S1]]
// CHECK-NEXT:    memref.dealloc %[[A1]]
// CHECK:         %[[S2:.+]] = tessel.dma %[[A2]] to
// CHECK-NEXT:    tessel.wait %[[S2]]
// CHECK-NEXT:    memref.dealloc %[[A2]]
tessel.device @steps arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<3x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<3x16xf32, #dram>
  tessel.core(%t) {
    %x0 = memref.subview %x[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %y0 = memref.subview %y[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %a0 = memref.alloc() : memref<16xf32, #sram>
    %t0 = tessel.dma %x0 to %a0 : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %t0
    tessel.vector_unary exp %a0, %a0 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s0 = tessel.dma %a0 to %y0 : memref<16xf32, #sram> to memref<16xf32, strided<[1]>, #dram>
    tessel.wait %s0
    memref.dealloc %a0 : memref<16xf32, #sram>
    %x1 = memref.subview %x[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %y1 = memref.subview %y[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %a1 = memref.alloc() : memref<16xf32, #sram>
    %t1 = tessel.dma %x1 to %a1 : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %t1
    tessel.vector_unary exp %a1, %a1 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s1 = tessel.dma %a1 to %y1 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    tessel.wait %s1
    memref.dealloc %a1 : memref<16xf32, #sram>
    %x2 = memref.subview %x[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %y2 = memref.subview %y[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %a2 = memref.alloc() : memref<16xf32, #sram>
    %t2 = tessel.dma %x2 to %a2 : memref<16xf32, strided<[1], offset: 32>, #dram> to memref<16xf32, #sram>
    tessel.wait %t2
    tessel.vector_unary exp %a2, %a2 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s2 = tessel.dma %a2 to %y2 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    tessel.wait %s2
    memref.dealloc %a2 : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A load stays after a barrier, and after the wait for a store of this tile
// to the buffer it reads.
// CHECK-LABEL: tessel.device @ordered
// CHECK:         tessel.wait_semaphore
// CHECK:         %[[S:.+]] = tessel.dma %{{.+}} to %[[M:.+]] :
// CHECK:         tessel.wait %[[S]]
// CHECK:         tessel.dma %[[M]] to
tessel.device @ordered arch #tiny {
  %t = tessel.tile(0, 0)
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_fill 1.0, %a : memref<16xf32, #sram>
    tessel.signal %sem
    tessel.wait_semaphore %sem
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s = tessel.dma %a to %m : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16xf32, #sram>
    %l = tessel.dma %m to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %l
    %u = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %u
    memref.dealloc %b : memref<16xf32, #sram>
  }
}

// -----

// A fence between two ops' parts: the second op's load is not issued
// before it (the first op's buffers were not counted when its steps were
// sized), and the fence is gone afterwards.
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @fenced
// CHECK:         tessel.vector_fill
// CHECK:         memref.dealloc
// CHECK-NEXT:    %[[B:.+]] = memref.alloc()
// CHECK-NEXT:    tessel.dma %{{.+}} to %[[B]]
// CHECK-NOT:     tessel.fence
tessel.device @fenced arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %z = tessel.dram_buffer @z output : memref<16xf32, #dram>
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_fill 0.0, %a : memref<16xf32, #sram>
    %s = tessel.dma %a to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.fence
    %b = memref.alloc() : memref<16xf32, #sram>
    %l = tessel.dma %x to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %l
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s2 = tessel.dma %b to %z : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s2
    memref.dealloc %b : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Steps of 6 KB in 16 KB of SRAM: the second step's load already lives
// beside the first step's buffer; keeping a stored buffer until the next
// store as well would need three (18 KB). The core keeps each store waited
// for where it is issued.
// CHECK-LABEL: tessel.device @no_room
// CHECK:         %[[S0:.+]] = tessel.dma %{{.+}} to %{{.+}} : memref<1536xf32, #sram>
// CHECK-NEXT:    tessel.wait %[[S0]]
// CHECK-NEXT:    memref.dealloc
// CHECK:         %[[S1:.+]] = tessel.dma %{{.+}} to %{{.+}} : memref<1536xf32, #sram>
// CHECK-NEXT:    tessel.wait %[[S1]]
tessel.device @no_room arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<3x1536xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<3x1536xf32, #dram>
  tessel.core(%t) {
    %x0 = memref.subview %x[0, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1]>, #dram>
    %y0 = memref.subview %y[0, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1]>, #dram>
    %a0 = memref.alloc() : memref<1536xf32, #sram>
    %t0 = tessel.dma %x0 to %a0 : memref<1536xf32, strided<[1]>, #dram> to memref<1536xf32, #sram>
    tessel.wait %t0
    tessel.vector_unary exp %a0, %a0 : memref<1536xf32, #sram>, memref<1536xf32, #sram>
    %s0 = tessel.dma %a0 to %y0 : memref<1536xf32, #sram> to memref<1536xf32, strided<[1]>, #dram>
    tessel.wait %s0
    memref.dealloc %a0 : memref<1536xf32, #sram>
    %x1 = memref.subview %x[1, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1], offset: 1536>, #dram>
    %y1 = memref.subview %y[1, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1], offset: 1536>, #dram>
    %a1 = memref.alloc() : memref<1536xf32, #sram>
    %t1 = tessel.dma %x1 to %a1 : memref<1536xf32, strided<[1], offset: 1536>, #dram> to memref<1536xf32, #sram>
    tessel.wait %t1
    tessel.vector_unary exp %a1, %a1 : memref<1536xf32, #sram>, memref<1536xf32, #sram>
    %s1 = tessel.dma %a1 to %y1 : memref<1536xf32, #sram> to memref<1536xf32, strided<[1], offset: 1536>, #dram>
    tessel.wait %s1
    memref.dealloc %a1 : memref<1536xf32, #sram>
    %x2 = memref.subview %x[2, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1], offset: 3072>, #dram>
    %y2 = memref.subview %y[2, 0] [1, 1536] [1, 1] : memref<3x1536xf32, #dram> to memref<1536xf32, strided<[1], offset: 3072>, #dram>
    %a2 = memref.alloc() : memref<1536xf32, #sram>
    %t2 = tessel.dma %x2 to %a2 : memref<1536xf32, strided<[1], offset: 3072>, #dram> to memref<1536xf32, #sram>
    tessel.wait %t2
    tessel.vector_unary exp %a2, %a2 : memref<1536xf32, #sram>, memref<1536xf32, #sram>
    %s2 = tessel.dma %a2 to %y2 : memref<1536xf32, #sram> to memref<1536xf32, strided<[1], offset: 3072>, #dram>
    tessel.wait %s2
    memref.dealloc %a2 : memref<1536xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A store's wait stays before a load of the DRAM buffer it writes (the
// load must see its data) and before a signal (another tile may read it).
// CHECK-LABEL: tessel.device @store_then_read
// CHECK:         %[[S:.+]] = tessel.dma %{{[a-z0-9_]+}} to %y :
// CHECK:         tessel.wait %[[S]]
// CHECK-NEXT:    tessel.dma %y to
// CHECK:         %[[S2:.+]] = tessel.dma %{{[a-z0-9_]+}} to %y :
// CHECK-NEXT:    tessel.wait %[[S2]]
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    tessel.signal
tessel.device @store_then_read arch #tiny {
  %t = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t1
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    %t0 = tessel.dma %x to %a : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %t0
    %s = tessel.dma %a to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16xf32, #sram>
    %r = tessel.dma %y to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %r
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s2 = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s2
    memref.dealloc %b : memref<16xf32, #sram>
    tessel.signal %sem
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The fills of a padded window's border go up with its load: the second
// step's buffer is filled at both ends and loaded while the first step
// computes.
// CHECK-LABEL: tessel.device @padded_load
// CHECK:         %[[T0:.+]] = tessel.dma
// CHECK:         tessel.wait %[[T0]]
// CHECK:         %[[A1:.+]] = memref.alloc()
// CHECK:         %[[LOW:.+]] = memref.subview %[[A1]][0] [1] [1]
// CHECK-NEXT:    tessel.vector_fill 0.000000e+00, %[[LOW]]
// CHECK:         %[[HIGH:.+]] = memref.subview %[[A1]][17] [1] [1]
// CHECK-NEXT:    tessel.vector_fill 0.000000e+00, %[[HIGH]]
// CHECK:         %[[T1:.+]] = tessel.dma %{{.+}} to %{{.+}}
// CHECK:         tessel.vector_unary exp
// CHECK:         tessel.wait %[[T1]]
// CHECK-NEXT:    tessel.vector_unary exp %[[A1]], %[[A1]]
tessel.device @padded_load arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<2x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<2x18xf32, #dram>
  tessel.core(%t) {
    %x0 = memref.subview %x[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %y0 = memref.subview %y[0, 0] [1, 16] [1, 1] : memref<2x18xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %a0 = memref.alloc() : memref<16xf32, #sram>
    %t0 = tessel.dma %x0 to %a0 : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %t0
    tessel.vector_unary exp %a0, %a0 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s0 = tessel.dma %a0 to %y0 : memref<16xf32, #sram> to memref<16xf32, strided<[1]>, #dram>
    tessel.wait %s0
    memref.dealloc %a0 : memref<16xf32, #sram>
    %x1 = memref.subview %x[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %y1 = memref.subview %y[1, 0] [1, 18] [1, 1] : memref<2x18xf32, #dram> to memref<18xf32, strided<[1], offset: 18>, #dram>
    %a1 = memref.alloc() : memref<18xf32, #sram>
    %a1low = memref.subview %a1[0] [1] [1] : memref<18xf32, #sram> to memref<1xf32, strided<[1]>, #sram>
    tessel.vector_fill 0.0, %a1low : memref<1xf32, strided<[1]>, #sram>
    %a1high = memref.subview %a1[17] [1] [1] : memref<18xf32, #sram> to memref<1xf32, strided<[1], offset: 17>, #sram>
    tessel.vector_fill 0.0, %a1high : memref<1xf32, strided<[1], offset: 17>, #sram>
    %a1in = memref.subview %a1[1] [16] [1] : memref<18xf32, #sram> to memref<16xf32, strided<[1], offset: 1>, #sram>
    %t1 = tessel.dma %x1 to %a1in : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %t1
    tessel.vector_unary exp %a1, %a1 : memref<18xf32, #sram>, memref<18xf32, #sram>
    %s1 = tessel.dma %a1 to %y1 : memref<18xf32, #sram> to memref<18xf32, strided<[1], offset: 18>, #dram>
    tessel.wait %s1
    memref.dealloc %a1 : memref<18xf32, #sram>
  }
}

// -----

// The next op's load of a weight that another tile shares moves above the
// wait before it (and the fence), after the previous op's store is waited
// for, its buffer freed and the tile's signal sent: it runs while the tile
// waits for the other tiles. Its load of an input stays after the wait.
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @weight_before_wait
// CHECK:         tessel.wait %{{.+}}
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    tessel.signal
// CHECK-NEXT:    %[[W:.+]] = memref.alloc() : memref<16xf32, #sram>
// CHECK-NEXT:    %[[TW:.+]] = tessel.dma %{{.+}} to %[[W]]
// CHECK-NEXT:    tessel.wait_semaphore
// CHECK-NEXT:    %[[X:.+]] = memref.alloc() : memref<16xf32, #sram>
// CHECK-NEXT:    %[[TX:.+]] = tessel.dma %{{.+}} to %[[X]]
// CHECK:         tessel.wait %[[TW]], %[[TX]]
// CHECK-NOT:     tessel.fence
tessel.device @weight_before_wait arch #tiny {
  %t = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_fill 1.0, %a : memref<16xf32, #sram>
    %s = tessel.dma %a to %m : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %sem
    tessel.wait_semaphore %sem
    tessel.fence
    %b = memref.alloc() : memref<16xf32, #sram>
    %c = memref.alloc() : memref<16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    %lx = tessel.dma %x to %c : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lw, %lx
    tessel.vector_binary add %b, %c, %b : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
    %u = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %u
    memref.dealloc %b : memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %b = memref.alloc() : memref<16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lw
    memref.dealloc %b : memref<16xf32, #sram>
  }
}

// -----

// A weight load that no other tile shares moves on into the previous op,
// to just after the tile's last load from DRAM there, marked
// `tessel.issued_early` (for tessel-assign-dma-channels): on tile (0, 0)
// the load of %w's first half (tile (0, 1) reads the other half) follows
// the load of %x, before the previous op computes, stores and
// synchronizes. The load of %v, which tile (0, 1) reads too, stays after
// the signal (loads issued one step early come out in reverse order: %w's
// goes ahead of %v's there; behind it, it would stay, so that each tile
// keeps its op's shared loads in the order tessel-share-loads pairs them).
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @weights_into_previous_op
// CHECK:         tessel.dma %{{.+}} to %{{.+}} : memref<16xf32, #dram> to memref<16xf32, #sram>
// CHECK-NEXT:    %[[W:.+]] = memref.subview %{{.+}}[0] [16] [1] : memref<32xf32, #dram>
// CHECK-NEXT:    %[[B:.+]] = memref.alloc() : memref<16xf32, #sram>
// CHECK-NEXT:    tessel.dma %[[W]] to %[[B]] {tessel.issued_early, tessel.share = 0 : i64}
// CHECK-NEXT:    tessel.wait
// CHECK-NEXT:    tessel.vector_unary exp
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() : memref<16xf32, #sram>
// CHECK-NEXT:    tessel.dma %{{.+}} to %{{.+}} {tessel.share = 0 : i64} : memref<16xf32, #dram>
// CHECK-NEXT:    tessel.wait_semaphore
tessel.device @weights_into_previous_op arch #tiny {
  %t = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<32xf32, #dram>
  %v = tessel.dram_buffer @v weight : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x to %a : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s = tessel.dma %a to %m : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %sem
    tessel.wait_semaphore %sem
    tessel.fence
    %w0 = memref.subview %w[0] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %b = memref.alloc() : memref<16xf32, #sram>
    %c = memref.alloc() : memref<16xf32, #sram>
    %d = memref.alloc() : memref<16xf32, #sram>
    %lm = tessel.dma %m to %d : memref<16xf32, #dram> to memref<16xf32, #sram>
    %lv = tessel.dma %v to %c {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    %lw = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %lw, %lv, %lm
    tessel.vector_binary add %b, %c, %b : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.vector_binary add %b, %d, %b : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
    %u = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %u
    memref.dealloc %b : memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    memref.dealloc %d : memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %w1 = memref.subview %w[16] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %b = memref.alloc() : memref<16xf32, #sram>
    %c = memref.alloc() : memref<16xf32, #sram>
    %lw = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    %lv = tessel.dma %v to %c {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lw, %lv
    memref.dealloc %b : memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Three steps whose loads other tiles share (`tessel.share`). By default
// each is issued one step ahead; from `min-shared-steps` steps on, the
// second and third steps' loads are issued together once the first step's
// load has arrived, before the first step computes, and marked so
// (`tessel.loaded_together`, for tessel-share-loads).
// CHECK-LABEL: tessel.device @shared_steps
// CHECK:         %[[T0:.+]] = tessel.dma %{{.+}} to %[[A0:[^ ]+]] {tessel.share
// CHECK:         tessel.wait %[[T0]]
// CHECK:         tessel.dma %{{.+}} to %[[A1:[^ ]+]] {tessel.share
// CHECK-NOT:     tessel.dma %{{.+}} {tessel.share
// CHECK:         tessel.vector_unary exp %[[A0]], %[[A0]]
// CHECK:         tessel.dma %{{.+}} to %[[A2:[^ ]+]] {tessel.share
// CHECK:         tessel.vector_unary exp %[[A1]], %[[A1]]
// TOGETHER-LABEL: tessel.device @shared_steps
// TOGETHER:       %[[T0:.+]] = tessel.dma %{{.+}} to %[[A0:[^ ]+]] {tessel.share
// TOGETHER:       tessel.wait %[[T0]]
// TOGETHER:       tessel.dma %{{.+}} to %[[A1:[^ ]+]] {tessel.loaded_together, tessel.share
// TOGETHER:       tessel.dma %{{.+}} to %[[A2:[^ ]+]] {tessel.loaded_together, tessel.share
// TOGETHER:       tessel.vector_unary exp %[[A0]], %[[A0]]
// TOGETHER:       tessel.vector_unary exp %[[A1]], %[[A1]]
// TOGETHER:       tessel.vector_unary exp %[[A2]], %[[A2]]
tessel.device @shared_steps arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<3x16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<3x16xf32, #dram>
  tessel.core(%t) {
    %x0 = memref.subview %x[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %y0 = memref.subview %y[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %a0 = memref.alloc() : memref<16xf32, #sram>
    %t0 = tessel.dma %x0 to %a0 {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %t0
    tessel.vector_unary exp %a0, %a0 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s0 = tessel.dma %a0 to %y0 : memref<16xf32, #sram> to memref<16xf32, strided<[1]>, #dram>
    tessel.wait %s0
    memref.dealloc %a0 : memref<16xf32, #sram>
    %x1 = memref.subview %x[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %y1 = memref.subview %y[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %a1 = memref.alloc() : memref<16xf32, #sram>
    %t1 = tessel.dma %x1 to %a1 {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %t1
    tessel.vector_unary exp %a1, %a1 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s1 = tessel.dma %a1 to %y1 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    tessel.wait %s1
    memref.dealloc %a1 : memref<16xf32, #sram>
    %x2 = memref.subview %x[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %y2 = memref.subview %y[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %a2 = memref.alloc() : memref<16xf32, #sram>
    %t2 = tessel.dma %x2 to %a2 {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 32>, #dram> to memref<16xf32, #sram>
    tessel.wait %t2
    tessel.vector_unary exp %a2, %a2 : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s2 = tessel.dma %a2 to %y2 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    tessel.wait %s2
    memref.dealloc %a2 : memref<16xf32, #sram>
  }
}

// -----

// No weight load moves into the op before on a tile with one DMA channel
// (it could keep none to itself), nor into a buffer resident across a
// stream's inputs (loaded once): both stay after the signal.
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#one = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 1, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @one_channel
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    tessel.dma %w to
// CHECK-NEXT:    tessel.wait_semaphore
// CHECK-LABEL: tessel.device @resident
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() {tessel.resident}
// CHECK-NEXT:    tessel.dma %w to
// CHECK-NEXT:    tessel.wait_semaphore
tessel.device @one_channel arch #one {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x to %a : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s = tessel.dma %a to %m : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %sem
    tessel.wait_semaphore %sem
    tessel.fence
    %b = memref.alloc() : memref<16xf32, #sram>
    %lw = tessel.dma %w to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lw
    %u = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %u
    memref.dealloc %b : memref<16xf32, #sram>
  }
}
tessel.device @resident arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %sem = tessel.semaphore on %t
  tessel.core(%t) {
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x to %a : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s = tessel.dma %a to %m : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %sem
    tessel.wait_semaphore %sem
    tessel.fence
    %b = memref.alloc() {tessel.resident} : memref<16xf32, #sram>
    %lw = tessel.dma %w to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lw
    %u = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %u
    memref.dealloc %b : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A weight both cores read (`@w`, shared by tessel-share-loads) and that
// follows compute leaving its buffer alone (the bias copied into the
// accumulator) moves into the op before on every core, right after that
// op's read of DRAM, marked `tessel.issued_early`: each core's leader then
// waits there for the other's credit, which it gives at the same place.
// The bias, smaller than a transfer's fixed cost, stays; the two change
// places in both cores alike.
// CHECK-LABEL: tessel.device @shared_weights_into_previous_op
// CHECK:         tessel.core
// CHECK:         tessel.dma %{{.+}} {tessel.share = 0 : i64}
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 1 : i64}
// CHECK:         tessel.signal
// CHECK:         tessel.dma %bias to %{{.+}} {tessel.share = 1 : i64}
// CHECK:         tessel.core
// CHECK:         tessel.dma %{{.+}} {tessel.share = 0 : i64}
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 1 : i64}
// CHECK:         tessel.signal
// CHECK:         tessel.dma %bias to %{{.+}} {tessel.share = 1 : i64}
tessel.device @shared_weights_into_previous_op arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<32xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<32xf32, #dram>
  %bias = tessel.dram_buffer @bias weight : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %done0 = tessel.semaphore on %t0
  %done1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %x0 = memref.subview %x[0] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 0>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done1
    tessel.wait_semaphore %done0
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %x1 = memref.subview %x[16] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done0
    tessel.wait_semaphore %done1
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same, but the second core's op before reads DRAM through no load
// marked for sharing: there its leader could wait for a credit the other
// gives only past the barrier. The weight stays on every core.
// CHECK-LABEL: tessel.device @shared_weights_stay_on_every_core
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 1 : i64}
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 1 : i64}
// CHECK-NOT:     tessel.issued_early
tessel.device @shared_weights_stay_on_every_core arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<32xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<32xf32, #dram>
  %bias = tessel.dram_buffer @bias weight : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %done0 = tessel.semaphore on %t0
  %done1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %x0 = memref.subview %x[0] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 0>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done1
    tessel.wait_semaphore %done0
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %x1 = memref.subview %x[16] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x1 to %a : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done0
    tessel.wait_semaphore %done1
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same, but the op before stores its result to DRAM after its read:
// the early multicast would take DRAM from the stores the barrier waits
// for. The weight stays.
// CHECK-LABEL: tessel.device @shared_weights_stay_behind_stores
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 1 : i64}
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 1 : i64}
// CHECK-NOT:     tessel.issued_early
tessel.device @shared_weights_stay_behind_stores arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<32xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<32xf32, #dram>
  %bias = tessel.dram_buffer @bias weight : memref<16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %done0 = tessel.semaphore on %t0
  %done1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %x0 = memref.subview %x[0] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 0>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %m0 = memref.subview %m[0] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 0>, #dram>
    %s = tessel.dma %a to %m0 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done1
    tessel.wait_semaphore %done0
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %x1 = memref.subview %x[16] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %a = memref.alloc() : memref<16xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<16xf32, #sram>, memref<16xf32, #sram>
    %m1 = memref.subview %m[16] [16] [1] : memref<32xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %s = tessel.dma %a to %m1 : memref<16xf32, #sram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16xf32, #sram>
    tessel.signal %done0
    tessel.wait_semaphore %done1
    tessel.fence
    %c = memref.alloc() : memref<16xf32, #sram>
    %acc = memref.alloc() : memref<16xf32, #sram>
    %lc = tessel.dma %bias to %c {tessel.share = 1 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %lc
    tessel.vector_unary copy %c, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    tessel.vector_unary exp %acc, %acc : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
    memref.dealloc %acc : memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The op before stores its 256-byte result to DRAM after its read, but
// computes first: four MAC-array blocks of 36 cycles at the SRAM port,
// during which a DMA channel (8 bytes a cycle) moves 1,152 bytes, more
// than the 1 KB weight. The early multicast then runs while the DRAM
// would idle, and the weight moves after the op's reads on both cores.
// CHECK-LABEL: tessel.device @shared_weights_behind_compute_before_stores
// CHECK:         tessel.dma %{{.+}} to %{{.+}} {tessel.share = 0 : i64} : memref<16x4xf32, strided<[4, 1]>, #dram>
// CHECK:         tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 1 : i64}
// CHECK:         tessel.matmul init
// CHECK:         tessel.dma %{{.+}} to %{{.+}} {tessel.share = 0 : i64} : memref<16x4xf32, strided<[4, 1], offset: 64>, #dram>
// CHECK:         tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 1 : i64}
// CHECK:         tessel.matmul init
tessel.device @shared_weights_behind_compute_before_stores arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<32x4xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<32x4xf32, #dram>
  %kw = tessel.dram_buffer @kw weight : memref<4x4xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %done0 = tessel.semaphore on %t0
  %done1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %x0 = memref.subview %x[0, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: 0>, #dram>
    %k = memref.alloc() : memref<4x4xf32, #sram>
    %lk = tessel.dma %kw to %k {tessel.share = 0 : i64} : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    %a = memref.alloc() : memref<16x4xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 0 : i64} : memref<16x4xf32, strided<[4, 1], offset: 0>, #dram> to memref<16x4xf32, #sram>
    tessel.wait %lk, %lx
    %acc = memref.alloc() : memref<16x4xf32, #sram>
    tessel.matmul init %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    %m0 = memref.subview %m[0, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: 0>, #dram>
    %s = tessel.dma %acc to %m0 : memref<16x4xf32, #sram> to memref<16x4xf32, strided<[4, 1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16x4xf32, #sram>
    memref.dealloc %k : memref<4x4xf32, #sram>
    memref.dealloc %acc : memref<16x4xf32, #sram>
    tessel.signal %done1
    tessel.wait_semaphore %done0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %x1 = memref.subview %x[16, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: 64>, #dram>
    %k = memref.alloc() : memref<4x4xf32, #sram>
    %lk = tessel.dma %kw to %k {tessel.share = 0 : i64} : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    %a = memref.alloc() : memref<16x4xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 0 : i64} : memref<16x4xf32, strided<[4, 1], offset: 64>, #dram> to memref<16x4xf32, #sram>
    tessel.wait %lk, %lx
    %acc = memref.alloc() : memref<16x4xf32, #sram>
    tessel.matmul init %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    tessel.matmul %a, %k, %acc : memref<16x4xf32, #sram>, memref<4x4xf32, #sram>, memref<16x4xf32, #sram>
    %m1 = memref.subview %m[16, 0] [16, 4] [1, 1] : memref<32x4xf32, #dram> to memref<16x4xf32, strided<[4, 1], offset: 64>, #dram>
    %s = tessel.dma %acc to %m1 : memref<16x4xf32, #sram> to memref<16x4xf32, strided<[4, 1], offset: 64>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<16x4xf32, #sram>
    memref.dealloc %k : memref<4x4xf32, #sram>
    memref.dealloc %acc : memref<16x4xf32, #sram>
    tessel.signal %done0
    tessel.wait_semaphore %done1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A shared weight whose buffer would not fit beside the op before's
// buffers right after its read moves lower, after they are freed, still
// before that op's synchronization.
// CHECK-LABEL: tessel.device @shared_weights_below_freed_buffers
// CHECK:         tessel.dma %{{.+}} {tessel.share = 0 : i64}
// CHECK-NEXT:    tessel.wait
// CHECK-NEXT:    tessel.vector_unary exp
// CHECK-NEXT:    memref.dealloc %{{.+}} : memref<3900xf32, #sram>
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 1 : i64}
// CHECK:         tessel.signal
tessel.device @shared_weights_below_freed_buffers arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<2x3900xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %done0 = tessel.semaphore on %t0
  %done1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %x0 = memref.subview %x[0, 0] [1, 3900] [1, 1] : memref<2x3900xf32, #dram> to memref<3900xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<3900xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 0 : i64} : memref<3900xf32, strided<[1], offset: 0>, #dram> to memref<3900xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<3900xf32, #sram>, memref<3900xf32, #sram>
    memref.dealloc %a : memref<3900xf32, #sram>
    %c = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_unary exp %c, %c : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    tessel.signal %done1
    tessel.wait_semaphore %done0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %x1 = memref.subview %x[1, 0] [1, 3900] [1, 1] : memref<2x3900xf32, #dram> to memref<3900xf32, strided<[1], offset: 3900>, #dram>
    %a = memref.alloc() : memref<3900xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 0 : i64} : memref<3900xf32, strided<[1], offset: 3900>, #dram> to memref<3900xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<3900xf32, #sram>, memref<3900xf32, #sram>
    memref.dealloc %a : memref<3900xf32, #sram>
    %c = memref.alloc() : memref<16xf32, #sram>
    tessel.vector_unary exp %c, %c : memref<16xf32, #sram>, memref<16xf32, #sram>
    memref.dealloc %c : memref<16xf32, #sram>
    tessel.signal %done0
    tessel.wait_semaphore %done1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 1 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A shared weight behind an op that stores after its read, which itself
// reads and stores little (a layer norm's mean, say), moves to the end of
// the op before that, which read DRAM in earnest: after its signals, on
// every core alike. The DRAM carries the weight while the light op runs.
// CHECK-LABEL: tessel.device @shared_weights_past_light_ops
// CHECK:         tessel.dma %u to %{{.+}} {tessel.share = 0 : i64}
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 2 : i64}
// CHECK-NEXT:    tessel.wait_semaphore
// CHECK:         tessel.dma %u to %{{.+}} {tessel.share = 0 : i64}
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 2 : i64}
// CHECK-NEXT:    tessel.wait_semaphore
tessel.device @shared_weights_past_light_ops arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<16xf32, #dram>
  %u = tessel.dram_buffer @u weight : memref<16x16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %first0 = tessel.semaphore on %t0
  %first1 = tessel.semaphore on %t1
  %second0 = tessel.semaphore on %t0
  %second1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first1
    tessel.wait_semaphore %first0
    %x0 = memref.subview %x[0] [8] [1] : memref<16xf32, #dram> to memref<8xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<8xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 1 : i64} : memref<8xf32, strided<[1], offset: 0>, #dram> to memref<8xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[0] [8] [1] : memref<16xf32, #dram> to memref<8xf32, strided<[1], offset: 0>, #dram>
    %s = tessel.dma %a to %m0 : memref<8xf32, #sram> to memref<8xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second1
    tessel.wait_semaphore %second0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first0
    tessel.wait_semaphore %first1
    %x1 = memref.subview %x[8] [8] [1] : memref<16xf32, #dram> to memref<8xf32, strided<[1], offset: 8>, #dram>
    %a = memref.alloc() : memref<8xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 1 : i64} : memref<8xf32, strided<[1], offset: 8>, #dram> to memref<8xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m1 = memref.subview %m[8] [8] [1] : memref<16xf32, #dram> to memref<8xf32, strided<[1], offset: 8>, #dram>
    %s = tessel.dma %a to %m1 : memref<8xf32, #sram> to memref<8xf32, strided<[1], offset: 8>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second0
    tessel.wait_semaphore %second1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same, but the op between loads and stores half the weight's bytes
// (an eighth would do): the early multicast would take DRAM from it. The
// weight stays.
// CHECK-LABEL: tessel.device @shared_weights_not_past_heavy_ops
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
tessel.device @shared_weights_not_past_heavy_ops arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<128xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<128xf32, #dram>
  %u = tessel.dram_buffer @u weight : memref<16x16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %first0 = tessel.semaphore on %t0
  %first1 = tessel.semaphore on %t1
  %second0 = tessel.semaphore on %t0
  %second1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first1
    tessel.wait_semaphore %first0
    %x0 = memref.subview %x[0] [64] [1] : memref<128xf32, #dram> to memref<64xf32, strided<[1], offset: 0>, #dram>
    %a = memref.alloc() : memref<64xf32, #sram>
    %lx = tessel.dma %x0 to %a {tessel.share = 1 : i64} : memref<64xf32, strided<[1], offset: 0>, #dram> to memref<64xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<64xf32, #sram>, memref<64xf32, #sram>
    %m0 = memref.subview %m[0] [64] [1] : memref<128xf32, #dram> to memref<64xf32, strided<[1], offset: 0>, #dram>
    %s = tessel.dma %a to %m0 : memref<64xf32, #sram> to memref<64xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<64xf32, #sram>
    tessel.signal %second1
    tessel.wait_semaphore %second0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first0
    tessel.wait_semaphore %first1
    %x1 = memref.subview %x[64] [64] [1] : memref<128xf32, #dram> to memref<64xf32, strided<[1], offset: 64>, #dram>
    %a = memref.alloc() : memref<64xf32, #sram>
    %lx = tessel.dma %x1 to %a {tessel.share = 1 : i64} : memref<64xf32, strided<[1], offset: 64>, #dram> to memref<64xf32, #sram>
    tessel.wait %lx
    tessel.vector_unary exp %a, %a : memref<64xf32, #sram>, memref<64xf32, #sram>
    %m1 = memref.subview %m[64] [64] [1] : memref<128xf32, #dram> to memref<64xf32, strided<[1], offset: 64>, #dram>
    %s = tessel.dma %a to %m1 : memref<64xf32, #sram> to memref<64xf32, strided<[1], offset: 64>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<64xf32, #sram>
    tessel.signal %second0
    tessel.wait_semaphore %second1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The op between moves little through DRAM (7 floats in, 1 out), but in
// 8 transfers: queued on one DMA channel while a leader's early multicast
// holds the other, their setups (8 x 10 cycles x 8 B/cycle, twice over)
// would outweigh the 1 KB weight. The weight stays.
// CHECK-LABEL: tessel.device @shared_weights_not_past_many_transfers
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
tessel.device @shared_weights_not_past_many_transfers arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<2xf32, #dram>
  %u = tessel.dram_buffer @u weight : memref<16x16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %first0 = tessel.semaphore on %t0
  %first1 = tessel.semaphore on %t1
  %second0 = tessel.semaphore on %t0
  %second1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first1
    tessel.wait_semaphore %first0
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[0] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 0>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[1] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 1>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[2] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 2>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 2>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    %x3 = memref.subview %x[3] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 3>, #dram>
    %a3 = memref.subview %a[3] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 3>, #sram>
    %l3 = tessel.dma %x3 to %a3 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 3>, #dram> to memref<1xf32, strided<[1], offset: 3>, #sram>
    tessel.wait %l3
    %x4 = memref.subview %x[4] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 4>, #dram>
    %a4 = memref.subview %a[4] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 4>, #sram>
    %l4 = tessel.dma %x4 to %a4 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 4>, #dram> to memref<1xf32, strided<[1], offset: 4>, #sram>
    tessel.wait %l4
    %x5 = memref.subview %x[5] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 5>, #dram>
    %a5 = memref.subview %a[5] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 5>, #sram>
    %l5 = tessel.dma %x5 to %a5 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 5>, #dram> to memref<1xf32, strided<[1], offset: 5>, #sram>
    tessel.wait %l5
    %x6 = memref.subview %x[6] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 6>, #dram>
    %a6 = memref.subview %a[6] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 6>, #sram>
    %l6 = tessel.dma %x6 to %a6 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 6>, #dram> to memref<1xf32, strided<[1], offset: 6>, #sram>
    tessel.wait %l6
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[0] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second1
    tessel.wait_semaphore %second0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first0
    tessel.wait_semaphore %first1
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[8] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 8>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 8>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[9] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 9>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 9>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[10] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 10>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 10>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    %x3 = memref.subview %x[11] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 11>, #dram>
    %a3 = memref.subview %a[3] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 3>, #sram>
    %l3 = tessel.dma %x3 to %a3 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 11>, #dram> to memref<1xf32, strided<[1], offset: 3>, #sram>
    tessel.wait %l3
    %x4 = memref.subview %x[12] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 12>, #dram>
    %a4 = memref.subview %a[4] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 4>, #sram>
    %l4 = tessel.dma %x4 to %a4 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 12>, #dram> to memref<1xf32, strided<[1], offset: 4>, #sram>
    tessel.wait %l4
    %x5 = memref.subview %x[13] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 13>, #dram>
    %a5 = memref.subview %a[5] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 5>, #sram>
    %l5 = tessel.dma %x5 to %a5 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 13>, #dram> to memref<1xf32, strided<[1], offset: 5>, #sram>
    tessel.wait %l5
    %x6 = memref.subview %x[14] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 14>, #dram>
    %a6 = memref.subview %a[6] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 6>, #sram>
    %l6 = tessel.dma %x6 to %a6 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 14>, #dram> to memref<1xf32, strided<[1], offset: 6>, #sram>
    tessel.wait %l6
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[1] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second0
    tessel.wait_semaphore %second1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The op between reads 3 floats in 3 transfers, which the weight
// outweighs, but the second core reads its first op's weight through no
// load marked for sharing: it finds no op end to agree on, so the weight
// stays on both cores.
// CHECK-LABEL: tessel.device @shared_weights_past_light_ops_on_every_core
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
// CHECK:         tessel.dma %w to %{{.+}} {tessel.share = 2 : i64}
// CHECK-NOT:     tessel.issued_early
tessel.device @shared_weights_past_light_ops_on_every_core arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<2xf32, #dram>
  %u = tessel.dram_buffer @u weight : memref<16x16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %first0 = tessel.semaphore on %t0
  %first1 = tessel.semaphore on %t1
  %second0 = tessel.semaphore on %t0
  %second1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first1
    tessel.wait_semaphore %first0
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[0] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 0>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[1] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 1>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[2] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 2>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 2>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[0] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second1
    tessel.wait_semaphore %second0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first0
    tessel.wait_semaphore %first1
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[8] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 8>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 8>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[9] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 9>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 9>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[10] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 10>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 10>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[1] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second0
    tessel.wait_semaphore %second1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same, with the second core's weight marked: both move.
// CHECK-LABEL: tessel.device @shared_weights_past_few_transfers
// CHECK:         tessel.dma %u to %{{.+}} {tessel.share = 0 : i64}
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 2 : i64}
// CHECK-NEXT:    tessel.wait_semaphore
// CHECK:         tessel.dma %u to %{{.+}} {tessel.share = 0 : i64}
// CHECK:         tessel.signal
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NEXT:    tessel.dma %w to %{{.+}} {tessel.issued_early, tessel.share = 2 : i64}
// CHECK-NEXT:    tessel.wait_semaphore
tessel.device @shared_weights_past_few_transfers arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %m = tessel.dram_buffer @m scratch : memref<2xf32, #dram>
  %u = tessel.dram_buffer @u weight : memref<16x16xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<16x16xf32, #dram>
  %first0 = tessel.semaphore on %t0
  %first1 = tessel.semaphore on %t1
  %second0 = tessel.semaphore on %t0
  %second1 = tessel.semaphore on %t1
  tessel.core(%t0) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first1
    tessel.wait_semaphore %first0
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[0] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 0>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[1] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 1>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[2] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 2>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 2>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[0] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 0>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second1
    tessel.wait_semaphore %second0
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
  tessel.core(%t1) {
    %v = memref.alloc() : memref<16x16xf32, #sram>
    %lv = tessel.dma %u to %v {tessel.share = 0 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lv
    tessel.vector_unary exp %v, %v : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %v : memref<16x16xf32, #sram>
    tessel.signal %first0
    tessel.wait_semaphore %first1
    %a = memref.alloc() : memref<8xf32, #sram>
    %x0 = memref.subview %x[8] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 8>, #dram>
    %a0 = memref.subview %a[0] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    %l0 = tessel.dma %x0 to %a0 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 8>, #dram> to memref<1xf32, strided<[1], offset: 0>, #sram>
    tessel.wait %l0
    %x1 = memref.subview %x[9] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 9>, #dram>
    %a1 = memref.subview %a[1] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    %l1 = tessel.dma %x1 to %a1 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 9>, #dram> to memref<1xf32, strided<[1], offset: 1>, #sram>
    tessel.wait %l1
    %x2 = memref.subview %x[10] [1] [1] : memref<16xf32, #dram> to memref<1xf32, strided<[1], offset: 10>, #dram>
    %a2 = memref.subview %a[2] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    %l2 = tessel.dma %x2 to %a2 {tessel.share = 1 : i64} : memref<1xf32, strided<[1], offset: 10>, #dram> to memref<1xf32, strided<[1], offset: 2>, #sram>
    tessel.wait %l2
    tessel.vector_unary exp %a, %a : memref<8xf32, #sram>, memref<8xf32, #sram>
    %m0 = memref.subview %m[1] [1] [1] : memref<2xf32, #dram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    %a7 = memref.subview %a[7] [1] [1] : memref<8xf32, #sram> to memref<1xf32, strided<[1], offset: 7>, #sram>
    %s = tessel.dma %a7 to %m0 : memref<1xf32, strided<[1], offset: 7>, #sram> to memref<1xf32, strided<[1], offset: 1>, #dram>
    tessel.wait %s
    memref.dealloc %a : memref<8xf32, #sram>
    tessel.signal %second0
    tessel.wait_semaphore %second1
    tessel.fence
    %b = memref.alloc() : memref<16x16xf32, #sram>
    %lw = tessel.dma %w to %b {tessel.share = 2 : i64} : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    tessel.wait %lw
    tessel.vector_unary exp %b, %b : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    memref.dealloc %b : memref<16x16xf32, #sram>
  }
}
