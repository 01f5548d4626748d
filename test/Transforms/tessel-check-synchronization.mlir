// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-check-synchronization | FileCheck %s

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A barrier between two tiles: each signals the other's semaphore, then
// waits on its own. Whichever runs first, both get through.
// CHECK-LABEL: tessel.device @barrier
tessel.device @barrier arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %sa = tessel.semaphore on %a
  %sb = tessel.semaphore on %b
  tessel.core(%a) {
    tessel.signal %sb
    tessel.wait_semaphore %sa
  }
  tessel.core(%b) {
    tessel.signal %sa
    tessel.wait_semaphore %sb
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Both tiles wait before they signal: a deadlock, reported on the first
// core, with a note on the other.
tessel.device @crossed arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %sa = tessel.semaphore on %a
  %sb = tessel.semaphore on %b
  tessel.core(%a) {
    // expected-error @below {{'tessel.wait_semaphore' op would wait forever: the core of tile (0, 0) waits for 1 on its semaphore, which can only reach 0 (every signal the other cores can send has arrived); the program would deadlock}}
    tessel.wait_semaphore %sa
    tessel.signal %sb
  }
  tessel.core(%b) {
    // expected-note @below {{tile (0, 1) is stuck here too}}
    tessel.wait_semaphore %sb
    tessel.signal %sa
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A wait for more than will ever be signalled; an initial value counts.
tessel.device @short arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %sa = tessel.semaphore on %a init 1
  tessel.core(%a) {
    // expected-error @below {{waits for 3 on its semaphore, which can only reach 2}}
    tessel.wait_semaphore %sa for 3
  }
  tessel.core(%b) {
    tessel.signal %sa
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>

// A multicast into tile (0, 1)'s SRAM that no signal to (0, 1) follows:
// that tile could never know its data has arrived.
tessel.device @unsignalled arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %ba = tessel.buffer @ba on %a : memref<16xf32, #sram>
  %bb = tessel.buffer @bb on %b : memref<16xf32, #sram>
  %sa = tessel.semaphore on %a
  tessel.core(%a) {
    // expected-error @below {{'tessel.dma_multicast' op delivers into the SRAM of tile (0, 1) but the core of tile (0, 0) signals no semaphore of that tile afterwards, so it cannot know when the data has arrived; signal it after the transfer}}
    %m = tessel.dma_multicast %x to %ba, %bb : memref<16xf32, #dram> to memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %m
    tessel.wait_semaphore %sa
  }
  tessel.core(%b) {
    tessel.signal %sa
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>

// The same multicast followed by a signal to (0, 1), which waits for it
// before it reads its buffer.
// CHECK-LABEL: tessel.device @signalled
tessel.device @signalled arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %ba = tessel.buffer @ba on %a : memref<16xf32, #sram>
  %bb = tessel.buffer @bb on %b : memref<16xf32, #sram>
  %sb = tessel.semaphore on %b
  tessel.core(%a) {
    %m = tessel.dma_multicast %x to %ba, %bb : memref<16xf32, #dram> to memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.signal %sb
    tessel.wait %m
  }
  tessel.core(%b) {
    tessel.wait_semaphore %sb
    tessel.vector_unary exp %bb, %bb : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>

// A multicast that waits for its receiver's credit (its DMA does; checked
// as the core's own wait before it): (0, 1) gives the credit before it
// waits for the delivery, so both get through.
// CHECK-LABEL: tessel.device @credited
tessel.device @credited arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %ba = tessel.buffer @ba on %a : memref<16xf32, #sram>
  %bb = tessel.buffer @bb on %b : memref<16xf32, #sram>
  %free = tessel.semaphore on %a
  %ready = tessel.semaphore on %b
  tessel.core(%a) {
    %m = tessel.dma_multicast %x to %ba, %bb after %free : memref<16xf32, #dram> to memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.signal %ready
    tessel.wait %m
  }
  tessel.core(%b) {
    tessel.signal %free
    tessel.wait_semaphore %ready
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>

// The credit given only after the delivery it waits for: the DMA of
// (0, 0) would wait forever (and a core taking the credit itself would).
tessel.device @credit_after_delivery arch #tiny {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %ba = tessel.buffer @ba on %a : memref<16xf32, #sram>
  %bb = tessel.buffer @bb on %b : memref<16xf32, #sram>
  %free = tessel.semaphore on %a
  %ready = tessel.semaphore on %b
  tessel.core(%a) {
    // expected-error @below {{'tessel.dma_multicast' op would wait forever: the DMA engine of tile (0, 0) waits for credit #0, for 1 on its semaphore, which can only reach 0 (every signal the other cores can send has arrived); the program would deadlock}}
    %m = tessel.dma_multicast %x to %ba, %bb after %free : memref<16xf32, #dram> to memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.signal %ready
    tessel.wait %m
  }
  tessel.core(%b) {
    // expected-note @below {{tile (0, 1) is stuck here too}}
    tessel.wait_semaphore %ready
    tessel.signal %free
  }
}
