// RUN: tessel-opt %s -split-input-file -tessel-default-mapping -tessel-partition -tessel-fuse-epilogues | FileCheck %s

#arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = [[0, 0], [0, 3], [3, 0], [3, 3]], bytes_per_cycle = 32, capacity_bytes = 8589934592, channels = 4, latency_cycles = 100}, grid = {cols = 4, rows = 4}, name = "tessel-4x4", noc = {hop_cycles = 2, link_bytes_per_cycle = 32, routing = "xy", topology = "mesh"}, tile = {dma = {bytes_per_cycle = 32, channels = 2, setup_cycles = 20}, mac = {cols = 16, dataflow = "weight_stationary", macs_per_cycle = {bf16 = 256, f16 = 256, f32 = 256, i8 = 256}, rows = 16}, sram = {alignment = 64, banks = 8, bytes = 262144, bytes_per_cycle = 64}, vector = {dtypes = ["f32", "f16", "bf16"], lanes = 16, latency = {abs = 1, add = 2, cast = 2, cmp = 1, div = 12, erf = 10, sin = 10, cos = 10, exp = 8, log = 8, max = 1, min = 1, mul = 3, neg = 1, recip = 8, reduce_add = 4, reduce_max = 2, rsqrt = 10, select = 1, sqrt = 10, sub = 2, tanh = 10}}}}>
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A bias and a ReLU after a matmul, marked to run as its epilogue: the
// elementwise op's partition, right after the matmul's and reading its
// result alone, keeps the mark; it reads the bias at its column indices.
// CHECK-LABEL: func.func @linear_relu
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK:         %[[M:.+]] = scf.forall
// CHECK:           linalg.matmul
// CHECK:         } {tessel.partition =
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %[[M]]
// CHECK:           linalg.generic
// CHECK:         } {tessel.epilogue, tessel.partition =
module attributes {tessel.arch = #arch} {
  func.func @linear_relu(%x: tensor<32x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
    %cst = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<32x128xf32>
    %z = linalg.fill ins(%cst : f32) outs(%o : tensor<32x128xf32>) -> tensor<32x128xf32>
    %m = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x128xf32>) outs(%z : tensor<32x128xf32>) -> tensor<32x128xf32>
    %y = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%m, %b : tensor<32x128xf32>, tensor<128xf32>) outs(%o : tensor<32x128xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %s = arith.addf %in, %in_1 : f32
      %r = arith.maximumf %s, %cst : f32
      linalg.yield %r : f32
    } -> tensor<32x128xf32>
    return %y : tensor<32x128xf32>
  }
}

// -----

#arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = [[0, 0], [0, 3], [3, 0], [3, 3]], bytes_per_cycle = 32, capacity_bytes = 8589934592, channels = 4, latency_cycles = 100}, grid = {cols = 4, rows = 4}, name = "tessel-4x4", noc = {hop_cycles = 2, link_bytes_per_cycle = 32, routing = "xy", topology = "mesh"}, tile = {dma = {bytes_per_cycle = 32, channels = 2, setup_cycles = 20}, mac = {cols = 16, dataflow = "weight_stationary", macs_per_cycle = {bf16 = 256, f16 = 256, f32 = 256, i8 = 256}, rows = 16}, sram = {alignment = 64, banks = 8, bytes = 262144, bytes_per_cycle = 64}, vector = {dtypes = ["f32", "f16", "bf16"], lanes = 16, latency = {abs = 1, add = 2, cast = 2, cmp = 1, div = 12, erf = 10, sin = 10, cos = 10, exp = 8, log = 8, max = 1, min = 1, mul = 3, neg = 1, recip = 8, reduce_add = 4, reduce_max = 2, rsqrt = 10, select = 1, sqrt = 10, sub = 2, tanh = 10}}}}>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Marked, but not epilogues (the mark is dropped): an elementwise op whose
// input, the matmul's result, is also returned (another reader), one
// reading it transposed, one that reads its own indices.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     tessel.epilogue
module attributes {tessel.arch = #arch} {
  func.func @kept(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xi64>) {
    %cst = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<32x32xf32>
    %z = linalg.fill ins(%cst : f32) outs(%o : tensor<32x32xf32>) -> tensor<32x32xf32>
    %m1 = linalg.matmul ins(%x, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
    %y1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%m1 : tensor<32x32xf32>) outs(%o : tensor<32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %cst : f32
      linalg.yield %r : f32
    } -> tensor<32x32xf32>
    %m2 = linalg.matmul ins(%x, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
    %y2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%m2 : tensor<32x32xf32>) outs(%o : tensor<32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %cst : f32
      linalg.yield %r : f32
    } -> tensor<32x32xf32>
    %m3 = linalg.matmul ins(%x, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
    %oi = tensor.empty() : tensor<32x32xi64>
    %y3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%m3 : tensor<32x32xf32>) outs(%oi : tensor<32x32xi64>) {
    ^bb0(%in: f32, %out: i64):
      %i = linalg.index 0 : index
      %c = arith.index_cast %i : index to i64
      linalg.yield %c : i64
    } -> tensor<32x32xi64>
    return %m1, %y1, %y2, %y3 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xi64>
  }
}

// -----

#arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = [[0, 0], [0, 3], [3, 0], [3, 3]], bytes_per_cycle = 32, capacity_bytes = 8589934592, channels = 4, latency_cycles = 100}, grid = {cols = 4, rows = 4}, name = "tessel-4x4", noc = {hop_cycles = 2, link_bytes_per_cycle = 32, routing = "xy", topology = "mesh"}, tile = {dma = {bytes_per_cycle = 32, channels = 2, setup_cycles = 20}, mac = {cols = 16, dataflow = "weight_stationary", macs_per_cycle = {bf16 = 256, f16 = 256, f32 = 256, i8 = 256}, rows = 16}, sram = {alignment = 64, banks = 8, bytes = 262144, bytes_per_cycle = 64}, vector = {dtypes = ["f32", "f16", "bf16"], lanes = 16, latency = {abs = 1, add = 2, cast = 2, cmp = 1, div = 12, erf = 10, sin = 10, cos = 10, exp = 8, log = 8, max = 1, min = 1, mul = 3, neg = 1, recip = 8, reduce_add = 4, reduce_max = 2, rsqrt = 10, select = 1, sqrt = 10, sub = 2, tanh = 10}}}}>
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>

// A scale computed between the matmul and its consumer (as a batch norm's
// is): nothing moves, so the consumer is not right after the matmul, and
// runs on its own.
// CHECK-LABEL: func.func @scale_between
// CHECK:         linalg.matmul
// CHECK:         math.rsqrt
// CHECK-NOT:     tessel.epilogue
module attributes {tessel.arch = #arch} {
  func.func @scale_between(%x: tensor<32x64xf32>, %w: tensor<64x128xf32>, %v: tensor<128xf32>) -> tensor<32x128xf32> {
    %cst = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<32x128xf32>
    %z = linalg.fill ins(%cst : f32) outs(%o : tensor<32x128xf32>) -> tensor<32x128xf32>
    %m = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x128xf32>) outs(%z : tensor<32x128xf32>) -> tensor<32x128xf32>
    %e = tensor.empty() : tensor<128xf32>
    %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%v : tensor<128xf32>) outs(%e : tensor<128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.rsqrt %in : f32
      linalg.yield %r : f32
    } -> tensor<128xf32>
    %y = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%m, %s : tensor<32x128xf32>, tensor<128xf32>) outs(%o : tensor<32x128xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %p = arith.mulf %in, %in_1 : f32
      linalg.yield %p : f32
    } -> tensor<32x128xf32>
    return %y : tensor<32x128xf32>
  }
}

// -----

#arch = #tessel.arch<{clock_mhz = 1000, dram = {attach = [[0, 0], [0, 3], [3, 0], [3, 3]], bytes_per_cycle = 32, capacity_bytes = 8589934592, channels = 4, latency_cycles = 100}, grid = {cols = 4, rows = 4}, name = "tessel-4x4", noc = {hop_cycles = 2, link_bytes_per_cycle = 32, routing = "xy", topology = "mesh"}, tile = {dma = {bytes_per_cycle = 32, channels = 2, setup_cycles = 20}, mac = {cols = 16, dataflow = "weight_stationary", macs_per_cycle = {bf16 = 256, f16 = 256, f32 = 256, i8 = 256}, rows = 16}, sram = {alignment = 64, banks = 8, bytes = 262144, bytes_per_cycle = 64}, vector = {dtypes = ["f32", "f16", "bf16"], lanes = 16, latency = {abs = 1, add = 2, cast = 2, cmp = 1, div = 12, erf = 10, sin = 10, cos = 10, exp = 8, log = 8, max = 1, min = 1, mul = 3, neg = 1, recip = 8, reduce_add = 4, reduce_max = 2, rsqrt = 10, select = 1, sqrt = 10, sub = 2, tanh = 10}}}}>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A residual add whose first input is an earlier partition's result (the
// block's input) and whose second is the matmul right before it: the
// matmul is its producer, and the mark stays.
// CHECK-LABEL: func.func @residual_after_matmul
// CHECK:         %[[R:.+]] = scf.forall
// CHECK:           arith.maximumf
// CHECK:           linalg.fill
// CHECK:         %[[M:.+]] = scf.forall
// CHECK:           linalg.matmul
// CHECK:         scf.forall
// CHECK-DAG:       tensor.extract_slice %[[R]]
// CHECK-DAG:       tensor.extract_slice %[[M]]
// CHECK:           linalg.generic
// CHECK:         } {tessel.epilogue, tessel.partition =
module attributes {tessel.arch = #arch} {
  func.func @residual_after_matmul(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %cst = arith.constant 0.0 : f32
    %o = tensor.empty() : tensor<32x32xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<32x32xf32>) outs(%o : tensor<32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.maximumf %in, %cst : f32
      linalg.yield %v : f32
    } -> tensor<32x32xf32>
    %z = linalg.fill ins(%cst : f32) outs(%o : tensor<32x32xf32>) -> tensor<32x32xf32>
    %m = linalg.matmul ins(%r, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
    %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"], tessel.epilogue} ins(%r, %m : tensor<32x32xf32>, tensor<32x32xf32>) outs(%o : tensor<32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %s = arith.addf %in, %in_1 : f32
      linalg.yield %s : f32
    } -> tensor<32x32xf32>
    return %y : tensor<32x32xf32>
  }
}
