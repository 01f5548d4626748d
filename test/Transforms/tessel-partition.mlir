// RUN: tessel-opt %s -split-input-file -tessel-partition -verify-diagnostics | FileCheck %s

// A 2x2 grid.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

module attributes {tessel.arch = #tiny} {
// m in four parts of 16 rows: one forall iteration per tile.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[A:.+]]: tensor<64x32xf32>, %[[B:.+]]: tensor<32x8xf32>, %[[C:.+]]: tensor<64x8xf32>)
// CHECK:         %[[R:.+]] = scf.forall (%[[I:.+]]) = (0) to (64) step (16) shared_outs(%[[O:.+]] = %[[C]])
// CHECK:           %[[AI:.+]] = tensor.extract_slice %[[A]][%[[I]], 0] [16, 32] [1, 1]
// CHECK:           %[[OI:.+]] = tensor.extract_slice %[[O]][%[[I]], 0] [16, 8] [1, 1]
// CHECK:           %[[P:.+]] = linalg.matmul ins(%[[AI]], %{{.+}} : tensor<16x32xf32>, tensor<32x8xf32>) outs(%[[OI]] : tensor<16x8xf32>)
// CHECK-NOT:       tessel.mapping
// CHECK:           tensor.parallel_insert_slice %[[P]] into %[[O]][%[[I]], 0] [16, 8] [1, 1]
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
// CHECK:         return %[[R]]
func.func @rows(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>} ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// Data and tensor parallel at once: m in 2 parts, n in 2 parts.
// CHECK-LABEL: func.func @grid
// CHECK:         scf.forall (%[[I:.+]], %[[J:.+]]) = (0, 0) to (64, 8) step (32, 4)
// CHECK:           linalg.matmul ins({{.*}} : tensor<32x32xf32>, tensor<32x4xf32>) outs({{.*}} : tensor<32x4xf32>)
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1]>}
func.func @grid(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1]>} ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// One part: a one-iteration forall, the same form as the others.
// CHECK-LABEL: func.func @one_tile
// CHECK:         scf.forall (%{{.+}}) = (0) to (8) step (8)
// CHECK:         } {tessel.partition = #tessel.mapping<row = 1, col = 1, rows = 1, cols = 1, parts = [1, 1]>}
func.func @one_tile(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.transpose {tessel.mapping = #tessel.mapping<row = 1, col = 1, rows = 1, cols = 1, parts = [1, 1]>} ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  return %0 : tensor<8x8xf32>
}

// No parallel loop at all: wrapped as it is.
// CHECK-LABEL: func.func @sum
// CHECK:         scf.forall (%{{.+}}) in (1) shared_outs(%[[O:.+]] = %{{.+}}) -> (tensor<f32>)
// CHECK:           %[[S:.+]] = linalg.reduce
// CHECK:           tensor.parallel_insert_slice %[[S]] into %[[O]][] [] []
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
func.func @sum(%a: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.reduce ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0] {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// k in four parts: each tile computes a partial 64x8 product from a zero
// fill, into its slice of a 64x8x4 tensor of partials; a linalg.reduce then
// adds the four partials to the matmul's init. The fill and the reduce are
// mapped over the same tiles (their 64 rows in four parts) and partitioned.
// CHECK-LABEL: func.func @split_reduction
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<64x8xf32>) -> tensor<64x8xf32>
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<64x8x4xf32>
// CHECK:         %[[ZEROS:.+]] = scf.forall {{.*}} shared_outs(%{{.+}} = %[[EMPTY]])
// CHECK:           linalg.fill {{.*}} -> tensor<16x8x4xf32>
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
// CHECK:         %[[PARTIALS:.+]] = scf.forall (%[[K:.+]]) = (0) to (32) step (8) shared_outs(%[[P:.+]] = %[[ZEROS]])
// CHECK:           %[[SLOT:.+]] = affine.apply {{.*}}(%[[K]])
// CHECK:           linalg.matmul ins({{.*}} : tensor<64x8xf32>, tensor<8x8xf32>) outs({{.*}} : tensor<64x8xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %[[P]][0, 0, %{{.+}}] [64, 8, 1] [1, 1, 1]
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [1, 1, 4]>}
// CHECK:         %[[SUM:.+]] = scf.forall {{.*}} shared_outs(%{{.+}} = %[[C]])
// CHECK:           linalg.reduce ins(%{{.+}} : tensor<16x8x4xf32>) outs(%{{.+}} : tensor<16x8xf32>) dimensions = [2]
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
// CHECK:         return %[[SUM]]
func.func @split_reduction(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [1, 1, 4]>} ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// The reduction split together with a parallel loop: one forall over both
// split loops, each part computing the partial product of its 32 rows over
// its half of k into its slot of a 64x8x2 tensor of partials; the reduce
// adds the two slots up.
// CHECK-LABEL: func.func @split_both
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<64x8x2xf32>
// CHECK:         %[[ZEROS:.+]] = scf.forall {{.*}} shared_outs(%{{.+}} = %[[EMPTY]])
// CHECK:           linalg.fill
// CHECK:         %[[PARTIALS:.+]] = scf.forall (%[[M:.+]], %[[K:.+]]) = (0, 0) to (64, 32) step (32, 16) shared_outs(%[[P:.+]] = %[[ZEROS]])
// CHECK:           %[[SLOT:.+]] = affine.apply {{.*}}(%[[K]])
// CHECK:           tensor.extract_slice %{{.+}}[%[[M]], %[[K]]] [32, 16] [1, 1] : tensor<64x32xf32> to tensor<32x16xf32>
// CHECK:           linalg.matmul ins({{.*}} : tensor<32x16xf32>, tensor<16x8xf32>) outs({{.*}} : tensor<32x8xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %[[P]][%[[M]], 0, %[[SLOT]]] [32, 8, 1] [1, 1, 1]
// CHECK:         } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 1, 2]>}
// CHECK:         scf.forall
// CHECK:           linalg.reduce ins(%{{.+}} : tensor<16x8x2xf32>) outs(%{{.+}} : tensor<16x8xf32>) dimensions = [2]
func.func @split_both(%a: tensor<64x32xf32>, %b: tensor<32x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 1, 2]>} ins(%a, %b : tensor<64x32xf32>, tensor<32x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// A split with a reduction needs parts that divide each split loop.
func.func @split_both_uneven(%a: tensor<63x32xf32>, %b: tensor<32x8xf32>, %c: tensor<63x8xf32>) -> tensor<63x8xf32> {
  // expected-error @+1 {{'linalg.matmul' op splits loop #0 into 2 parts together with a reduction loop; each split loop's extent must be static and divide evenly (it is 63)}}
  %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 1, 2]>} ins(%a, %b : tensor<63x32xf32>, tensor<32x8xf32>) outs(%c : tensor<63x8xf32>) -> tensor<63x8xf32>
  return %0 : tensor<63x8xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// An empty tensor has no parts to place.
func.func @empty_tensor() -> tensor<0xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<0xf32>
  // expected-error @+1 {{'linalg.fill' op computes an empty tensor (loop #0 has extent 0); remove it from the model, or give the dimension a size}}
  %1 = linalg.fill {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>} ins(%cst : f32) outs(%0 : tensor<0xf32>) -> tensor<0xf32>
  return %1 : tensor<0xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// A reduction whose result keeps the reduced dimension (a layer norm's mean,
// 1x8x1) cannot be split: its partials would have no place.
func.func @split_keepdim_reduction(%x: tensor<1x8x16xf32>, %init: tensor<1x8x1xf32>) -> tensor<1x8x1xf32> {
  // expected-error @+1 {{'linalg.generic' op splits a reduction loop, but dimension #2 of its result is indexed by `0`, not by a loop, so its partial results have no place; map it without splitting a reduction loop}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x16xf32>) outs(%init : tensor<1x8x1xf32>) attrs = {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [1, 2, 2]>} {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}
}
