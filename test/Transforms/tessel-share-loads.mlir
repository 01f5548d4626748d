// RUN: tessel-opt %s -split-input-file -verify-diagnostics -tessel-share-loads -tessel-check-synchronization | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

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
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Three tiles load overlapping rows of @x (a convolution's halos): rows
// 0-3, 2-5 and 4-7. The buffer is cut into cells by who reads them: rows
// 0-1 only tile (0, 0) reads, a plain load of its first two rows; rows 2-3
// tiles (0, 0) and (0, 1) read, one multicast into the bottom half of the
// first's buffer and the top half of the second's; rows 4-5 tiles (0, 1)
// and (0, 2), led by (0, 2) (each pair of tiles starts its turns at a
// different place); rows 6-7 only tile (0, 2). Each row is read from DRAM
// once. Tile (0, 1) reads nothing itself: it signals both leaders where
// its load was and waits for both deliveries where it waited for it.
// (Cutting pays here: per window it saves 683 bytes, more than the 480
// that one transfer of #tiny moves in its fixed cost, 10 cycles of DMA
// setup and 50 of DRAM latency at 8 bytes per cycle.)
// CHECK-LABEL: tessel.device @halos
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           %[[B:.+]] = memref.view
// CHECK:           %[[X:.+]] = memref.subview %x[0, 0] [4, 128]
// CHECK:           tessel.wait_semaphore %[[CREDIT01:.+]]
// CHECK:           %[[X0:.+]] = memref.subview %[[X]][0, 0] [2, 128] [1, 1]
// CHECK:           %[[B0:.+]] = memref.subview %[[B]][0, 0] [2, 128] [1, 1]
// CHECK:           %[[D:.+]] = tessel.dma %[[X0]] to %[[B0]]
// CHECK:           %[[X1:.+]] = memref.subview %[[X]][2, 0] [2, 128] [1, 1]
// CHECK:           %[[B1:.+]] = memref.subview %[[B]][2, 0] [2, 128] [1, 1]
// CHECK:           %[[C:.+]] = memref.view
// CHECK:           %[[C0:.+]] = memref.subview %[[C]][0, 0] [2, 128] [1, 1]
// CHECK:           %[[M:.+]] = tessel.dma_multicast %[[X1]] to %[[B1]], %[[C0]]
// CHECK-SAME:        memref<2x128xf32, strided<[128, 1], offset: 256>, #dram> to memref<2x128xf32, strided<[128, 1], offset: 256>, #sram>, memref<2x128xf32, strided<[128, 1]>, #sram>
// CHECK:           tessel.signal %[[READY10:.+]]
// CHECK:           tessel.wait %[[D]], %[[M]]
// CHECK:         tessel.core(%tile_0_1) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.signal %[[CREDIT01]]
// CHECK-NEXT:      tessel.signal %[[CREDIT21:.+]]
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore %[[READY10]]
// CHECK-NEXT:      tessel.wait_semaphore %[[READY12:.+]]
// CHECK-NOT:       tessel.wait
// CHECK:           tessel.vector_unary
// CHECK:         tessel.core(%tile_0_2) {
// CHECK:           tessel.wait_semaphore %[[CREDIT21]]
// CHECK:           tessel.dma_multicast %{{.+}} to %{{.+}}, %{{.+}} :
// CHECK-SAME:        memref<2x128xf32, strided<[128, 1], offset: 512>, #dram>
// CHECK:           %[[D2:.+]] = tessel.dma %{{.+}} to %{{.+}} :
// CHECK-SAME:        memref<2x128xf32, strided<[128, 1], offset: 768>, #dram>
// CHECK:           tessel.signal %[[READY12]]
tessel.device @halos arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %t2 = tessel.tile(0, 2)
  %x = tessel.dram_buffer @x input : memref<8x128xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<2048xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<2048xi8, #sram>
  %a2 = tessel.buffer @sram_0_2 on %t2 at 0 : memref<2048xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<2048xi8, #sram> to memref<4x128xf32, #sram>
    %x0 = memref.subview %x[0, 0] [4, 128] [1, 1] : memref<8x128xf32, #dram> to memref<4x128xf32, strided<[128, 1]>, #dram>
    %d = tessel.dma %x0 to %b {tessel.share = 0 : i64} : memref<4x128xf32, strided<[128, 1]>, #dram> to memref<4x128xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x128xf32, #sram>, memref<4x128xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<2048xi8, #sram> to memref<4x128xf32, #sram>
    %x1 = memref.subview %x[2, 0] [4, 128] [1, 1] : memref<8x128xf32, #dram> to memref<4x128xf32, strided<[128, 1], offset: 256>, #dram>
    %d = tessel.dma %x1 to %b {tessel.share = 0 : i64} : memref<4x128xf32, strided<[128, 1], offset: 256>, #dram> to memref<4x128xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x128xf32, #sram>, memref<4x128xf32, #sram>
  }
  tessel.core(%t2) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a2[%c0][] : memref<2048xi8, #sram> to memref<4x128xf32, #sram>
    %x2 = memref.subview %x[4, 0] [4, 128] [1, 1] : memref<8x128xf32, #dram> to memref<4x128xf32, strided<[128, 1], offset: 512>, #dram>
    %d = tessel.dma %x2 to %b {tessel.share = 0 : i64} : memref<4x128xf32, strided<[128, 1], offset: 512>, #dram> to memref<4x128xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x128xf32, #sram>, memref<4x128xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Windows of different sizes share too: tile (0, 0) loads rows 0-2 into
// the last three rows of its buffer (a padded window, its first row the
// border it filled), tile (0, 1) rows 1-4. Rows 1-2 are read once and
// multicast into rows 2-3 of the first buffer and rows 0-1 of the second:
// the targets differ in offset but not in strides.
// CHECK-LABEL: tessel.device @padded_halos
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.dma %{{.+}} to %{{.+}} : memref<1x128xf32, strided<[128, 1]>, #dram> to memref<1x128xf32, strided<[128, 1], offset: 128>, #sram>
// CHECK:           tessel.dma_multicast %{{.+}} to %{{.+}}, %{{.+}} : memref<2x128xf32, strided<[128, 1], offset: 128>, #dram> to memref<2x128xf32, strided<[128, 1], offset: 256>, #sram>, memref<2x128xf32, strided<[128, 1]>, #sram>
// CHECK:         tessel.core(%tile_0_1) {
// CHECK-NOT:       tessel.dma_multicast
// CHECK:           tessel.dma %{{.+}} to %{{.+}} : memref<2x128xf32, strided<[128, 1], offset: 384>, #dram> to memref<2x128xf32, strided<[128, 1], offset: 256>, #sram>
tessel.device @padded_halos arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<6x128xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<2048xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<2048xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<2048xi8, #sram> to memref<4x128xf32, #sram>
    tessel.vector_fill 0.0, %b : memref<4x128xf32, #sram>
    %in = memref.subview %b[1, 0] [3, 128] [1, 1] : memref<4x128xf32, #sram> to memref<3x128xf32, strided<[128, 1], offset: 128>, #sram>
    %x0 = memref.subview %x[0, 0] [3, 128] [1, 1] : memref<6x128xf32, #dram> to memref<3x128xf32, strided<[128, 1]>, #dram>
    %d = tessel.dma %x0 to %in {tessel.share = 0 : i64} : memref<3x128xf32, strided<[128, 1]>, #dram> to memref<3x128xf32, strided<[128, 1], offset: 128>, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x128xf32, #sram>, memref<4x128xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<2048xi8, #sram> to memref<4x128xf32, #sram>
    %x1 = memref.subview %x[1, 0] [4, 128] [1, 1] : memref<6x128xf32, #dram> to memref<4x128xf32, strided<[128, 1], offset: 128>, #dram>
    %d = tessel.dma %x1 to %b {tessel.share = 0 : i64} : memref<4x128xf32, strided<[128, 1], offset: 128>, #dram> to memref<4x128xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x128xf32, #sram>, memref<4x128xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The same three windows of 8 columns: cutting them would save 43 bytes
// per window, less than one transfer's fixed cost buys (480). Each tile
// loads its own rows.
// CHECK-LABEL: tessel.device @small_halos
// CHECK-NOT:     tessel.dma_multicast
// CHECK-NOT:     tessel.semaphore
tessel.device @small_halos arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %t2 = tessel.tile(0, 2)
  %x = tessel.dram_buffer @x input : memref<8x8xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<256xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<256xi8, #sram>
  %a2 = tessel.buffer @sram_0_2 on %t2 at 0 : memref<256xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<256xi8, #sram> to memref<4x8xf32, #sram>
    %x0 = memref.subview %x[0, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1]>, #dram>
    %d = tessel.dma %x0 to %b {tessel.share = 0 : i64} : memref<4x8xf32, strided<[8, 1]>, #dram> to memref<4x8xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x8xf32, #sram>, memref<4x8xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<256xi8, #sram> to memref<4x8xf32, #sram>
    %x1 = memref.subview %x[2, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: 16>, #dram>
    %d = tessel.dma %x1 to %b {tessel.share = 0 : i64} : memref<4x8xf32, strided<[8, 1], offset: 16>, #dram> to memref<4x8xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x8xf32, #sram>, memref<4x8xf32, #sram>
  }
  tessel.core(%t2) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a2[%c0][] : memref<256xi8, #sram> to memref<4x8xf32, #sram>
    %x2 = memref.subview %x[4, 0] [4, 8] [1, 1] : memref<8x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: 32>, #dram>
    %d = tessel.dma %x2 to %b {tessel.share = 0 : i64} : memref<4x8xf32, strided<[8, 1], offset: 32>, #dram> to memref<4x8xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<4x8xf32, #sram>, memref<4x8xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

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
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

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

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#grid = #tessel.arch<{name = "grid", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 4, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>

// Each row of a 4x4 grid loads its row of @w (share group 0), one sharing
// set per row, 1 KB each: more than a transfer moves in its fixed cost
// ((10 + 50) x 8 = 480 bytes), so the DRAM channels' bandwidth counts.
// Turns alone would put the leaders on the diagonal, (0, 0),
// (1, 1), (2, 2) and (3, 3), whose nearest DRAM channels are the corners
// (0, 0) and (3, 3) only. A leader whose channel already has this step's
// bytes gives way to the next reader in turn whose channel has fewer: row
// 1 is led by (1, 2), reading from the corner (0, 3), and row 3 by (3, 0),
// so each corner's channel reads one row.
// CHECK-LABEL: tessel.device @spread
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_0_2) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_0_3) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_1_0) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_1_1) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_1_2) {
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_1_3) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_2_0) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_2_1) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_2_2) {
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_2_3) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_3_0) {
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_3_1) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_3_2) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_3_3) {
// CHECK:           tessel.signal
// CHECK-NEXT:      tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
tessel.device @spread arch #grid {
  %t00 = tessel.tile(0, 0)
  %t01 = tessel.tile(0, 1)
  %t02 = tessel.tile(0, 2)
  %t03 = tessel.tile(0, 3)
  %t10 = tessel.tile(1, 0)
  %t11 = tessel.tile(1, 1)
  %t12 = tessel.tile(1, 2)
  %t13 = tessel.tile(1, 3)
  %t20 = tessel.tile(2, 0)
  %t21 = tessel.tile(2, 1)
  %t22 = tessel.tile(2, 2)
  %t23 = tessel.tile(2, 3)
  %t30 = tessel.tile(3, 0)
  %t31 = tessel.tile(3, 1)
  %t32 = tessel.tile(3, 2)
  %t33 = tessel.tile(3, 3)
  %w = tessel.dram_buffer @w weight : memref<4x256xf32, #dram>
  %a00 = tessel.buffer @sram_0_0 on %t00 at 0 : memref<1024xi8, #sram>
  %a01 = tessel.buffer @sram_0_1 on %t01 at 0 : memref<1024xi8, #sram>
  %a02 = tessel.buffer @sram_0_2 on %t02 at 0 : memref<1024xi8, #sram>
  %a03 = tessel.buffer @sram_0_3 on %t03 at 0 : memref<1024xi8, #sram>
  %a10 = tessel.buffer @sram_1_0 on %t10 at 0 : memref<1024xi8, #sram>
  %a11 = tessel.buffer @sram_1_1 on %t11 at 0 : memref<1024xi8, #sram>
  %a12 = tessel.buffer @sram_1_2 on %t12 at 0 : memref<1024xi8, #sram>
  %a13 = tessel.buffer @sram_1_3 on %t13 at 0 : memref<1024xi8, #sram>
  %a20 = tessel.buffer @sram_2_0 on %t20 at 0 : memref<1024xi8, #sram>
  %a21 = tessel.buffer @sram_2_1 on %t21 at 0 : memref<1024xi8, #sram>
  %a22 = tessel.buffer @sram_2_2 on %t22 at 0 : memref<1024xi8, #sram>
  %a23 = tessel.buffer @sram_2_3 on %t23 at 0 : memref<1024xi8, #sram>
  %a30 = tessel.buffer @sram_3_0 on %t30 at 0 : memref<1024xi8, #sram>
  %a31 = tessel.buffer @sram_3_1 on %t31 at 0 : memref<1024xi8, #sram>
  %a32 = tessel.buffer @sram_3_2 on %t32 at 0 : memref<1024xi8, #sram>
  %a33 = tessel.buffer @sram_3_3 on %t33 at 0 : memref<1024xi8, #sram>
  tessel.core(%t00) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a00[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t01) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a01[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t02) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a02[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t03) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a03[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t10) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a10[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t11) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a11[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t12) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a12[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t13) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a13[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t20) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a20[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 512>, #dram>
    %d = tessel.dma %w2 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 512>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t21) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a21[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 512>, #dram>
    %d = tessel.dma %w2 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 512>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t22) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a22[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 512>, #dram>
    %d = tessel.dma %w2 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 512>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t23) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a23[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 512>, #dram>
    %d = tessel.dma %w2 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 512>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t30) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a30[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w3 = memref.subview %w[3, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 768>, #dram>
    %d = tessel.dma %w3 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 768>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t31) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a31[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w3 = memref.subview %w[3, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 768>, #dram>
    %d = tessel.dma %w3 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 768>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t32) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a32[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w3 = memref.subview %w[3, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 768>, #dram>
    %d = tessel.dma %w3 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 768>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t33) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a33[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w3 = memref.subview %w[3, 0] [1, 256] [1, 1] : memref<4x256xf32, #dram> to memref<256xf32, strided<[1], offset: 768>, #dram>
    %d = tessel.dma %w3 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 768>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#top = #tessel.arch<{name = "top", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 2]]}}>

// The NoC links count in the leader's choice, not only the DRAM channels.
// Tiles (1, 1) and (3, 3) share row 0 of @w, (1, 3) and (2, 1) row 1, 1 KB
// each. Tile (1, 1) leads the first (its turn), reading through channel 0
// at (0, 0): the route (0, 0) -> (0, 1) -> (1, 1), then its multicast tree
// to (3, 3) (the set spans two rows and two columns, so its tree counts).
// The second's turn is tile (2, 1)'s, equally near both channels; channel
// 1 has no bytes yet, but its route from (0, 2) goes down column 1
// through the link (0, 1) -> (1, 1) that the first load already crosses.
// Tile (1, 3) reads from channel 1, and its route and its tree to (2, 1)
// cross no link another load crosses, so it leads instead.
// CHECK-LABEL: tessel.device @spread_links
// CHECK:         tessel.core(%tile_1_1) {
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_1_3) {
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_2_1) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_3_3) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
tessel.device @spread_links arch #top {
  %t11 = tessel.tile(1, 1)
  %t13 = tessel.tile(1, 3)
  %t21 = tessel.tile(2, 1)
  %t33 = tessel.tile(3, 3)
  %w = tessel.dram_buffer @w weight : memref<2x256xf32, #dram>
  %a11 = tessel.buffer @sram_1_1 on %t11 at 0 : memref<1024xi8, #sram>
  %a13 = tessel.buffer @sram_1_3 on %t13 at 0 : memref<1024xi8, #sram>
  %a21 = tessel.buffer @sram_2_1 on %t21 at 0 : memref<1024xi8, #sram>
  %a33 = tessel.buffer @sram_3_3 on %t33 at 0 : memref<1024xi8, #sram>
  tessel.core(%t11) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a11[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t13) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a13[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t21) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a21[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t33) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a33[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#edges = #tessel.arch<{name = "edges", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 8, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 1], [0, 2], [0, 3], [3, 0], [3, 1], [3, 2], [3, 3]]}}>

// A set spread over rows and columns counts its leader's multicast tree
// too (links are directed). A DRAM channel above and below every column:
// each tile below row 0 and above row 3 has one nearest channel, one hop
// away. Tiles (1, 0) and (2, 2) share row 0 of @w; (1, 0) leads (its
// turn), its tree going east along row 1 and down through (1, 2) ->
// (2, 2). Tiles (1, 1), (1, 2) and (3, 2) share row 1; the turn is tile
// (1, 2)'s, whose channel and route from (0, 2) carry nothing yet, but
// whose tree down to (3, 2) crosses (1, 2) -> (2, 2). Tile (3, 2), at its
// channel, reaches the others through links no load crosses (up column
// 2, and along row 3 and up column 1), so it leads instead; (1, 1) would
// cross (1, 1) -> (1, 2).
// CHECK-LABEL: tessel.device @spread_trees
// CHECK:         tessel.core(%tile_1_0) {
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_1_1) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_1_2) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_2_2) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore
// CHECK-NEXT:      tessel.vector_binary
// CHECK:         tessel.core(%tile_3_2) {
// CHECK:           tessel.dma_multicast
tessel.device @spread_trees arch #edges {
  %t10 = tessel.tile(1, 0)
  %t11 = tessel.tile(1, 1)
  %t12 = tessel.tile(1, 2)
  %t22 = tessel.tile(2, 2)
  %t32 = tessel.tile(3, 2)
  %w = tessel.dram_buffer @w weight : memref<2x256xf32, #dram>
  %a10 = tessel.buffer @sram_1_0 on %t10 at 0 : memref<1024xi8, #sram>
  %a11 = tessel.buffer @sram_1_1 on %t11 at 0 : memref<1024xi8, #sram>
  %a12 = tessel.buffer @sram_1_2 on %t12 at 0 : memref<1024xi8, #sram>
  %a22 = tessel.buffer @sram_2_2 on %t22 at 0 : memref<1024xi8, #sram>
  %a32 = tessel.buffer @sram_3_2 on %t32 at 0 : memref<1024xi8, #sram>
  tessel.core(%t10) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a10[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t11) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a11[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t12) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a12[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t22) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a22[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1]>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
  tessel.core(%t32) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a32[%c0][] : memref<1024xi8, #sram> to memref<256xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 256] [1, 1] : memref<2x256xf32, #dram> to memref<256xf32, strided<[1], offset: 256>, #dram>
    %d = tessel.dma %w1 to %b {tessel.share = 0 : i64} : memref<256xf32, strided<[1], offset: 256>, #dram> to memref<256xf32, #sram>
    tessel.wait %d
    tessel.vector_binary add %b, %b, %b : memref<256xf32, #sram>, memref<256xf32, #sram>, memref<256xf32, #sram>
  }
}

// -----

// A slice tile (0, 0) keeps on chip (tessel-keep-on-chip: a view of its
// arena), which both tiles read: its holder multicasts it, then the next
// load of @w (its turn too). Tile (0, 1) uses the second delivery first:
// its first wait takes both deliveries, and the later one is gone.
// CHECK-LABEL: tessel.device @kept_slice
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           %[[SLICE:.+]] = memref.view %[[ARENA0:.+]][%c0][] : memref<256xi8, #sram> to memref<16xf32, #sram>
// CHECK:           tessel.dma_multicast %[[SLICE]] to
// CHECK:           tessel.dma_multicast %w to
// CHECK:         tessel.core(%tile_0_1) {
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore %[[DELIVERED:.+]] for 2
// CHECK-NEXT:      tessel.vector_unary exp
// CHECK-NOT:       tessel.wait_semaphore %[[DELIVERED]]
// CHECK:           tessel.vector_unary exp
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @kept_slice arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<256xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<256xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %slice = memref.view %a0[%c0][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %b = memref.view %a0[%c64][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %d0 = tessel.dma %slice to %b {tessel.share = 0 : i64} : memref<16xf32, #sram> to memref<16xf32, #sram>
    %e = memref.view %a0[%c128][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %d1 = tessel.dma %w to %e {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %slice = memref.view %a0[%c0][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %b = memref.view %a1[%c0][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %d0 = tessel.dma %slice to %b {tessel.share = 0 : i64} : memref<16xf32, #sram> to memref<16xf32, #sram>
    %e = memref.view %a1[%c64][] : memref<256xi8, #sram> to memref<16xf32, #sram>
    %d1 = tessel.dma %w to %e {tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d0
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two steps' rows of @w, the second loaded together with the first
// (tessel-schedule marks it `tessel.loaded_together`), led in turn by tile
// (0, 0) and tile (0, 1). Each tile gives both credits before it waits for
// its own receiver's: tile (0, 0) signals the credit of the second row
// above its wait for the first row's, so the second leader need not wait
// for the first multicast to go. The marks are removed.
// CHECK-LABEL: tessel.device @credits_first
// CHECK:         tessel.core(%tile_0_0) {
// CHECK-NOT:       tessel.wait_semaphore
// CHECK:           tessel.signal %[[CREDIT1:[^ ]+]]
// CHECK-NEXT:      tessel.wait_semaphore %[[CREDIT0:[^ ]+]]
// CHECK:           tessel.dma_multicast
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.signal %[[CREDIT0]]
// CHECK-NOT:       tessel.dma_multicast
// CHECK:           tessel.wait_semaphore %[[CREDIT1]]
// CHECK:           tessel.dma_multicast
// CHECK-NOT:     tessel.loaded_together
tessel.device @credits_first arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<2x16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<128xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<128xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a0[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a0[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a1[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a1[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two steps' rows of @w, the second loaded one step ahead, during the
// first step's compute. The first step's leader, tile (0, 0), waits for
// its receiver's credit on its core: it waits for the load next anyway.
// The second step's, tile (0, 1), computes the first step before it waits
// again, so its multicast takes the credit (`after`): its DMA channel
// waits for it while the core goes on.
// CHECK-LABEL: tessel.device @credits_on_dma
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.wait_semaphore %[[CREDIT0:[^ ]+]]
// CHECK:           %[[M0:.+]] = tessel.dma_multicast %{{[^ ]+}} to %{{[^ ]+}}, %{{[^ ]+}} :
// CHECK-NEXT:      tessel.signal
// CHECK-NEXT:      tessel.wait %[[M0]]
// CHECK:           tessel.signal %[[CREDIT1:[^ ]+]]
// CHECK-NEXT:      tessel.vector_unary exp
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.signal %[[CREDIT0]]
// CHECK-NOT:       tessel.wait_semaphore %[[CREDIT1]]
// CHECK:           tessel.dma_multicast %{{[^ ]+}} to %{{[^ ]+}}, %{{[^ ]+}} after %[[CREDIT1]] :
// CHECK-NEXT:      tessel.signal
// CHECK-NEXT:      tessel.vector_unary exp
tessel.device @credits_on_dma arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<2x16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<128xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<128xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a0[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a0[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = memref.view %a1[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a1[%c64][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<2x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 3}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Three steps' rows of @w, the last two loaded together during the first
// step's compute, led in turn by tiles (0, 0), (0, 1) and (0, 0). The
// later steps' multicasts take their credits on the DMA (the core computes
// before it next waits), and tile (0, 1) gives its credit for the third
// row (on the one semaphore per pair of tiles) above its own multicast of
// the second, which waits for tile (0, 0)'s: were the cores to take those
// credits, neither would wait for the other's.
// CHECK-LABEL: tessel.device @credits_first_on_dma
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.wait_semaphore %[[FROM1:[^ ]+]]
// CHECK:           tessel.dma_multicast %{{[^ ]+}} to %{{[^ ]+}}, %{{[^ ]+}} :
// CHECK-NEXT:      tessel.signal %[[READY1:[^ ]+]]
// CHECK-NEXT:      tessel.wait
// CHECK:           tessel.signal %[[FROM0:[^ ]+]]
// CHECK:           tessel.dma_multicast {{.+}} after %[[FROM1]] :
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.signal %[[FROM1]]
// CHECK-NEXT:      tessel.wait_semaphore %[[READY1]]
// CHECK-NOT:       tessel.dma_multicast
// CHECK:           tessel.signal %[[FROM1]]
// CHECK-NOT:       tessel.signal
// CHECK:           tessel.dma_multicast {{.+}} after %[[FROM0]] :
tessel.device @credits_first_on_dma arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<3x16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<192xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<192xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %b = memref.view %a0[%c0][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a0[%c64][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %f = memref.view %a0[%c128][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %d2 = tessel.dma %w2 to %f {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 32>, #dram> to memref<16xf32, #sram>
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d2
    tessel.vector_unary exp %f, %f : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %b = memref.view %a1[%c0][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %e = memref.view %a1[%c64][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %f = memref.view %a1[%c128][] : memref<192xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d0 = tessel.dma %w0 to %b {tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d0
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d1 = tessel.dma %w1 to %e {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 16] [1, 1] : memref<3x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %d2 = tessel.dma %w2 to %f {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 32>, #dram> to memref<16xf32, #sram>
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d1
    tessel.vector_unary exp %e, %e : memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.wait %d2
    tessel.vector_unary exp %f, %f : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#wide = #tessel.arch<{name = "wide", clock_mhz = 1000, grid = {rows = 1, cols = 6}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 2, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0], [0, 5]]}}>

// Tiles (0, 0), (0, 1), (0, 2) and (0, 5) each load their own row of @w
// (a later step's load, issued together with the others:
// `tessel.loaded_together`). The first three read DRAM channel 0, the
// nearest to them, and only tile (0, 5) channel 1: three rows against one.
// Tile (0, 5) reads tile (0, 0)'s row for it through channel 1, after its
// own, as a multicast to that one tile, once tile (0, 0) has given it a
// credit, and signals the delivery; tile
// (0, 0) gives it a credit where its load was and waits for the delivery
// where it waited for the load. Each channel then carries two rows.
// CHECK-LABEL: tessel.device @read_for
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.signal %[[CREDIT:[^ ]+]]
// CHECK-NOT:       tessel.dma
// CHECK:           tessel.wait_semaphore %[[READY:[^ ]+]]
// CHECK-NEXT:      tessel.vector_unary exp
// CHECK:         tessel.core(%tile_0_1) {
// CHECK:           tessel.dma %{{.+}} to
// CHECK:         tessel.core(%tile_0_5) {
// CHECK:           tessel.wait_semaphore %[[CREDIT]]
// CHECK:           %[[OWN:.+]] = tessel.dma %{{.+}} to
// CHECK:           %[[FOR:.+]] = tessel.dma_multicast %{{.+}} to %{{[^,]+}} :
// CHECK-NEXT:      tessel.signal %[[READY]]
// CHECK:           tessel.wait %[[OWN]], %[[FOR]]
// CHECK-NEXT:      tessel.vector_unary exp
tessel.device @read_for arch #wide {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %t2 = tessel.tile(0, 2)
  %t5 = tessel.tile(0, 5)
  %w = tessel.dram_buffer @w weight : memref<4x16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<64xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<64xi8, #sram>
  %a2 = tessel.buffer @sram_0_2 on %t2 at 0 : memref<64xi8, #sram>
  %a3 = tessel.buffer @sram_0_5 on %t5 at 0 : memref<64xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %w0 = memref.subview %w[0, 0] [1, 16] [1, 1] : memref<4x16xf32, #dram> to memref<16xf32, strided<[1]>, #dram>
    %d = tessel.dma %w0 to %b {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1]>, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %w1 = memref.subview %w[1, 0] [1, 16] [1, 1] : memref<4x16xf32, #dram> to memref<16xf32, strided<[1], offset: 16>, #dram>
    %d = tessel.dma %w1 to %b {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 16>, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t2) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a2[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %w2 = memref.subview %w[2, 0] [1, 16] [1, 1] : memref<4x16xf32, #dram> to memref<16xf32, strided<[1], offset: 32>, #dram>
    %d = tessel.dma %w2 to %b {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 32>, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t5) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a3[%c0][] : memref<64xi8, #sram> to memref<16xf32, #sram>
    %w3 = memref.subview %w[3, 0] [1, 16] [1, 1] : memref<4x16xf32, #dram> to memref<16xf32, strided<[1], offset: 48>, #dram>
    %d = tessel.dma %w3 to %b {tessel.loaded_together, tessel.share = 0 : i64} : memref<16xf32, strided<[1], offset: 48>, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A load issued during the ops before its own (`tessel.issued_early`,
// tessel-schedule) that both tiles make becomes a multicast that keeps the
// mark, so that tessel-assign-dma-channels keeps its channel to it.
// CHECK-LABEL: tessel.device @issued_early
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.dma_multicast %{{.+}} to %{{.+}}, %{{.+}} {tessel.issued_early}
// CHECK:         tessel.core(%tile_0_1) {
// CHECK-NOT:       tessel.dma
tessel.device @issued_early arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %w = tessel.dram_buffer @w weight : memref<16xf32, #dram>
  %a0 = tessel.buffer @sram_0_0 on %t0 at 0 : memref<128xi8, #sram>
  %a1 = tessel.buffer @sram_0_1 on %t1 at 0 : memref<128xi8, #sram>
  tessel.core(%t0) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a0[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %d = tessel.dma %w to %b {tessel.issued_early, tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
  tessel.core(%t1) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a1[%c0][] : memref<128xi8, #sram> to memref<16xf32, #sram>
    %d = tessel.dma %w to %b {tessel.issued_early, tessel.share = 0 : i64} : memref<16xf32, #dram> to memref<16xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#quad = #tessel.arch<{name = "quad", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A 2 x 2 split of a window with a halo of two rows and two columns, each
// tile computing before it waits for its window: nine cells, the edges
// read by two tiles, the centre by four. Tile (1, 0) leads two cells into
// tile (0, 0) and two into tile (1, 1), whose multicasts each take one
// credit, so each of those tiles gives it two at once.
// CHECK-LABEL: tessel.device @halos_2d_credits
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           tessel.signal %[[FROM00:[^ ]+]] by 2
// CHECK:         tessel.core(%tile_1_0) {
// CHECK-NOT:       tessel.wait_semaphore
// CHECK:           tessel.dma_multicast {{.+}} after %[[FROM00]] :
// CHECK:           tessel.dma_multicast {{.+}} after %[[FROM00]], %{{[^ ,]+}}, %[[FROM11:[^ ]+]] :
// CHECK:           tessel.dma_multicast {{.+}} after %[[FROM11]] :
// CHECK:         tessel.core(%tile_1_1) {
// CHECK:           tessel.signal %[[FROM11]] by 2
tessel.device @halos_2d_credits arch #quad {
  %t00 = tessel.tile(0, 0)
  %t01 = tessel.tile(0, 1)
  %t10 = tessel.tile(1, 0)
  %t11 = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<16x8x8xf32, #dram>
  %a00 = tessel.buffer @sram_0_0 on %t00 at 0 : memref<2048xi8, #sram>
  %a01 = tessel.buffer @sram_0_1 on %t01 at 0 : memref<2048xi8, #sram>
  %a10 = tessel.buffer @sram_1_0 on %t10 at 0 : memref<2048xi8, #sram>
  %a11 = tessel.buffer @sram_1_1 on %t11 at 0 : memref<2048xi8, #sram>
  tessel.core(%t00) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a00[%c0][] : memref<2048xi8, #sram> to memref<16x5x5xf32, #sram>
    %w = memref.subview %x[0, 0, 0] [16, 5, 5] [1, 1, 1] : memref<16x8x8xf32, #dram> to memref<16x5x5xf32, strided<[64, 8, 1], offset: 0>, #dram>
    %d = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16x5x5xf32, strided<[64, 8, 1], offset: 0>, #dram> to memref<16x5x5xf32, #sram>
    %c1600 = arith.constant 1600 : index
    %o = memref.view %a00[%c1600][] : memref<2048xi8, #sram> to memref<64xf32, #sram>
    tessel.vector_unary exp %o, %o : memref<64xf32, #sram>, memref<64xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16x5x5xf32, #sram>, memref<16x5x5xf32, #sram>
  }
  tessel.core(%t01) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a01[%c0][] : memref<2048xi8, #sram> to memref<16x5x5xf32, #sram>
    %w = memref.subview %x[0, 0, 3] [16, 5, 5] [1, 1, 1] : memref<16x8x8xf32, #dram> to memref<16x5x5xf32, strided<[64, 8, 1], offset: 3>, #dram>
    %d = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16x5x5xf32, strided<[64, 8, 1], offset: 3>, #dram> to memref<16x5x5xf32, #sram>
    %c1600 = arith.constant 1600 : index
    %o = memref.view %a01[%c1600][] : memref<2048xi8, #sram> to memref<64xf32, #sram>
    tessel.vector_unary exp %o, %o : memref<64xf32, #sram>, memref<64xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16x5x5xf32, #sram>, memref<16x5x5xf32, #sram>
  }
  tessel.core(%t10) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a10[%c0][] : memref<2048xi8, #sram> to memref<16x5x5xf32, #sram>
    %w = memref.subview %x[0, 3, 0] [16, 5, 5] [1, 1, 1] : memref<16x8x8xf32, #dram> to memref<16x5x5xf32, strided<[64, 8, 1], offset: 24>, #dram>
    %d = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16x5x5xf32, strided<[64, 8, 1], offset: 24>, #dram> to memref<16x5x5xf32, #sram>
    %c1600 = arith.constant 1600 : index
    %o = memref.view %a10[%c1600][] : memref<2048xi8, #sram> to memref<64xf32, #sram>
    tessel.vector_unary exp %o, %o : memref<64xf32, #sram>, memref<64xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16x5x5xf32, #sram>, memref<16x5x5xf32, #sram>
  }
  tessel.core(%t11) {
    %c0 = arith.constant 0 : index
    %b = memref.view %a11[%c0][] : memref<2048xi8, #sram> to memref<16x5x5xf32, #sram>
    %w = memref.subview %x[0, 3, 3] [16, 5, 5] [1, 1, 1] : memref<16x8x8xf32, #dram> to memref<16x5x5xf32, strided<[64, 8, 1], offset: 27>, #dram>
    %d = tessel.dma %w to %b {tessel.share = 0 : i64} : memref<16x5x5xf32, strided<[64, 8, 1], offset: 27>, #dram> to memref<16x5x5xf32, #sram>
    %c1600 = arith.constant 1600 : index
    %o = memref.view %a11[%c1600][] : memref<2048xi8, #sram> to memref<64xf32, #sram>
    tessel.vector_unary exp %o, %o : memref<64xf32, #sram>, memref<64xf32, #sram>
    tessel.wait %d
    tessel.vector_unary exp %b, %b : memref<16x5x5xf32, #sram>, memref<16x5x5xf32, #sram>
  }
}
