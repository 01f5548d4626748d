// RUN: tessel-opt %s -split-input-file -tessel-assign-semaphore-ids | FileCheck %s

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 3, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// Each tile numbers its own semaphores in declaration order; an id given
// is kept and skipped by the others.
// CHECK-LABEL: tessel.device @ids
// CHECK:         tessel.semaphore on %[[T0:.+]] init 3 id 0
// CHECK-NEXT:    tessel.semaphore on %[[T1:.+]] id 0
// CHECK-NEXT:    tessel.semaphore on %[[T0]] id 1
// CHECK-NEXT:    tessel.semaphore on %[[T0]] id 3
// CHECK-NEXT:    tessel.semaphore on %[[T0]] id 2
tessel.device @ids arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %a = tessel.semaphore on %t0 init 3
  %b = tessel.semaphore on %t1
  %c = tessel.semaphore on %t0
  %d = tessel.semaphore on %t0 id 3
  %e = tessel.semaphore on %t0
}
