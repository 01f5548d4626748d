// RUN: tessel-opt %s -split-input-file -tessel-lower-to-instructions -verify-diagnostics | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// A 2x2 grid with a 4x4 weight-stationary MAC array.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// CHECK-LABEL: tessel.device @steps
tessel.device @steps arch #tiny {
  %x = tessel.dram_buffer @x input : memref<8x8xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<8x6xf32, #dram>
  %b = tessel.dram_buffer @b weight : memref<6xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x6xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %cst = arith.constant 0.0 : f32
    // A copy between DRAM and SRAM: a transfer, waited for.
    // CHECK:     %[[XS:.+]] = memref.alloc() : memref<8x8xf32, #sram>
    // CHECK:     %[[D:.+]] = tessel.dma %x to %[[XS]]
    // CHECK:     tessel.wait %[[D]]
    %xs = memref.alloc() : memref<8x8xf32, #sram>
    memref.copy %x, %xs : memref<8x8xf32, #dram> to memref<8x8xf32, #sram>
    %ws = memref.alloc() : memref<8x6xf32, #sram>
    memref.copy %w, %ws : memref<8x6xf32, #dram> to memref<8x6xf32, #sram>
    %bs = memref.alloc() : memref<6xf32, #sram>
    memref.copy %b, %bs : memref<6xf32, #dram> to memref<6xf32, #sram>
    %acc = memref.alloc() : memref<8x6xf32, #sram>
    // CHECK:     tessel.vector_fill 0.000000e+00, %[[ACC:.+]] : memref<8x6xf32, #sram>
    linalg.fill ins(%cst : f32) outs(%acc : memref<8x6xf32, #sram>)
    // 8x8x6 on a 4x4 array: column blocks of 4 and 2, each over k = 0..3
    // then 4..7 (the ISA's accumulation order).
    // CHECK:     %[[A0:.+]] = tessel.strided_view %[[XS]] : {{.+}} to memref<8x4x{{[a-z0-9]+}}, strided<[8, 1]>
    // CHECK:     %[[B0:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<4x4x{{[a-z0-9]+}}, strided<[6, 1]>
    // CHECK:     %[[C0:.+]] = tessel.strided_view %[[ACC]] : {{.+}} to memref<8x4x{{[a-z0-9]+}}, strided<[6, 1]>
    // CHECK:     tessel.matmul %[[A0]], %[[B0]], %[[C0]]
    // CHECK:     tessel.strided_view %[[XS]] : {{.+}} to memref<8x4x{{[a-z0-9]+}}, strided<[8, 1], offset: 4>
    // CHECK:     tessel.matmul
    // CHECK:     tessel.strided_view %[[ACC]] : {{.+}} to memref<8x2x{{[a-z0-9]+}}, strided<[6, 1], offset: 4>
    // CHECK:     tessel.matmul
    // CHECK:     tessel.matmul
    // CHECK-NOT: tessel.matmul
    linalg.matmul ins(%xs, %ws : memref<8x8xf32, #sram>, memref<8x6xf32, #sram>) outs(%acc : memref<8x6xf32, #sram>)
    // Bias (broadcast along rows through a zero stride) and relu as torch-mlir
    // writes it: ugt is computed as its ordered negation, ole, and the
    // select, its only reader, swaps its choices (a NaN still selects x).
    // CHECK:     %[[BB:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<8x6x{{[a-z0-9]+}}, strided<[0, 1]>
    // CHECK:     %[[SUM:.+]] = memref.alloc() : memref<8x6xf32, #sram>
    // CHECK:     tessel.vector_binary add %[[ACC]], %[[BB]], %[[SUM]]
    // The constant 0 is one element, read through zero strides.
    // CHECK:     %[[ZERO1:.+]] = memref.alloc() : memref<1xf32, #sram>
    // CHECK:     tessel.vector_fill 0.000000e+00, %[[ZERO1]]
    // CHECK:     %[[ZERO:.+]] = tessel.strided_view %[[ZERO1]] : memref<1xf32, #sram> to memref<8x6xf32, strided<[0, 0]>, #sram>
    // CHECK:     %[[MASK:.+]] = memref.alloc() : memref<8x6xf32, #sram>
    // CHECK:     tessel.vector_compare le %[[SUM]], %[[ZERO]], %[[MASK]]
    // CHECK-NOT: tessel.vector_binary_imm
    // CHECK:     tessel.vector_select %[[MASK]], %[[ZERO]], %[[SUM]], %[[OUT:.+]] :
    // CHECK:     memref.dealloc %[[SUM]]
    %out = memref.alloc() : memref<8x6xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %bs : memref<8x6xf32, #sram>, memref<6xf32, #sram>) outs(%out : memref<8x6xf32, #sram>) {
    ^bb0(%in: f32, %bias: f32, %o: f32):
      %s = arith.addf %in, %bias : f32
      %gt = arith.cmpf ugt, %s, %cst : f32
      %r = arith.select %gt, %s, %cst : f32
      linalg.yield %r : f32
    }
    // CHECK:     tessel.dma %[[OUT]] to %y
    memref.copy %out, %y : memref<8x6xf32, #sram> to memref<8x6xf32, #dram>
    // A transpose: a copy through a permuted view.
    // CHECK:     %[[TV:.+]] = memref.transpose %[[XS]] (d0, d1) -> (d1, d0)
    // CHECK:     tessel.vector_unary copy %[[TV]], %{{.+}}
    %xt = memref.alloc() : memref<8x8xf32, #sram>
    linalg.transpose ins(%xs : memref<8x8xf32, #sram>) outs(%xt : memref<8x8xf32, #sram>) permutation = [1, 0]
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// The same GELU with each commutative op's operands the other way round is
// one gelu too; one whose erf is read again keeps its five instructions
// (the erf's value is needed apart).
// CHECK-LABEL: tessel.device @gelu_commuted
// CHECK:         tessel.vector_unary gelu
// CHECK:         tessel.vector_unary erf
// CHECK-NOT:     tessel.vector_unary gelu
tessel.device @gelu_commuted arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %sqrt2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = memref.alloc() : memref<8xf32, #sram>
    %out = memref.alloc() : memref<8xf32, #sram>
    %out2 = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32, #sram>) outs(%out : memref<8xf32, #sram>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.divf %in, %sqrt2 : f32
      %1 = math.erf %0 : f32
      %2 = arith.addf %one, %1 : f32
      %3 = arith.mulf %half, %2 : f32
      %4 = arith.mulf %3, %in : f32
      linalg.yield %4 : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32, #sram>) outs(%out2 : memref<8xf32, #sram>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.divf %in, %sqrt2 : f32
      %1 = math.erf %0 : f32
      %2 = arith.addf %1, %one : f32
      %3 = arith.mulf %2, %half : f32
      %4 = arith.mulf %in, %3 : f32
      %5 = arith.addf %4, %1 : f32
      linalg.yield %5 : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// An ult that two selects read (a clamp below and its mask): both swap
// their choices on its negation, ge.
// CHECK-LABEL: tessel.device @negated_compare_two_selects
// CHECK:         tessel.vector_compare ge %[[X:.+]], %[[LO:.+]], %[[MASK:[a-z0-9_]+]]
// CHECK-NOT:     tessel.vector_binary_imm
// CHECK:         tessel.vector_select %[[MASK]], %[[X]], %[[LO]], %{{.+}}
// CHECK:         tessel.vector_select %[[MASK]], %{{.+}}, %{{.+}}, %{{.+}}
tessel.device @negated_compare_two_selects arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %lo = arith.constant -1.0 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %x = memref.alloc() : memref<8xf32, #sram>
    %out = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32, #sram>) outs(%out : memref<8xf32, #sram>) {
    ^bb0(%in: f32, %o: f32):
      %below = arith.cmpf ult, %in, %lo : f32
      %clamped = arith.select %below, %lo, %in : f32
      %mask = arith.select %below, %one, %zero : f32
      %r = arith.addf %clamped, %mask : f32
      linalg.yield %r : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// GELU in PyTorch's erf form after a bias, as BERT's FFN reaches the
// lowering: the bias is one add, the five ops of GELU one gelu (the same
// f32 operations, one pass through SRAM).
// CHECK-LABEL: tessel.device @gelu
// CHECK:         tessel.vector_binary add %{{.+}}, %{{.+}}, %[[SUM:[a-z0-9_]+]]
// CHECK-NEXT:    tessel.vector_unary gelu %[[SUM]], %{{[a-z0-9_]+}} :
// CHECK-NOT:     tessel.vector_
// CHECK:         memref.dealloc %[[SUM]]
tessel.device @gelu arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %sqrt2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = memref.alloc() : memref<8x6xf32, #sram>
    %b = memref.alloc() : memref<6xf32, #sram>
    %out = memref.alloc() : memref<8x6xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<8x6xf32, #sram>, memref<6xf32, #sram>) outs(%out : memref<8x6xf32, #sram>) {
    ^bb0(%in: f32, %bias: f32, %o: f32):
      %s = arith.addf %in, %bias : f32
      %0 = arith.divf %s, %sqrt2 : f32
      %1 = math.erf %0 : f32
      %2 = arith.addf %1, %one : f32
      %3 = arith.mulf %2, %half : f32
      %4 = arith.mulf %s, %3 : f32
      linalg.yield %4 : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// Another form of it (x times 1 / sqrt(2), which rounds otherwise) stays
// five instructions: gelu is exactly the form above.
// CHECK-LABEL: tessel.device @gelu_by_reciprocal
// CHECK-NOT:     gelu
// CHECK:         tessel.vector_unary erf
// CHECK-NOT:     gelu
tessel.device @gelu_by_reciprocal arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %rsqrt2 = arith.constant 0.707106769 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = memref.alloc() : memref<8xf32, #sram>
    %out = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32, #sram>) outs(%out : memref<8xf32, #sram>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.mulf %in, %rsqrt2 : f32
      %1 = math.erf %0 : f32
      %2 = arith.addf %1, %one : f32
      %3 = arith.mulf %2, %half : f32
      %4 = arith.mulf %in, %3 : f32
      linalg.yield %4 : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// An unordered comparison read as a number too (not only as a select's
// condition) is computed as 1 - its ordered negation, and the select keeps
// its choices.
// CHECK-LABEL: tessel.device @negated_compare_read_as_number
// CHECK:         tessel.vector_compare le %[[X:.+]], %[[ZERO:.+]], %[[MASK:[a-z0-9_]+]]
// CHECK:         tessel.vector_binary_imm sub %[[MASK]], 1.000000e+00, %[[MASK]] {imm_lhs}
// CHECK:         tessel.vector_select %[[MASK]], %[[X]], %[[ZERO]], %[[R:[a-z0-9_]+]]
// CHECK:         tessel.vector_binary add %[[R]], %{{.+}}, %{{.+}}
tessel.device @negated_compare_read_as_number arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %cst = arith.constant 0.0 : f32
    %x = memref.alloc() : memref<8xf32, #sram>
    %out = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32, #sram>) outs(%out : memref<8xf32, #sram>) {
    ^bb0(%in: f32, %o: f32):
      %gt = arith.cmpf ugt, %in, %cst : f32
      %r = arith.select %gt, %in, %cst : f32
      %n = arith.uitofp %gt : i1 to f32
      %sum = arith.addf %r, %n : f32
      linalg.yield %sum : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @unsupported arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<1x6x2xf32, #sram>
    %w = memref.alloc() : memref<3x2x4xf32, #sram>
    %y = memref.alloc() : memref<1x4x4xf32, #sram>
    // expected-error @+1 {{'linalg.conv_1d_nwc_wcf' op has no lowering to tessel instructions yet}}
    linalg.conv_1d_nwc_wcf ins(%x, %w : memref<1x6x2xf32, #sram>, memref<3x2x4xf32, #sram>) outs(%y : memref<1x4x4xf32, #sram>)
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Reductions: the elementwise part of the body over the whole iteration
// space, vector_reduce along the reduced loop, then combined with the output
// (so a reduction split into steps accumulates).
// CHECK-LABEL: tessel.device @reductions
tessel.device @reductions arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<4x8xf32, #sram>
    %m = memref.alloc() : memref<4xf32, #sram>
    %s = memref.alloc() : memref<4xf32, #sram>
    // A row max, as linalg.reduce.
    // CHECK:     tessel.vector_reduce max %[[X:.+]], %[[R:.+]] dim 1 : memref<4x8xf32, #sram>, memref<4xf32, #sram>
    // CHECK:     tessel.vector_binary max %[[M:.+]], %[[R]], %[[M]]
    // CHECK:     memref.dealloc %[[R]]
    linalg.reduce ins(%x : memref<4x8xf32, #sram>) outs(%m : memref<4xf32, #sram>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.maximumf %in, %acc : f32
        linalg.yield %r : f32
      }
    // A sum of exp(x - max), as a generic (the softmax denominator): the
    // subtraction reads the row max through a zero-stride view.
    // CHECK:     %[[MB:.+]] = tessel.strided_view %[[M]] : {{.+}} to memref<4x8x{{[a-z0-9]+}}, strided<[1, 0]>
    // CHECK:     %[[D:.+]] = memref.alloc() : memref<4x8xf32, #sram>
    // CHECK:     tessel.vector_binary sub %[[X]], %[[MB]], %[[D]]
    // CHECK:     %[[E:.+]] = memref.alloc() : memref<4x8xf32, #sram>
    // CHECK:     tessel.vector_unary exp %[[D]], %[[E]]
    // CHECK:     %[[SUM:.+]] = memref.alloc() : memref<4xf32, #sram>
    // CHECK:     tessel.vector_reduce add %[[E]], %[[SUM]] dim 1
    // CHECK:     tessel.vector_binary add %[[S:.+]], %[[SUM]], %[[S]]
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<4x8xf32, #sram>, memref<4xf32, #sram>) outs(%s : memref<4xf32, #sram>) {
    ^bb0(%in: f32, %max: f32, %acc: f32):
      %d = arith.subf %in, %max : f32
      %e = math.exp %d : f32
      %a = arith.addf %e, %acc : f32
      linalg.yield %a : f32
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Windowed ops through strided views of SRAM buffers.
// CHECK-LABEL: tessel.device @windows
tessel.device @windows arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<1x2x6x6xf32, #sram>
    %w = memref.alloc() : memref<3x2x3x3xf32, #sram>
    %y = memref.alloc() : memref<1x3x4x4xf32, #sram>
    // A 3x3 convolution over 2 channels contracts over the longest of the
    // channels (2), kernel rows (3) and kernel columns (3): the rows. Its 4
    // output rows stream as one, against the stationary weights, in 4
    // groups of 4 pixels: an input row (6 pixels) apart in the input, an
    // output row (4) apart in the output, so the input's 2 columns past
    // each output row are not streamed. Per channel and kernel column:
    // out^T (4 x 4 x 3) += X^T (4 x 4 x 3) * W^T (3 x 3), 6 MAC blocks
    // instead of 4 rows x 6 = 24, in place.
    // CHECK:     memref.alloc() : memref<1x3x4x4xf32, #sram>
    // CHECK-NOT: memref.alloc
    // CHECK:     %[[X00:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<4x4x3x{{[a-z0-9]+}}, strided<[6, 1, 6]>
    // CHECK:     %[[W00:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<3x3x{{[a-z0-9]+}}, strided<[3, 18]>
    // CHECK:     %[[Y00:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<4x4x3x{{[a-z0-9]+}}, strided<[4, 1, 16]>
    // CHECK:     tessel.matmul %[[X00]], %[[W00]], %[[Y00]]
    // Channel 0, kernel column 1: one input column and one weight further.
    // CHECK:     tessel.strided_view %{{.+}} : {{.+}} to memref<4x4x3x{{[a-z0-9]+}}, strided<[6, 1, 6], offset: 1>
    // CHECK:     tessel.strided_view %{{.+}} : {{.+}} to memref<3x3x{{[a-z0-9]+}}, strided<[3, 18], offset: 1>
    // CHECK-COUNT-5: tessel.matmul
    // CHECK-NOT: tessel.matmul
    // CHECK-NOT: tessel.vector_unary
    linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x2x6x6xf32, #sram>, memref<3x2x3x3xf32, #sram>) outs(%y : memref<1x3x4x4xf32, #sram>)
    // A 1x1 convolution (6 filters over 2 channels) on 4x4 pixels: the
    // output's rows are as far apart as the input's, so all 16 pixels
    // stream as one against the weights W^T (2 x 6) in a 4x4 array's
    // 4-column blocks: out^T (16 x 6) += X^T (16 x 2) * W^T (2 x 6), 2 MAC
    // blocks instead of 4 rows x 2 column blocks.
    // CHECK:     %[[PX:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<16x2x{{[a-z0-9]+}}, strided<[1, 16]>
    // CHECK:     %[[PW:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<2x4x{{[a-z0-9]+}}, strided<[1, 2]>
    // CHECK:     %[[PY:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<16x4x{{[a-z0-9]+}}, strided<[1, 16]>
    // CHECK:     tessel.matmul %[[PX]], %[[PW]], %[[PY]]
    // Filters 4 and 5: the second column block.
    // CHECK:     tessel.strided_view %{{.+}} : {{.+}} to memref<2x2x{{[a-z0-9]+}}, strided<[1, 2], offset: 8>
    // CHECK:     tessel.strided_view %{{.+}} : {{.+}} to memref<16x2x{{[a-z0-9]+}}, strided<[1, 16], offset: 64>
    // CHECK:     tessel.matmul
    // CHECK-NOT: tessel.matmul
    %px = memref.alloc() : memref<1x2x4x4xf32, #sram>
    %pw = memref.alloc() : memref<6x2x1x1xf32, #sram>
    %py = memref.alloc() : memref<1x6x4x4xf32, #sram>
    linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%px, %pw : memref<1x2x4x4xf32, #sram>, memref<6x2x1x1xf32, #sram>) outs(%py : memref<1x6x4x4xf32, #sram>)
    // The same 3x3 convolution from a zero fill of its output: the first
    // tap's blocks start the sums at zero (`init`) instead. The later taps
    // accumulate.
    // CHECK:     %[[Z:.+]] = memref.alloc() : memref<1x3x4x4xf32, #sram>
    // CHECK-NOT: tessel.vector_fill
    // CHECK:     tessel.matmul init
    // CHECK-COUNT-5: tessel.matmul %
    // CHECK-NOT: tessel.matmul
    // CHECK-NOT: tessel.vector_unary
    %zero = arith.constant 0.0 : f32
    %z = memref.alloc() : memref<1x3x4x4xf32, #sram>
    linalg.fill ins(%zero : f32) outs(%z : memref<1x3x4x4xf32, #sram>)
    linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x2x6x6xf32, #sram>, memref<3x2x3x3xf32, #sram>) outs(%z : memref<1x3x4x4xf32, #sram>)
    // A 2x2 max pooling with stride 2: one max per tap over C x OH x OW.
    // CHECK:     tessel.strided_view %{{.+}} : {{.+}} to memref<2x3x3x{{[a-z0-9]+}}, strided<[36, 12, 2]>
    // CHECK:     tessel.vector_binary max
    // CHECK-COUNT-3: tessel.vector_binary max
    %k = memref.alloc() : memref<2x2xf32, #sram>
    %p = memref.alloc() : memref<1x2x3x3xf32, #sram>
    linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %k : memref<1x2x6x6xf32, #sram>, memref<2x2xf32, #sram>) outs(%p : memref<1x2x3x3xf32, #sram>)
    // A bias broadcast: a copy from a zero-stride view.
    // CHECK:     %[[BV:.+]] = tessel.strided_view %{{.+}} : {{.+}} to memref<1x3x4x4x{{[a-z0-9]+}}, strided<[0, 1, 0, 0]>
    // CHECK:     tessel.vector_unary copy %[[BV]], %{{.+}}
    %b = memref.alloc() : memref<3xf32, #sram>
    linalg.broadcast ins(%b : memref<3xf32, #sram>) outs(%y : memref<1x3x4x4xf32, #sram>) dimensions = [0, 2, 3]
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// 4 rows of activations against an 8x32 weight: streamed as written, each of
// the 16 blocks would carry 4 rows past the array; transposed (acc^T += w^T *
// x^T), the weight's 32 columns stream past blocks of x^T, 2 blocks in all.
// CHECK-LABEL: tessel.device @stream_the_longer_operand
// CHECK:     %[[W0:.+]] = tessel.strided_view %[[W:.+]] : {{.+}} to memref<32x4x{{[a-z0-9]+}}, strided<[1, 32]>
// CHECK:     %[[X0:.+]] = tessel.strided_view %[[X:.+]] : {{.+}} to memref<4x4x{{[a-z0-9]+}}, strided<[1, 8]>
// CHECK:     %[[Y0:.+]] = tessel.strided_view %[[Y:.+]] : {{.+}} to memref<32x4x{{[a-z0-9]+}}, strided<[1, 32]>
// CHECK:     tessel.matmul %[[W0]], %[[X0]], %[[Y0]]
// CHECK:     tessel.strided_view %[[W]] : {{.+}} to memref<32x4x{{[a-z0-9]+}}, strided<[1, 32], offset: 128>
// CHECK:     tessel.strided_view %[[X]] : {{.+}} to memref<4x4x{{[a-z0-9]+}}, strided<[1, 8], offset: 4>
// CHECK:     tessel.matmul
// CHECK-NOT: tessel.matmul
tessel.device @stream_the_longer_operand arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<4x8xf32, #sram>
    %w = memref.alloc() : memref<8x32xf32, #sram>
    %y = memref.alloc() : memref<4x32xf32, #sram>
    linalg.matmul ins(%x, %w : memref<4x8xf32, #sram>, memref<8x32xf32, #sram>) outs(%y : memref<4x32xf32, #sram>)
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// sin and cos (rotary embeddings): vector_unary sin and cos, the ISA's
// sequences (docs/isa.md).
// CHECK-LABEL: tessel.device @trigonometry
// CHECK:     tessel.vector_unary sin %[[X:[^,]+]], %[[S:[^ ]+]] :
// CHECK:     tessel.vector_unary cos %[[X]], %[[C:[^ ]+]] :
// CHECK:     tessel.vector_binary add %[[S]], %[[C]], %{{.+}}
tessel.device @trigonometry arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<4x8xf32, #sram>
    %y = memref.alloc() : memref<4x8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32, #sram>) outs(%y : memref<4x8xf32, #sram>) {
    ^bb0(%in: f32, %out: f32):
      %s = math.sin %in : f32
      %c = math.cos %in : f32
      %a = arith.addf %s, %c : f32
      linalg.yield %a : f32
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A row minimum (torch.amin): the negated maximum of the negated elements,
// combined with the output by a minimum.
// CHECK-LABEL: tessel.device @row_minimum
// CHECK:     tessel.vector_unary neg %[[X:[^,]+]], %[[N:[^ ]+]] :
// CHECK:     tessel.vector_reduce max %[[N]], %[[R:[^ ]+]] dim 1
// CHECK:     tessel.vector_unary neg %[[R]], %[[M:[^ ]+]] :
// CHECK:     tessel.vector_binary min %[[OUT:[^,]+]], %[[M]], %[[OUT]]
tessel.device @row_minimum arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<4x8xf32, #sram>
    %m = memref.alloc() : memref<4xf32, #sram>
    linalg.reduce ins(%x : memref<4x8xf32, #sram>) outs(%m : memref<4xf32, #sram>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.minimumf %in, %acc : f32
        linalg.yield %r : f32
      }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// An embedding lookup fused with a scaling, as partitioning leaves it on a
// tile holding columns 4..7 of the rows: the table view walks the columns
// from 4 (the loop index plus the part's offset), the ids repeat along them
// (stride 0), and each id picks a row of 16 elements. The gathered rows land
// in a temporary that the vector unit scales into the output.
// CHECK-LABEL: tessel.device @embedding
// CHECK:     %[[IDS:.+]] = tessel.strided_view %[[IDBUF:.+]] : {{.+}} to memref<2x8x4x{{[a-z0-9]+}}, strided<[8, 1, 0]>
// CHECK:     %[[ROWS:.+]] = tessel.strided_view %table : {{.+}} to memref<2x8x4x{{[a-z0-9]+}}, strided<[0, 0, 1], offset: 4>
// CHECK:     %[[G:.+]] = tessel.dma_gather %[[ROWS]][%[[IDS]]] rows 100 index_stride 16 to %[[TMP:[^ ]+]] :
// CHECK:     tessel.wait %[[G]]
// CHECK:     tessel.vector_binary_imm mul %[[TMP]], 4.000000e+00, %{{.+}} :
tessel.device @embedding arch #tiny {
  %table = tessel.dram_buffer @table weight : memref<100x16xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<2x8xi64, #sram>
    %y = memref.alloc() : memref<2x8x4xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : memref<2x8xi64, #sram>) outs(%y : memref<2x8x4xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      %j = linalg.index 2 : index
      %col = affine.apply affine_map<()[s0] -> (s0 + 4)>()[%j]
      %e = memref.load %table[%row, %col] : memref<100x16xf32, #dram>
      %four = arith.constant 4.0 : f32
      %s = arith.mulf %e, %four : f32
      linalg.yield %s : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// PyTorch's x[ids] wraps a negative id (select(id < 0, id + 8, id)): the
// gather wraps, and the index arithmetic emits nothing.
// CHECK-LABEL: tessel.device @index_tensor
// CHECK:     tessel.dma_gather %{{.+}}[%{{.+}}] rows 8 wrap index_stride 16 to
// CHECK-NOT: tessel.vector_
tessel.device @index_tensor arch #tiny {
  %x = tessel.dram_buffer @x input : memref<8x16xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<5xi64, #sram>
    %y = memref.alloc() : memref<5x16xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : memref<5xi64, #sram>) outs(%y : memref<5x16xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %c0 = arith.constant 0 : i64
      %c8 = arith.constant 8 : i64
      %negative = arith.cmpi slt, %in, %c0 : i64
      %shifted = arith.addi %in, %c8 : i64
      %id = arith.select %negative, %shifted, %in : i64
      %row = arith.index_cast %id : i64 to index
      %j = linalg.index 1 : index
      %e = memref.load %x[%row, %j] : memref<8x16xf32, #dram>
      linalg.yield %e : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// take_along_dim's Python modulo of the indices ((x rem 8) + 8 where the
// remainder is negative): the wrap of every valid index, so a wrapping
// gather.
// CHECK-LABEL: tessel.device @modulo_indices
// CHECK:     tessel.dma_gather %{{.+}}[%{{.+}}] rows 8 wrap index_stride 16 to
// CHECK-NOT: tessel.vector_
tessel.device @modulo_indices arch #tiny {
  %x = tessel.dram_buffer @x input : memref<8x16xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<3x16xi64, #sram>
    %y = memref.alloc() : memref<3x16xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : memref<3x16xi64, #sram>) outs(%y : memref<3x16xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %c0 = arith.constant 0 : i64
      %c8 = arith.constant 8 : i64
      %rem = arith.remsi %in, %c8 : i64
      %nonzero = arith.cmpi ne, %rem, %c0 : i64
      %negative = arith.cmpi slt, %rem, %c0 : i64
      %both = arith.andi %nonzero, %negative : i1
      %shifted = arith.addi %rem, %c8 : i64
      %id = arith.select %both, %shifted, %rem : i64
      %row = arith.index_cast %id : i64 to index
      %j = linalg.index 1 : index
      %e = memref.load %x[%row, %j] : memref<8x16xf32, #dram>
      linalg.yield %e : f32
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A table read at two computed indices is not a gather.
tessel.device @two_computed_indices arch #tiny {
  %table = tessel.dram_buffer @table weight : memref<100x16xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      // expected-error @+1 {{'memref.load' op reads the table at indices computed from the data in a way a gather does not}}
      %e = memref.load %table[%row, %row] : memref<100x16xf32, #dram>
      linalg.yield %e : f32
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// argmax's last step: a position found in f32, rounded and converted to
// i64, is one cast (which rounds to nearest even itself).
// CHECK-LABEL: tessel.device @position_as_index
// CHECK:     tessel.vector_unary cast %{{.+}}, %{{.+}} : memref<4xf32, #sram>, memref<4xi64, #sram>
// CHECK-NOT: tessel.vector_
tessel.device @position_as_index arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %p = memref.alloc() : memref<4xf32, #sram>
    %i = memref.alloc() : memref<4xi64, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : memref<4xf32, #sram>) outs(%i : memref<4xi64, #sram>) {
    ^bb0(%in: f32, %out: i64):
      %r = math.roundeven %in : f32
      %c = arith.fptosi %r : f32 to i64
      linalg.yield %c : i64
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A conversion truncates toward zero (`x.long()`): |x| floored, its sign
// restored, then the cast, exact on an integral value.
// CHECK-LABEL: tessel.device @truncation
// CHECK:     tessel.vector_unary abs %[[X:[^,]+]], %[[M:[^ ]+]] :
// CHECK:     tessel.vector_unary floor %[[M]], %[[M]] :
// CHECK:     tessel.vector_unary neg %[[M]], %[[N:[^ ]+]] :
// CHECK:     tessel.vector_fill 0.000000e+00, %[[Z:[^ ]+]] :
// CHECK:     tessel.vector_compare lt %[[X]], %[[Z]], %[[LT:[^ ]+]] :
// CHECK:     tessel.vector_select %[[LT]], %[[N]], %[[M]], %[[M]] :
// CHECK:     tessel.vector_unary cast %[[M]], %{{.+}} : memref<4xf32, #sram>, memref<4xi64, #sram>
tessel.device @truncation arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %p = memref.alloc() : memref<4xf32, #sram>
    %i = memref.alloc() : memref<4xi64, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : memref<4xf32, #sram>) outs(%i : memref<4xi64, #sram>) {
    ^bb0(%in: f32, %out: i64):
      %c = arith.fptosi %in : f32 to i64
      linalg.yield %c : i64
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
// The tiny arch whose vector unit also computes on i32 and i64.
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// embedding(ids + 1): the vector unit computes the shifted ids (an i64
// addition of the immediate 1), which the gather reads as its indices.
// CHECK-LABEL: tessel.device @shifted_ids
// CHECK-NOT: tessel.vector_fill
// CHECK:     %[[SHIFTED:.+]] = memref.alloc() : memref<8x16xi64, #sram>
// CHECK:     tessel.vector_binary_imm add %{{.+}}, 1.000000e+00, %[[SHIFTED]] : memref<8x16xi64, strided<[1, 0]>, #sram>, memref<8x16xi64, #sram>
// CHECK:     tessel.dma_gather %{{.+}}[%[[SHIFTED]]] rows 100 index_stride 16 to
tessel.device @shifted_ids arch #ints {
  %table = tessel.dram_buffer @table weight : memref<100x16xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8x16xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8x16xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %c1 = arith.constant 1 : i64
      %shifted = arith.addi %in, %c1 : i64
      %row = arith.index_cast %shifted : i64 to index
      %j = linalg.index 1 : index
      %e = memref.load %table[%row, %j] : memref<100x16xf32, #dram>
      linalg.yield %e : f32
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// A padding mask (ids != 0) selecting between floats: the comparison is
// kept as 1 / 0 in i64, and the select reads it cast to f32; truncation to
// i32 and a conversion to f32 are casts.
// CHECK-LABEL: tessel.device @padding_mask
// CHECK:     tessel.vector_compare ne %{{.+}}, %{{.+}}, %[[NE:[^ ]+]] : memref<8xi64, #sram>, memref<8xi64, strided<[0]>, #sram>, memref<8xi64, #sram>
// CHECK:     tessel.vector_unary cast %[[NE]], %[[COND:[^ ]+]] : memref<8xi64, #sram>, memref<8xf32, #sram>
// CHECK:     tessel.vector_select %[[COND]], %{{.+}}, %{{.+}}, %[[SEL:[^ ]+]] :
// CHECK:     tessel.vector_unary cast %{{.+}}, %[[NARROW:[^ ]+]] : memref<8xi64, #sram>, memref<8xi32, #sram>
// CHECK:     tessel.vector_unary cast %[[NARROW]], %{{.+}} : memref<8xi32, #sram>, memref<8xf32, #sram>
tessel.device @padding_mask arch #ints {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8xf32, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8xf32, #sram>) {
    ^bb0(%in: i64, %out: f32):
      %zero = arith.constant 0 : i64
      %one = arith.constant 1.0 : f32
      %none = arith.constant 0.0 : f32
      %ne = arith.cmpi ne, %in, %zero : i64
      %m = arith.select %ne, %one, %none : f32
      %narrow = arith.trunci %in : i64 to i32
      %f = arith.sitofp %narrow : i32 to f32
      %r = arith.mulf %m, %f : f32
      linalg.yield %r : f32
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The row minimum of integers: the maximum of the complements -1 - x
// (which, unlike -x, never overflows), complemented back.
// CHECK-LABEL: tessel.device @integer_row_minimum
// CHECK:     tessel.vector_binary_imm sub %[[X:[^,]+]], -1.000000e+00, %[[C:[^ ]+]] {imm_lhs} : memref<4x8xi64, #sram>
// CHECK:     tessel.vector_reduce max %[[C]], %[[R:[^ ]+]] dim 1
// CHECK:     tessel.vector_binary_imm sub %[[R]], -1.000000e+00, %[[M:[^ ]+]] {imm_lhs}
// CHECK:     tessel.vector_binary min %[[OUT:[^,]+]], %[[M]], %[[OUT]]
tessel.device @integer_row_minimum arch #ints {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %x = memref.alloc() : memref<4x8xi64, #sram>
    %m = memref.alloc() : memref<4xi64, #sram>
    linalg.reduce ins(%x : memref<4x8xi64, #sram>) outs(%m : memref<4xi64, #sram>) dimensions = [1]
      (%in: i64, %acc: i64) {
        %r = arith.minsi %in, %acc : i64
        linalg.yield %r : i64
      }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// An integer constant that no f32 converts to is no immediate.
tessel.device @wide_constant arch #ints {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8xi64, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8xi64, #sram>) {
    ^bb0(%in: i64, %out: i64):
      %big = arith.constant 16777217 : i64
      // expected-error @+1 {{'arith.addi' op uses a value the vector unit cannot read (only the op's operands, values computed before it and constants): the integer constant 16777217 is not the conversion of an f32}}
      %r = arith.addi %in, %big : i64
      linalg.yield %r : i64
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Unsigned comparisons have no instruction.
tessel.device @unsigned_compare arch #ints {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8xi64, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8xi64, #sram>) {
    ^bb0(%in: i64, %out: i64):
      %c = arith.constant 5 : i64
      // expected-error @+1 {{'arith.cmpi' op compares as unsigned integers; the vector unit compares signed ones}}
      %lt = arith.cmpi ult, %in, %c : i64
      %r = arith.select %lt, %in, %c : i64
      linalg.yield %r : i64
    }
  }
}

// -----

#sram = #tessel.memory_space<sram>
#ints = #tessel.arch<{name = "ints", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32", "i32", "i64"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Python's modulo as torch-mlir writes it: the remainder is x - (x / 7) * 7
// (truncating division), and the and of two comparisons their minimum.
// CHECK-LABEL: tessel.device @python_modulo
// CHECK:     tessel.vector_binary div %[[X:[^,]+]], %[[SEVEN:[^,]+]], %[[Q:[^ ]+]] : memref<8xi64, #sram>
// CHECK:     tessel.vector_binary mul %[[Q]], %[[SEVEN]], %[[Q]] :
// CHECK:     tessel.vector_binary sub %[[X]], %[[Q]], %[[R:[^ ]+]] :
// CHECK:     tessel.vector_compare lt %[[R]], %{{.+}}, %[[LT:[^ ]+]] :
// CHECK:     tessel.vector_compare ne %[[R]], %{{.+}}, %[[NE:[^ ]+]] :
// CHECK:     tessel.vector_binary min %[[LT]], %[[NE]], %[[BOTH:[^ ]+]] :
// CHECK:     tessel.vector_binary_imm add %[[R]], 7.000000e+00, %[[UP:[^ ]+]] :
// CHECK:     tessel.vector_select %[[BOTH]], %[[UP]], %[[R]], %{{.+}} :
tessel.device @python_modulo arch #ints {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %ids = memref.alloc() : memref<8xi64, #sram>
    %y = memref.alloc() : memref<8xi64, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : memref<8xi64, #sram>) outs(%y : memref<8xi64, #sram>) {
    ^bb0(%in: i64, %out: i64):
      %c7 = arith.constant 7 : i64
      %c0 = arith.constant 0 : i64
      %r = arith.remsi %in, %c7 : i64
      %lt = arith.cmpi slt, %r, %c0 : i64
      %ne = arith.cmpi ne, %r, %c0 : i64
      %both = arith.andi %lt, %ne : i1
      %up = arith.addi %r, %c7 : i64
      %m = arith.select %both, %up, %r : i64
      linalg.yield %m : i64
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Loads of windows of a padded view read the window's part inside the
// unpadded buffer; where the window reaches into the border, the border's
// slabs of the buffer are filled with the padding value first, each
// element once.
// CHECK-LABEL: tessel.device @padded_windows
tessel.device @padded_windows arch #tiny {
  %x = tessel.dram_buffer @x input : memref<1x2x6x6xf32, #dram>
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %p = tessel.pad_view %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : memref<1x2x6x6xf32, #dram> to memref<1x2x8x8xf32, #dram>
    // The top-left window: its first row and column are border.
    // CHECK:     %[[A:.+]] = memref.alloc() : memref<1x2x4x4xf32, #sram>
    // CHECK:     %[[TOP:.+]] = memref.subview %[[A]][0, 0, 0, 0] [1, 2, 1, 4] [1, 1, 1, 1]
    // CHECK:     tessel.vector_fill 0.000000e+00, %[[TOP]]
    // CHECK:     %[[LEFT:.+]] = memref.subview %[[A]][0, 0, 1, 0] [1, 2, 3, 1] [1, 1, 1, 1]
    // CHECK:     tessel.vector_fill 0.000000e+00, %[[LEFT]]
    // CHECK:     %[[AX:.+]] = memref.subview %x[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 1, 1]
    // CHECK:     %[[AS:.+]] = memref.subview %[[A]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1]
    // CHECK:     %[[D:.+]] = tessel.dma %[[AX]] to %[[AS]]
    // CHECK:     tessel.wait %[[D]]
    %a = memref.alloc() : memref<1x2x4x4xf32, #sram>
    %wa = memref.subview %p[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x8x8xf32, #dram> to memref<1x2x4x4xf32, strided<[128, 64, 8, 1]>, #dram>
    memref.copy %wa, %a : memref<1x2x4x4xf32, strided<[128, 64, 8, 1]>, #dram> to memref<1x2x4x4xf32, #sram>
    // An inner window: a plain load.
    // CHECK:     %[[B:.+]] = memref.alloc() : memref<1x2x4x4xf32, #sram>
    // CHECK-NOT: tessel.vector_fill
    // CHECK:     %[[BX:.+]] = memref.subview %x[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
    // CHECK:     tessel.dma %[[BX]] to %[[B]] :
    %b = memref.alloc() : memref<1x2x4x4xf32, #sram>
    %wb = memref.subview %p[0, 0, 2, 2] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x8x8xf32, #dram> to memref<1x2x4x4xf32, strided<[128, 64, 8, 1], offset: 18>, #dram>
    memref.copy %wb, %b : memref<1x2x4x4xf32, strided<[128, 64, 8, 1], offset: 18>, #dram> to memref<1x2x4x4xf32, #sram>
    // A strided window (a stride-2 convolution's): every other element,
    // the last column in the border.
    // CHECK:     %[[C:.+]] = memref.alloc() : memref<1x2x3x3xf32, #sram>
    // CHECK:     %[[RIGHT:.+]] = memref.subview %[[C]][0, 0, 0, 2] [1, 2, 3, 1] [1, 1, 1, 1]
    // CHECK:     tessel.vector_fill 0.000000e+00, %[[RIGHT]]
    // CHECK-NOT: tessel.vector_fill
    // CHECK:     %[[CX:.+]] = memref.subview %x[0, 0, 0, 2] [1, 2, 3, 2] [1, 1, 2, 2]
    // CHECK:     %[[CS:.+]] = memref.subview %[[C]][0, 0, 0, 0] [1, 2, 3, 2] [1, 1, 1, 1]
    // CHECK:     tessel.dma %[[CX]] to %[[CS]]
    %c = memref.alloc() : memref<1x2x3x3xf32, #sram>
    %wc = memref.subview %p[0, 0, 1, 3] [1, 2, 3, 3] [1, 1, 2, 2] : memref<1x2x8x8xf32, #dram> to memref<1x2x3x3xf32, strided<[128, 64, 16, 2], offset: 11>, #dram>
    memref.copy %wc, %c : memref<1x2x3x3xf32, strided<[128, 64, 16, 2], offset: 11>, #dram> to memref<1x2x3x3xf32, #sram>
    // A window of border alone: the fill is the whole load.
    // CHECK:     %[[E:.+]] = memref.alloc() : memref<1x2x1x4xf32, #sram>
    // CHECK-NEXT: tessel.vector_fill 0.000000e+00, %[[E]]
    // CHECK-NOT: tessel.dma
    // CHECK-NOT: tessel.pad_view
    %e = memref.alloc() : memref<1x2x1x4xf32, #sram>
    %we = memref.subview %p[0, 0, 7, 0] [1, 2, 1, 4] [1, 1, 1, 1] : memref<1x2x8x8xf32, #dram> to memref<1x2x1x4xf32, strided<[128, 64, 8, 1], offset: 56>, #dram>
    memref.copy %we, %e : memref<1x2x1x4xf32, strided<[128, 64, 8, 1], offset: 56>, #dram> to memref<1x2x1x4xf32, #sram>
    memref.dealloc %a : memref<1x2x4x4xf32, #sram>
    memref.dealloc %b : memref<1x2x4x4xf32, #sram>
    memref.dealloc %c : memref<1x2x3x3xf32, #sram>
    memref.dealloc %e : memref<1x2x1x4xf32, #sram>
    tessel.end
  }
}

// -----

#sram = #tessel.memory_space<sram>
#tinybf16 = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, bf16 = 16}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// bf16: a depthwise convolution of bf16 input and weights into an f32
// accumulator widens the weights once and each window before multiplying,
// the vector unit's operands being of one type; extf and truncf are casts.
// CHECK-LABEL: tessel.device @bf16
tessel.device @bf16 arch #tinybf16 {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    // CHECK:     %[[WIN:.+]] = memref.alloc() : memref<2x2x2xf32, #sram>
    // CHECK:     %[[WW:.+]] = memref.alloc() : memref<2x2x2xf32, #sram>
    // CHECK:     tessel.vector_unary cast %{{.+}}, %[[WW]] : memref<2x2x2xbf16, #sram>, memref<2x2x2xf32, #sram>
    // CHECK:     %[[P:.+]] = memref.alloc() : memref<2x2x2xf32, #sram>
    // CHECK:     tessel.vector_unary cast %{{.+}}, %[[WIN]] : memref<2x2x2xbf16, strided<[9, 3, 1]>, #sram>, memref<2x2x2xf32, #sram>
    // CHECK:     tessel.vector_binary mul %[[WIN]], %{{.+}}, %[[P]]
    // CHECK:     tessel.vector_binary add %{{.+}}, %[[P]], %{{.+}} : {{.*}}f32
    // CHECK-COUNT-3: tessel.vector_unary cast %{{.+}}, %[[WIN]]
    // CHECK:     memref.dealloc %[[WIN]]
    // CHECK:     memref.dealloc %[[WW]]
    // CHECK:     memref.dealloc %[[P]]
    %x = memref.alloc() : memref<1x2x3x3xbf16, #sram>
    %w = memref.alloc() : memref<2x2x2xbf16, #sram>
    %y = memref.alloc() : memref<1x2x2x2xf32, #sram>
    linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x2x3x3xbf16, #sram>, memref<2x2x2xbf16, #sram>) outs(%y : memref<1x2x2x2xf32, #sram>)
    // CHECK:     tessel.vector_unary cast %{{.+}}, %{{.+}} : memref<1x2x2x2xf32, #sram>, memref<1x2x2x2xbf16, #sram>
    %n = memref.alloc() : memref<1x2x2x2xbf16, #sram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x2x2xf32, #sram>) outs(%n : memref<1x2x2x2xbf16, #sram>) {
    ^bb0(%in: f32, %out: bf16):
      %r = arith.truncf %in : f32 to bf16
      linalg.yield %r : bf16
    }
  }
}

// -----

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// q @ k^T with the keys read as they lie (tessel-transposes-into-matmuls):
// the right-hand map is (b, n, k), so each batch's keys, 4 rows of 8, are
// read as the 8x4 (k x n) operand whose columns lie a row of 8 apart, in
// two blocks of 4 along k; the batches lie 32 elements apart.
// CHECK-LABEL: tessel.device @keys_in_place
tessel.device @keys_in_place arch #tiny {
  %t = tessel.tile(0, 0)
  tessel.core(%t) {
    %q = memref.alloc() : memref<2x4x8xf32, #sram>
    %k = memref.alloc() : memref<2x4x8xf32, #sram>
    %s = memref.alloc() : memref<2x4x4xf32, #sram>
    // CHECK:     tessel.strided_view %{{.+}} : memref<2x4x8xf32, #sram> to memref<4x4xf32, strided<[8, 1]>, #sram>
    // CHECK:     tessel.strided_view %{{.+}} : memref<2x4x8xf32, #sram> to memref<4x4xf32, strided<[1, 8]>, #sram>
    // CHECK:     tessel.matmul
    // CHECK:     tessel.strided_view %{{.+}} : memref<2x4x8xf32, #sram> to memref<4x4xf32, strided<[1, 8], offset: 4>, #sram>
    // CHECK:     tessel.matmul
    // The second batch.
    // CHECK:     tessel.strided_view %{{.+}} : memref<2x4x8xf32, #sram> to memref<4x4xf32, strided<[1, 8], offset: 32>, #sram>
    // CHECK:     tessel.matmul
    // CHECK:     tessel.matmul
    // CHECK-NOT: linalg.batch_matmul
    linalg.batch_matmul indexing_maps = [
        affine_map<(b, m, n, k) -> (b, m, k)>,
        affine_map<(b, m, n, k) -> (b, n, k)>,
        affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : memref<2x4x8xf32, #sram>, memref<2x4x8xf32, #sram>) outs(%s : memref<2x4x4xf32, #sram>)
    memref.dealloc %q : memref<2x4x8xf32, #sram>
    memref.dealloc %k : memref<2x4x8xf32, #sram>
    memref.dealloc %s : memref<2x4x4xf32, #sram>
  }
}
