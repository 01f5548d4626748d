// RUN: tessel-opt %s -split-input-file -tessel-tile-for-sram -verify-diagnostics | FileCheck %s

// A 2x2 grid with 16 KiB of SRAM per tile: a step's working set may be at
// most 8 KiB, so that two steps fit.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

module attributes {tessel.arch = #tiny} {
// Each part is 64x64x64 (48 KiB of slices). Halving whichever loop shrinks the
// slices most gives 16x32x32 steps: (16*32 + 32*32 + 16*32) * 4 = 8 KiB.
// CHECK-LABEL: func.func @matmul
// CHECK:         scf.forall
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<32x32xf32>) outs(%{{.+}} : tensor<16x32xf32>)
// CHECK:         } {tessel.partition
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = scf.forall (%i) = (0) to (128) step (64) shared_outs(%o = %c) -> (tensor<128x64xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %oi = tensor.extract_slice %o[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %r = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%oi : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[%i, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x64xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1, 1]>}
  return %0 : tensor<128x64xf32>
}

// An uneven part (affine.min sizes): bounded by its largest size, 500.
// CHECK-LABEL: func.func @uneven
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}} ins(%{{.+}} : tensor<3x?xf32>)
func.func @uneven(%a: tensor<3x999xf32>) -> tensor<3x999xf32> {
  %e = tensor.empty() : tensor<3x999xf32>
  %0 = scf.forall (%i) = (0) to (999) step (500) shared_outs(%o = %e) -> (tensor<3x999xf32>) {
    %n = affine.min affine_map<(d0) -> (-d0 + 999, 500)>(%i)
    %ai = tensor.extract_slice %a[0, %i] [3, %n] [1, 1] : tensor<3x999xf32> to tensor<3x?xf32>
    %oi = tensor.extract_slice %o[0, %i] [3, %n] [1, 1] : tensor<3x999xf32> to tensor<3x?xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ai : tensor<3x?xf32>) outs(%oi : tensor<3x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %x = math.exp %in : f32
      linalg.yield %x : f32
    } -> tensor<3x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, %i] [3, %n] [1, 1] : tensor<3x?xf32> into tensor<3x999xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2]>}
  return %0 : tensor<3x999xf32>
}

// The vector unit evaluates a body one op at a time into temporaries the
// size of the step: three ops and one constant here, so a step of E
// elements needs 2 * (2 * 4E) bytes of operands plus 4 * 4E of temporaries.
// 32x32 fits 16 KiB at 16x32 (E = 512): 2 * 4096 + 8192 bytes.
// CHECK-LABEL: func.func @temporaries
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}} ins(%{{.+}} : tensor<16x32xf32>)
func.func @temporaries(%a: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %two = arith.constant 2.0 : f32
  %0 = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<32x32xf32>) {
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<32x32xf32>) outs(%o : tensor<32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %x = math.exp %in : f32
      %y = arith.mulf %x, %two : f32
      %z = arith.addf %y, %in : f32
      linalg.yield %z : f32
    } -> tensor<32x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, 0] [32, 32] [1, 1] : tensor<32x32xf32> into tensor<32x32xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  return %0 : tensor<32x32xf32>
}

// A 3x3 convolution streams its output rows in place (groups of rows of
// tessel.matmul) and needs no SRAM of its own: two steps' operands, 2 *
// 6048 bytes, fit 16 KiB, so the part is one step.
// CHECK-LABEL: func.func @conv_in_place
// CHECK:         scf.forall
// CHECK-NOT:       scf.for
// CHECK:           linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<1x16x8x8xf32>)
func.func @conv_in_place(%x: tensor<1x2x10x10xf32>, %w: tensor<16x2x3x3xf32>, %y: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = scf.forall (%i) in (1) shared_outs(%o = %y) -> (tensor<1x16x8x8xf32>) {
    %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x10x10xf32>, tensor<16x2x3x3xf32>) outs(%o : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, 0, 0, 0] [1, 16, 8, 8] [1, 1, 1, 1] : tensor<1x16x8x8xf32> into tensor<1x16x8x8xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1, 1]>}
  return %0 : tensor<1x16x8x8xf32>
}

// The mapping's steps are kept where two of them fit: the same 64x64x64
// part in steps of 64x16x8, (64*8 + 8*16 + 64*16) * 4 = 6.5 KiB.
// CHECK-LABEL: func.func @mapped_steps
// CHECK:         scf.forall
// CHECK:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x8xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<64x16xf32>)
func.func @mapped_steps(%a: tensor<128x64xf32>, %b: tensor<64x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = scf.forall (%i) = (0) to (128) step (64) shared_outs(%o = %c) -> (tensor<128x64xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %oi = tensor.extract_slice %o[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %r = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%oi : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[%i, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x64xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1, 1], steps = [64, 16, 8]>}
  return %0 : tensor<128x64xf32>
}

// Steps too large to fit are halved from there, by the pass's own rule:
// 64x16x64 (24 KiB) becomes 32x16x64, then 32x16x32 (8 KiB), not the
// 16x32x32 of @matmul.
// CHECK-LABEL: func.func @mapped_steps_too_large
// CHECK:         scf.forall
// CHECK:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x32xf32>, tensor<32x16xf32>) outs(%{{.+}} : tensor<32x16xf32>)
func.func @mapped_steps_too_large(%a: tensor<128x64xf32>, %b: tensor<64x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = scf.forall (%i) = (0) to (128) step (64) shared_outs(%o = %c) -> (tensor<128x64xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %oi = tensor.extract_slice %o[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %r = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%oi : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[%i, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x64xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1, 1], steps = [64, 16, 64]>}
  return %0 : tensor<128x64xf32>
}

// Resident weights are not double-buffered, and they hold their SRAM for
// the whole program. The matmul's 64x32 weight slice (8 KiB) stays; two
// steps of the rest must fit the other 8 KiB: 8x32x64, 2 * (8*64 + 8*32) * 4
// = 6 KiB. The exp on the same tile also has only 8 KiB: steps of 256
// elements (2 * 2 * 1 KiB + a 1 KiB temporary), not the 512 that 16 KiB
// would allow; the exp on tile (1, 1), which holds no weights, gets them.
// CHECK-LABEL: func.func @resident
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x32xf32>) outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:         } {tessel.partition = #tessel.mapping<{{.*}}resident>}
// CHECK:         scf.forall
// CHECK:           linalg.generic {{.*}} ins(%{{.+}} : tensor<256xf32>)
// CHECK:         scf.forall
// CHECK:           linalg.generic {{.*}} ins(%{{.+}} : tensor<512xf32>)
func.func @resident(%a: tensor<128x64xf32>, %b: tensor<64x32xf32> {tessel.kind = "weight"}, %c: tensor<128x32xf32>, %x: tensor<2048xf32>) -> (tensor<128x32xf32>, tensor<2048xf32>, tensor<2048xf32>) {
  %0 = scf.forall (%i) = (0) to (128) step (64) shared_outs(%o = %c) -> (tensor<128x32xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
    %oi = tensor.extract_slice %o[%i, 0] [64, 32] [1, 1] : tensor<128x32xf32> to tensor<64x32xf32>
    %r = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x32xf32>) outs(%oi : tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[%i, 0] [64, 32] [1, 1] : tensor<64x32xf32> into tensor<128x32xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1, 1], resident>}
  %e = tensor.empty() : tensor<2048xf32>
  %1 = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<2048xf32>) {
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2048xf32>) outs(%o : tensor<2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.exp %in : f32
      linalg.yield %y : f32
    } -> tensor<2048xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0] [2048] [1] : tensor<2048xf32> into tensor<2048xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  %2 = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<2048xf32>) {
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2048xf32>) outs(%o : tensor<2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.exp %in : f32
      linalg.yield %y : f32
    } -> tensor<2048xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0] [2048] [1] : tensor<2048xf32> into tensor<2048xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 1, col = 1, rows = 1, cols = 1, parts = [1]>}
  return %0, %1, %2 : tensor<128x32xf32>, tensor<2048xf32>, tensor<2048xf32>
}

// A part that already fits is left as it is.
// CHECK-LABEL: func.func @fits
// CHECK-NOT:     scf.for %
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x16xf32>, tensor<16x16xf32>)
func.func @fits(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = scf.forall (%i) in (1) shared_outs(%o = %c) -> (tensor<16x16xf32>) {
    %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%o : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, 0] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x16xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return %0 : tensor<16x16xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// A reversed read touches the whole input whatever the step: it cannot fit.
func.func @reversed(%a: tensor<5000xf32>) -> tensor<5000xf32> {
  %e = tensor.empty() : tensor<5000xf32>
  %0 = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<5000xf32>) {
    // expected-error @+1 {{'linalg.generic' op needs 40008 bytes of SRAM for two single-element steps and their temporaries, but a tile has 16384 bytes}}
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (-d0 + 4999)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<5000xf32>) outs(%o : tensor<5000xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<5000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0] [5000] [1] : tensor<5000xf32> into tensor<5000xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  return %0 : tensor<5000xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
// A resident 64x64 weight takes all 16 KiB: the error names the bytes it holds.
func.func @resident_too_large(%a: tensor<64x64xf32>, %b: tensor<64x64xf32> {tessel.kind = "weight"}, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = scf.forall (%i) in (1) shared_outs(%o = %c) -> (tensor<64x64xf32>) {
    // expected-error @+1 {{'linalg.matmul' op needs 16 bytes of SRAM for two single-element steps and their temporaries, but a tile has 16384 bytes, of which resident weights hold 16384; keep fewer weights resident}}
    %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %o[0, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<64x64xf32>
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1], resident>}
  return %0 : tensor<64x64xf32>
}
}
