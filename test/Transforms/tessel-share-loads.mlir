// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-share-loads -tessel-check-synchronization | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two tiles of one op (share group 0) each load row 0 of @w, their own row
// of @x, then row 1 of @w. The rows of @w are read once and multicast into
// both tiles' buffers, the leader taking turns (tile (0, 0), then (0, 1));
// the rows of @x differ and stay plain loads. A receiver signals its credit
// where its load was and waits for the delivery where it waited for the
// load.
// CHECK-LABEL: tessel.device @rows
// CHECK-DAG:     %[[CREDIT0:.+]] = tessel.semaphore on %tile_0_0
// CHECK-DAG:     %[[ARENA1:.+]] = tessel.buffer @sram_0_1 on %tile_0_1
// CHECK-DAG:     %[[READY1:.+]] = tessel.semaphore on %tile_0_1
// CHECK-DAG:     %[[CREDIT1:.+]] = tessel.semaphore on %tile_0_1
// CHECK-DAG:     %[[ARENA0:.+]] = tessel.buffer @sram_0_0 on %tile_0_0
// CHECK-DAG:     %[[READY0:.+]] = tessel.semaphore on %tile_0_0
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           %[[B:.+]] = memref.view %[[ARENA0]]
// CHECK:           %[[W0:.+]] = memref.subview %w[0, 0]
// CHECK:           tessel.wait_semaphore %[[CREDIT0]]
// CHECK:           %[[B1:.+]] = memref.view %[[ARENA1]][%{{.+}}]
// CHECK:           %[[M0:.+]] = tessel.dma_multicast %[[W0]] to %[[B]], %[[B1]]
// CHECK:           tessel.signal %[[READY1]]
// CHECK:           %[[D:.+]] = tessel.dma
// CHECK:           tessel.wait %[[M0]], %[[D]]
// CHECK:           tessel.vector_binary add
// CHECK:           tessel.signal %[[CREDIT1]]
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore %[[READY0]]
// CHECK-NEXT:      tessel.vector_binary add
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.signal %[[CREDIT0]]
// CHECK:           %[[D:.+]] = tessel.dma
// CHECK:           tessel.wait_semaphore %[[READY1]]
// CHECK-NEXT:      tessel.wait %[[D]]
// CHECK:           tessel.wait_semaphore %[[CREDIT1]]
// CHECK:           %[[M1:.+]] = tessel.dma_multicast %{{.+}} to %{{.+}}, %{{.+}}
// CHECK:           tessel.signal %[[READY0]]
// CHECK:           tessel.wait %[[M1]]
// CHECK-NOT:     tessel.share
tessel.device @rows arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<2x16xf32, #dram>
  %x = tessel.dram_buffer @x input : memref<2x16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<128xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<128xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a0[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    %e = memref.view %a0[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %x0 = memref.subview %x[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d1 = tessel.dma %x0 to %e {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0, %d1
    tessel.vector_binary add %b, %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d2 = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d2
    tessel.vector_binary add %b, %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a1[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    %e = memref.view %a1[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %x1 = memref.subview %x[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %x1 to %e {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0, %d1
    tessel.vector_binary add %b, %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d2 = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d2
    tessel.vector_binary add %b, %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Loads without the mark (an op not mapped `shared`) are left alone, even
// when they read the same slice.
// CHECK-LABEL: tessel.device @unmarked
// CHECK-NOT:     tessel.dma_multicast
// CHECK-NOT:     tessel.semaphore
tessel.device @unmarked arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<64xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<64xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %d = tessel.dma %w to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %d = tessel.dma %w to %b : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Before tessel-allocate-sram a buffer is an allocation of its core, which
// another core cannot address.
tessel.device @unplaced arch #tiny {
  %t0 = tessel.tile(0, 0)
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  tessel.core(%t0) {
    %b = memref.alloc() : memref<16xf32, #sram>
    // expected-error @+1 {{'tessel.dma' op loads into a buffer that has no SRAM address yet; run tessel-allocate-sram before tessel-share-loads, so that another tile can deliver into it}}
    %d = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d
  }
}
