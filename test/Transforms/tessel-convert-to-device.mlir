// RUN: tessel-opt %s -split-input-file -tessel-convert-to-device -verify-diagnostics | FileCheck %s
// RUN: tessel-opt %s -split-input-file -tessel-convert-to-device=stream=3 -verify-diagnostics | FileCheck %s --check-prefix=STREAM

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Two ops on a 2x2 grid: a matmul in 4 row blocks (one per tile), then an
// elementwise op on 2 tiles that reads what the matmul wrote. Each tile's
// core gets its parts in program order, with the step loop unrolled. Every
// matmul tile tells tile (0, 0), which waits for all four and then lets
// the two tiles of the elementwise op start; tiles (1, 0) and (1, 1) wait
// for nothing.
// CHECK-LABEL: tessel.device @two_ops arch #arch {
// CHECK-DAG:     %[[X:.+]] = tessel.dram_buffer @x input : memref<64x32xf32, #dram>
// CHECK-DAG:     %[[W:.+]] = tessel.dram_buffer @w weight : memref<32x8xf32, #dram>
// CHECK-DAG:     %[[S:.+]] = tessel.dram_buffer @scratch0 scratch : memref<64x8xf32, #dram>
// CHECK-DAG:     %[[Y:.+]] = tessel.dram_buffer @result0 output : memref<64x8xf32, #dram>
// CHECK:         %[[T00:.+]] = tessel.tile(0, 0)
// CHECK:         %[[T11:.+]] = tessel.tile(1, 1)
// CHECK:         %[[GO00:.+]] = tessel.semaphore on %[[T00]]
// CHECK:         %[[GO01:.+]] = tessel.semaphore on %[[T01:.+]]
// CHECK:         %[[ARRIVED:.+]] = tessel.semaphore on %[[T00]]
// CHECK:         tessel.core(%[[T00]]) {
// CHECK:           memref.subview %[[X]][0, 0] [16, 32] [1, 1]
// Two steps of 8 rows each, unrolled.
// CHECK:           memref.subview %{{.+}}[0, 0] [8, 32]
// CHECK:           linalg.matmul
// CHECK:           memref.subview %{{.+}}[8, 0] [8, 32]
// CHECK:           linalg.matmul
// CHECK-NEXT:      tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[ARRIVED]] for 4
// CHECK-NEXT:      tessel.signal %[[GO00]]
// CHECK-NEXT:      tessel.signal %[[GO01]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO00]]
// CHECK:           %[[E:.+]] = memref.expand_shape %[[S]]
// CHECK:           memref.subview %[[E]][0, 0, 0] [1, 32, 8]
// CHECK:           linalg.generic
// CHECK-NOT:       scf.for
// CHECK:         }
// CHECK:         tessel.core(%[[T01]]) {
// CHECK:           tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO01]]
// CHECK:           linalg.generic
// CHECK:         }
// Tiles (1, 0) and (1, 1) run a matmul part and no part of the second op.
// CHECK:         tessel.core(%[[T10:.+]]) {
// CHECK:           memref.subview %[[X]][32, 0] [16, 32] [1, 1]
// CHECK:           tessel.signal %[[ARRIVED]]
// CHECK-NOT:       tessel.wait_semaphore
// CHECK-NOT:       linalg.generic
// CHECK:         }
// CHECK:         tessel.core(%[[T11]]) {
// CHECK:           memref.subview %[[X]][48, 0] [16, 32] [1, 1]
// CHECK:           tessel.signal %[[ARRIVED]]
// CHECK-NOT:       tessel.wait_semaphore
// CHECK-NOT:       linalg.generic
// CHECK:         }
// CHECK-NOT:     func.func
module attributes {tessel.arch = #tiny} {
func.func @two_ops(%x: memref<64x32xf32, #dram> {tessel.name = "x"}, %w: memref<32x8xf32, #dram> {tessel.kind = "weight", tessel.name = "w"}) -> memref<64x8xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s = memref.alloc() : memref<64x8xf32, #dram>
  %y = memref.alloc() : memref<64x8xf32, #dram>
  scf.forall (%i) = (0) to (64) step (16) {
    %xi = memref.subview %x[%i, 0] [16, 32] [1, 1] : memref<64x32xf32, #dram> to memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>
    %si = memref.subview %s[%i, 0] [16, 8] [1, 1] : memref<64x8xf32, #dram> to memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>
    scf.for %j = %c0 to %c16 step %c8 {
      %xj = memref.subview %xi[%j, 0] [8, 32] [1, 1] : memref<16x32xf32, strided<[32, 1], offset: ?>, #dram> to memref<8x32xf32, strided<[32, 1], offset: ?>, #dram>
      %sj = memref.subview %si[%j, 0] [8, 8] [1, 1] : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
      linalg.matmul ins(%xj, %w : memref<8x32xf32, strided<[32, 1], offset: ?>, #dram>, memref<32x8xf32, #dram>) outs(%sj : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
  // Reshapes of DRAM buffers outside the parts: each core gets its own copy.
  %s3 = memref.expand_shape %s [[0, 1], [2]] output_shape [2, 32, 8] : memref<64x8xf32, #dram> into memref<2x32x8xf32, #dram>
  %y3 = memref.expand_shape %y [[0, 1], [2]] output_shape [2, 32, 8] : memref<64x8xf32, #dram> into memref<2x32x8xf32, #dram>
  scf.forall (%i) = (0) to (2) step (1) {
    %si = memref.subview %s3[%i, 0, 0] [1, 32, 8] [1, 1, 1] : memref<2x32x8xf32, #dram> to memref<32x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y3[%i, 0, 0] [1, 32, 8] [1, 1, 1] : memref<2x32x8xf32, #dram> to memref<32x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%si : memref<32x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<32x8xf32, strided<[8, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  return %y : memref<64x8xf32, #dram>
}
}

// -----

#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @loose(%x: memref<4xf32, #dram>) -> memref<4xf32, #dram> {
  %y = memref.alloc() : memref<4xf32, #dram>
  // expected-error @+1 {{'memref.copy' op is outside any partitioned op; run tessel-partition first}}
  memref.copy %x, %y : memref<4xf32, #dram> to memref<4xf32, #dram>
  return %y : memref<4xf32, #dram>
}
}

// -----

// More iterations than the partition has parts: each iteration is a part.
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @more_iterations_than_parts(%x: memref<4xf32, #dram>) -> memref<4xf32, #dram> {
  %y = memref.alloc() : memref<4xf32, #dram>
  // expected-error @+1 {{'scf.forall' op has 2 iterations, but its tessel.partition has 1 parts; each iteration is one part (run tessel-partition to split an op)}}
  scf.forall (%i) in (2) {
    linalg.copy ins(%x : memref<4xf32, #dram>) outs(%y : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  return %y : memref<4xf32, #dram>
}
}

// -----

// An output returned reshaped: one DRAM buffer in the output's shape, which
// the program writes through the inverse reshape.
// CHECK-LABEL: tessel.device @reshaped_output
// CHECK:         %[[Y:.+]] = tessel.dram_buffer @result0 output : memref<2x8x8xf32, #dram>
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<2x8x8xf32, #dram> into memref<16x8xf32, #dram>
// CHECK:         tessel.core
// CHECK:           memref.subview %[[FLAT]]
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @reshaped_output(%x: memref<16x8xf32, #dram>) -> memref<2x8x8xf32, #dram> {
  %y = memref.alloc() : memref<16x8xf32, #dram>
  scf.forall (%i) = (0) to (16) step (4) {
    %xi = memref.subview %x[%i, 0] [4, 8] [1, 1] : memref<16x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, 0] [4, 8] [1, 1] : memref<16x8xf32, #dram> to memref<4x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<4x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<4x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1]>}
  %out = memref.expand_shape %y [[0, 1], [2]] output_shape [2, 8, 8] : memref<16x8xf32, #dram> into memref<2x8x8xf32, #dram>
  return %out : memref<2x8x8xf32, #dram>
}
}

// -----

// Parts laid out with the columns' loop slowest (`order = [1, 0]`): part
// (i, j) runs on tile (j, i), so tile (0, 1) copies rows 4 to 7 of columns
// 0 to 3, and tile (1, 0) rows 0 to 3 of columns 4 to 7.
// CHECK-LABEL: tessel.device @ordered
// CHECK:         %[[T01:.+]] = tessel.tile(0, 1)
// CHECK:         %[[T10:.+]] = tessel.tile(1, 0)
// CHECK:         tessel.core(%[[T01]]) {
// CHECK:           memref.subview %{{.+}}[4, 0] [4, 4]
// CHECK:         tessel.core(%[[T10]]) {
// CHECK:           memref.subview %{{.+}}[0, 4] [4, 4]
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @ordered(%x: memref<8x8xf32, #dram>) -> memref<8x8xf32, #dram> {
  %y = memref.alloc() : memref<8x8xf32, #dram>
  scf.forall (%i, %j) = (0, 0) to (8, 8) step (4, 4) {
    %xi = memref.subview %x[%i, %j] [4, 4] [1, 1] : memref<8x8xf32, #dram> to memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, %j] [4, 4] [1, 1] : memref<8x8xf32, #dram> to memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2], order = [1, 0]>}
  return %y : memref<8x8xf32, #dram>
}
}

// -----

// A constant tensor, bufferized into a global, becomes a constant DRAM
// buffer holding its value; the global goes.
// CHECK-LABEL: tessel.device @masked
// CHECK:         %[[M:.+]] = tessel.dram_buffer @__constant_4xf32 constant value(dense<[0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<4xf32>) : memref<4xf32, #dram>
// CHECK:         tessel.core
// CHECK:           memref.subview %[[M]]
// CHECK-NOT:     memref.global
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
memref.global "private" constant @__constant_4xf32 : memref<4xf32, #dram> = dense<[0.0, 1.0, 1.0, 0.0]>
func.func @masked(%x: memref<4xf32, #dram>) -> memref<4xf32, #dram> {
  %m = memref.get_global @__constant_4xf32 : memref<4xf32, #dram>
  %y = memref.alloc() : memref<4xf32, #dram>
  scf.forall (%i) = (0) to (4) step (2) {
    %mi = memref.subview %m[%i] [2] [1] : memref<4xf32, #dram> to memref<2xf32, strided<[1], offset: ?>, #dram>
    %yi = memref.subview %y[%i] [2] [1] : memref<4xf32, #dram> to memref<2xf32, strided<[1], offset: ?>, #dram>
    linalg.copy ins(%mi : memref<2xf32, strided<[1], offset: ?>, #dram>) outs(%yi : memref<2xf32, strided<[1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2]>}
  return %y : memref<4xf32, #dram>
}
}

// -----

// Two ops on disjoint tiles with no data between them need no
// synchronization; the third reads both results, so it waits for both, and
// on tile (0, 0) it follows the first op in program order.
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @independent
// CHECK:         %[[T00:.+]] = tessel.tile(0, 0)
// CHECK:         %[[T11:.+]] = tessel.tile(1, 1)
// CHECK:         %[[GO:.+]] = tessel.semaphore on %[[T00]]
// CHECK-NOT:     tessel.semaphore
// CHECK:         tessel.core(%[[T00]]) {
// CHECK-NEXT:      linalg.copy
// CHECK-NEXT:      tessel.wait_semaphore %[[GO]]{{$}}
// CHECK-NEXT:      linalg.add
// CHECK:         tessel.core(%[[T11]]) {
// CHECK-NEXT:      linalg.copy
// CHECK-NEXT:      tessel.signal %[[GO]]
// CHECK-NEXT:    }
module attributes {tessel.arch = #tiny} {
func.func @independent(%x: memref<4xf32, #dram>) -> memref<4xf32, #dram> {
  %a = memref.alloc() : memref<4xf32, #dram>
  %b = memref.alloc() : memref<4xf32, #dram>
  %y = memref.alloc() : memref<4xf32, #dram>
  scf.forall (%i) in (1) {
    linalg.copy ins(%x : memref<4xf32, #dram>) outs(%a : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  scf.forall (%i) in (1) {
    linalg.copy ins(%x : memref<4xf32, #dram>) outs(%b : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 1, col = 1, rows = 1, cols = 1, parts = [1]>}
  scf.forall (%i) in (1) {
    linalg.add ins(%a, %b : memref<4xf32, #dram>, memref<4xf32, #dram>) outs(%y : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  return %y : memref<4xf32, #dram>
}
}

// -----

// A two-stage pipeline over a stream of three inputs (second RUN line).
// Each input has its own input and output buffer; the scratch between the
// stages alternates between two copies. Stage 0 on tile (0, 0) runs ahead:
// it starts input 1 while stage 1 works on input 0, and before it
// overwrites input 0's scratch with input 2's it waits until stage 1 has
// read it. The signal between two parts already keeps the schedule from
// prefetching across, so no fence is needed.
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// STREAM-LABEL: tessel.device @pipeline
// STREAM-DAG:     %[[X0:.+]] = tessel.dram_buffer @"x[0]" input
// STREAM-DAG:     %[[X1:.+]] = tessel.dram_buffer @"x[1]" input
// STREAM-DAG:     %[[X2:.+]] = tessel.dram_buffer @"x[2]" input
// STREAM-DAG:     %[[S0:.+]] = tessel.dram_buffer @"scratch0[0]" scratch
// STREAM-DAG:     %[[S1:.+]] = tessel.dram_buffer @"scratch0[1]" scratch
// STREAM-DAG:     %[[Y0:.+]] = tessel.dram_buffer @"y[0]" output
// STREAM-DAG:     %[[Y1:.+]] = tessel.dram_buffer @"y[1]" output
// STREAM-DAG:     %[[Y2:.+]] = tessel.dram_buffer @"y[2]" output
// STREAM:         %[[GO1:.+]] = tessel.semaphore on %[[T01:.+]]
// STREAM-NEXT:    %[[GO3:.+]] = tessel.semaphore on %[[T01]]
// STREAM-NEXT:    %[[GO4:.+]] = tessel.semaphore on %[[T00:.+]]
// STREAM-NEXT:    %[[GO5:.+]] = tessel.semaphore on %[[T01]]
// STREAM:         tessel.core(%[[T00]]) {
// STREAM-NEXT:      linalg.copy ins(%[[X0]] {{.+}} outs(%[[S0]]
// STREAM-NEXT:      tessel.signal %[[GO1]]
// STREAM-NEXT:      linalg.copy ins(%[[X1]] {{.+}} outs(%[[S1]]
// STREAM-NEXT:      tessel.signal %[[GO3]]
// STREAM-NEXT:      tessel.wait_semaphore %[[GO4]]{{$}}
// STREAM-NEXT:      linalg.copy ins(%[[X2]] {{.+}} outs(%[[S0]]
// STREAM-NEXT:      tessel.signal %[[GO5]]
// STREAM-NEXT:    }
// STREAM:         tessel.core(%[[T01]]) {
// STREAM-NEXT:      tessel.wait_semaphore %[[GO1]]{{$}}
// STREAM-NEXT:      linalg.add ins(%[[S0]], %[[S0]] {{.+}} outs(%[[Y0]]
// STREAM-NEXT:      tessel.signal %[[GO4]]
// STREAM-NEXT:      tessel.wait_semaphore %[[GO3]]{{$}}
// STREAM-NEXT:      linalg.add ins(%[[S1]], %[[S1]] {{.+}} outs(%[[Y1]]
// STREAM-NEXT:      tessel.wait_semaphore %[[GO5]]{{$}}
// STREAM-NEXT:      linalg.add ins(%[[S0]], %[[S0]] {{.+}} outs(%[[Y2]]
// STREAM-NEXT:    }
module attributes {tessel.arch = #tiny} {
func.func @pipeline(%x: memref<4xf32, #dram> {tessel.name = "x"}) -> (memref<4xf32, #dram> {tessel.name = "y"}) {
  %s = memref.alloc() : memref<4xf32, #dram>
  %y = memref.alloc() : memref<4xf32, #dram>
  scf.forall (%i) in (1) {
    linalg.copy ins(%x : memref<4xf32, #dram>) outs(%s : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], stage = 0>}
  scf.forall (%i) in (1) {
    linalg.add ins(%s, %s : memref<4xf32, #dram>, memref<4xf32, #dram>) outs(%y : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 1, rows = 1, cols = 1, parts = [1], stage = 1>}
  return %y : memref<4xf32, #dram>
}
}

// -----

// Pipeline stages run at the same time, so two may not share a tile.
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @shared_stage_tile(%x: memref<4xf32, #dram>) -> memref<4xf32, #dram> {
  %s = memref.alloc() : memref<4xf32, #dram>
  %y = memref.alloc() : memref<4xf32, #dram>
  // expected-note @+1 {{stage 0 runs here}}
  scf.forall (%i) in (2) {
    linalg.copy ins(%x : memref<4xf32, #dram>) outs(%s : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2], stage = 0>}
  // expected-error @+1 {{runs pipeline stage 1 on tile (0, 1), which stage 0 also uses; stages run at the same time, so each needs tiles of its own}}
  scf.forall (%i) in (1) {
    linalg.add ins(%s, %s : memref<4xf32, #dram>, memref<4xf32, #dram>) outs(%y : memref<4xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 1, rows = 1, cols = 1, parts = [1], stage = 1>}
  return %y : memref<4xf32, #dram>
}
}

// -----

// A resident weight (tessel-promote-to-sram) over a stream: each tile loads
// its slice for the first input only, every input reads that buffer, and
// the last input frees it. With one input, the part runs as written.
#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @resident
// CHECK:         tessel.core
// CHECK:           %[[W:.+]] = memref.alloc() {tessel.resident}
// CHECK-NEXT:      memref.copy %{{.+}}, %[[W]] {tessel.resident}
// CHECK-NEXT:      linalg.matmul ins(%{{.+}}, %[[W]] :
// CHECK-NEXT:      memref.dealloc %[[W]] {tessel.resident}
// STREAM-LABEL: tessel.device @resident
// STREAM:         tessel.core(%tile_0_0) {
// STREAM:           %[[W:.+]] = memref.alloc() {tessel.resident}
// STREAM-NEXT:      memref.copy %{{.+}}, %[[W]] {tessel.resident}
// STREAM-NEXT:      linalg.matmul ins(%{{.+}}, %[[W]] :
// STREAM-NOT:       memref.copy
// STREAM:           linalg.matmul ins(%{{.+}}, %[[W]] :
// STREAM-NOT:       memref.copy
// STREAM:           linalg.matmul ins(%{{.+}}, %[[W]] :
// STREAM-NEXT:      memref.dealloc %[[W]] {tessel.resident}
// STREAM-NEXT:    }
// STREAM-NEXT:    tessel.core(%tile_0_1) {
// STREAM-COUNT-1:   memref.alloc() {tessel.resident}
// STREAM-NOT:       memref.alloc
// STREAM:           memref.dealloc %{{.+}} {tessel.resident} :
// STREAM-NEXT:    }
module attributes {tessel.arch = #tiny} {
func.func @resident(%x: memref<2x8xf32, #dram> {tessel.name = "x"}, %w: memref<8x8xf32, #dram> {tessel.kind = "weight", tessel.name = "w"}) -> (memref<2x8xf32, #dram> {tessel.name = "y"}) {
  %y = memref.alloc() : memref<2x8xf32, #dram>
  scf.forall (%j) = (0) to (8) step (4) {
    %wj = memref.subview %w[0, %j] [8, 4] [1, 1] : memref<8x8xf32, #dram> to memref<8x4xf32, strided<[8, 1], offset: ?>, #dram>
    %yj = memref.subview %y[0, %j] [2, 4] [1, 1] : memref<2x8xf32, #dram> to memref<2x4xf32, strided<[8, 1], offset: ?>, #dram>
    %buf = memref.alloc() {tessel.resident} : memref<8x4xf32, #sram>
    memref.copy %wj, %buf {tessel.resident} : memref<8x4xf32, strided<[8, 1], offset: ?>, #dram> to memref<8x4xf32, #sram>
    linalg.matmul ins(%x, %buf : memref<2x8xf32, #dram>, memref<8x4xf32, #sram>) outs(%yj : memref<2x4xf32, strided<[8, 1], offset: ?>, #dram>)
    memref.dealloc %buf {tessel.resident} : memref<8x4xf32, #sram>
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2, 1], resident>}
  return %y : memref<2x8xf32, #dram>
}
}

// -----

// Two ops on all four tiles of a 2x2 grid: tile (0, 0) collects the
// matmul's four completions and tells the first tile of each row, which
// tells the other tile of its row (rows + columns signals one after
// another instead of one per tile).
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// CHECK-LABEL: tessel.device @relayed arch #arch {
// CHECK:         %[[T00:.+]] = tessel.tile(0, 0)
// CHECK:         %[[T01:.+]] = tessel.tile(0, 1)
// CHECK:         %[[T10:.+]] = tessel.tile(1, 0)
// CHECK:         %[[T11:.+]] = tessel.tile(1, 1)
// CHECK:         %[[GO00:.+]] = tessel.semaphore on %[[T00]]
// CHECK:         %[[GO01:.+]] = tessel.semaphore on %[[T01]]
// CHECK:         %[[GO10:.+]] = tessel.semaphore on %[[T10]]
// CHECK:         %[[GO11:.+]] = tessel.semaphore on %[[T11]]
// CHECK:         %[[ARRIVED:.+]] = tessel.semaphore on %[[T00]]
// CHECK:         tessel.core(%[[T00]]) {
// CHECK:           linalg.matmul
// CHECK-NEXT:      tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[ARRIVED]] for 4
// CHECK-NEXT:      tessel.signal %[[GO00]]
// CHECK-NEXT:      tessel.signal %[[GO10]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO00]]
// CHECK-NEXT:      tessel.signal %[[GO01]]
// CHECK:           linalg.generic
// CHECK:         }
// CHECK:         tessel.core(%[[T01]]) {
// CHECK:           linalg.matmul
// CHECK-NEXT:      tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO01]]
// CHECK:           linalg.generic
// CHECK:         }
// CHECK:         tessel.core(%[[T10]]) {
// CHECK:           linalg.matmul
// CHECK-NEXT:      tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO10]]
// CHECK-NEXT:      tessel.signal %[[GO11]]
// CHECK:           linalg.generic
// CHECK:         }
// CHECK:         tessel.core(%[[T11]]) {
// CHECK:           linalg.matmul
// CHECK-NEXT:      tessel.signal %[[ARRIVED]]
// CHECK-NEXT:      tessel.wait_semaphore %[[GO11]]
// CHECK:           linalg.generic
// CHECK:         }
module attributes {tessel.arch = #tiny} {
func.func @relayed(%x: memref<64x32xf32, #dram> {tessel.name = "x"}, %w: memref<32x8xf32, #dram> {tessel.kind = "weight", tessel.name = "w"}) -> memref<64x8xf32, #dram> {
  %s = memref.alloc() : memref<64x8xf32, #dram>
  %y = memref.alloc() : memref<64x8xf32, #dram>
  scf.forall (%i) = (0) to (64) step (16) {
    %xi = memref.subview %x[%i, 0] [16, 32] [1, 1] : memref<64x32xf32, #dram> to memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>
    %si = memref.subview %s[%i, 0] [16, 8] [1, 1] : memref<64x8xf32, #dram> to memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.matmul ins(%xi, %w : memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>, memref<32x8xf32, #dram>) outs(%si : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
  scf.forall (%i) = (0) to (64) step (16) {
    %si = memref.subview %s[%i, 0] [16, 8] [1, 1] : memref<64x8xf32, #dram> to memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, 0] [16, 8] [1, 1] : memref<64x8xf32, #dram> to memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%si : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1]>}
  return %y : memref<64x8xf32, #dram>
}
}

// -----

// A result mapped on_chip: its buffer is marked, and each tile of its
// writer gets a release fence once the reader (on other tiles) is done.
// Over a stream each input keeps its own (no two copies alternating), and
// each input's readers release it.
// CHECK-LABEL: tessel.device @kept
// STREAM-LABEL: tessel.device @kept
// STREAM:         tessel.dram_buffer @"scratch0[0]" scratch {tessel.on_chip}
// STREAM:         tessel.dram_buffer @"scratch0[1]" scratch {tessel.on_chip}
// STREAM:         tessel.dram_buffer @"scratch0[2]" scratch {tessel.on_chip}
// STREAM:         tessel.core(%tile_0_0) {
// STREAM:           tessel.fence {tessel.release = @"scratch0[0]"}
// STREAM:           tessel.fence {tessel.release = @"scratch0[1]"}
// STREAM:           tessel.fence {tessel.release = @"scratch0[2]"}
// CHECK:         tessel.dram_buffer @scratch0 scratch {tessel.on_chip}
// CHECK:         tessel.core(%tile_0_0) {
// CHECK:           linalg.copy
// CHECK:           tessel.wait_semaphore
// CHECK:           tessel.fence {tessel.release = @scratch0}
// CHECK-NEXT:    }
// CHECK:         tessel.core(%tile_1_0) {
// CHECK:           linalg.copy
// CHECK:           tessel.wait_semaphore
// CHECK:           tessel.fence {tessel.release = @scratch0}
// CHECK-NEXT:    }
#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @kept(%x: memref<16x8xf32, #dram>) -> memref<16x8xf32, #dram> {
  %s = memref.alloc() : memref<16x8xf32, #dram>
  %y = memref.alloc() : memref<16x8xf32, #dram>
  scf.forall (%i) = (0) to (16) step (8) {
    %xi = memref.subview %x[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %s[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1], on_chip>}
  scf.forall (%i) = (0) to (16) step (8) {
    %si = memref.subview %s[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%si : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 1, rows = 2, cols = 1, parts = [2, 1]>}
  return %y : memref<16x8xf32, #dram>
}
}

// -----

#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @kept_output(%x: memref<16x8xf32, #dram>) -> memref<16x8xf32, #dram> {
  %y = memref.alloc() : memref<16x8xf32, #dram>
  // expected-error @+1 {{'scf.forall' op is mapped on_chip, but its result is a model output, which goes to DRAM; drop on_chip from its mapping}}
  scf.forall (%i) = (0) to (16) step (8) {
    %xi = memref.subview %x[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1], on_chip>}
  return %y : memref<16x8xf32, #dram>
}
}

// -----

#dram = #tessel.memory_space<dram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @kept_twice(%x: memref<16x8xf32, #dram>) -> memref<16x8xf32, #dram> {
  %s = memref.alloc() : memref<16x8xf32, #dram>
  %y = memref.alloc() : memref<16x8xf32, #dram>
  // expected-warning @+1 {{op mapped on_chip whose result is also written by another op: the result stays in DRAM}}
  scf.forall (%i) = (0) to (16) step (8) {
    %xi = memref.subview %x[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %s[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1], on_chip>}
  // expected-note @+1 {{written here}}
  scf.forall (%i) = (0) to (16) step (8) {
    %xi = memref.subview %x[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %s[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1]>}
  scf.forall (%i) = (0) to (16) step (8) {
    %xi = memref.subview %s[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    %yi = memref.subview %y[%i, 0] [8, 8] [1, 1] : memref<16x8xf32, #dram> to memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.copy ins(%xi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>) outs(%yi : memref<8x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 1, parts = [2, 1]>}
  return %y : memref<16x8xf32, #dram>
}
}
