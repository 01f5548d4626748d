// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// One case per rule of the #tessel.arch verifier, each a variation of the
// tessel-4x4 preset. tests/arch/cases.py holds the same cases and checks that
// the Python validation gives the same messages.
// missing-field
// expected-error @+1 {{arch field 'clock_mhz' is missing}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// missing-section
// expected-error @+1 {{arch field 'tile.dma' is missing}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// section-not-mapping
// expected-error @+1 {{arch field 'tile.sram' must be a mapping of fields}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = 5, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// int-type
// expected-error @+1 {{arch field 'clock_mhz' must be an integer, got}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = "fast", grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// int-below
// expected-error @+1 {{arch field 'grid.rows' = 0 is out of range: must be in [1, 1024]}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 0, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// int-above
// expected-error @+1 {{arch field 'grid.cols' = 1025 is out of range: must be in [1, 1024]}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 1025}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// sram-too-small
// expected-error @+1 {{arch field 'tile.sram.bytes' = 1000 is out of range: must be in [4096, 1073741824]}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 1000, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// power-of-two
// expected-error @+1 {{arch field 'tile.sram.alignment' = 48 is out of range: must be in [1, 4096] and a power of two}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 48}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// name
// expected-error @+1 {{arch field 'name' = 'my chip' is not allowed: must be non-empty and use only letters, digits, '.', '_' and '-'}}
module attributes {tessel.arch = #tessel.arch<{name = "my chip", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// string-type
// expected-error @+1 {{arch field 'noc.topology' must be a string, got}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = 3, routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// enum
// expected-error @+1 {{arch field 'tile.mac.dataflow' = 'row_stationary' is not allowed: must be one of weight_stationary, output_stationary}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "row_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// enum-routing
// expected-error @+1 {{arch field 'noc.routing' = 'yx' is not allowed: must be one of xy}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "yx", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// map-type
// expected-error @+1 {{arch field 'tile.mac.macs_per_cycle' must be a mapping, got}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = [1]}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// map-empty
// expected-error @+1 {{arch field 'tile.mac.macs_per_cycle' must not be empty}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// map-key
// expected-error @+1 {{arch field 'tile.mac.macs_per_cycle' has key 'f64', which is not allowed: keys must be among f32, f16, bf16, i8}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 4, f64 = 1}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// map-required-key
// expected-error @+1 {{arch field 'tile.vector.latency' lacks key 'erf': every one of add, sub, mul, div, max, min, cmp, select, neg, abs, exp, log, tanh, erf, sin, cos, sqrt, rsqrt, recip, cast, reduce_add, reduce_max is required}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// map-value
// expected-error @+1 {{arch field 'tile.mac.macs_per_cycle.f32' = 0 is out of range: must be in [1, 1048576]}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 0, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// list-type
// expected-error @+1 {{arch field 'tile.vector.dtypes' must be a list, got}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = "f32", latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// list-empty
// expected-error @+1 {{arch field 'tile.vector.dtypes' must not be empty}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = [], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// list-item
// expected-error @+1 {{arch field 'tile.vector.dtypes' has item 'f64', which is not allowed: items must be among f32, f16, bf16, i8}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f64"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// list-duplicate
// expected-error @+1 {{arch field 'tile.vector.dtypes' has item 'f32' twice}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "bf16", "f32"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// coords-entry
// expected-error @+1 {{arch field 'dram.attach' entry 3 must be [row, col]}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3]]}}>} {
}

// -----

// unknown-field
// expected-error @+1 {{arch field 'tile.sram.bytez' is not part of the schema: tile.sram has alignment, banks, bytes, bytes_per_cycle}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64, bytez = 4}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}}>} {
}

// -----

// unknown-top-level
// expected-error @+1 {{arch field 'frequency' is not part of the schema: the description has clock_mhz, dram, energy, grid, name, noc, tile}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [3, 3]]}, frequency = 4}>} {
}

// -----

// attach-count
// expected-error @+1 {{arch field 'dram.attach' has 3 entries but dram.channels = 4: give one [row, col] per channel}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0]]}}>} {
}

// -----

// attach-outside
// expected-error @+1 {{arch field 'dram.attach' entry 3 = [5, 0] lies outside the 4x4 grid}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [3, 0], [5, 0]]}}>} {
}

// -----

// attach-edge
// expected-error @+1 {{arch field 'dram.attach' entry 2 = [1, 1] is not on the edge of the 4x4 grid: row must be 0 or 3, or col 0 or 3}}
module attributes {tessel.arch = #tessel.arch<{name = "tessel-4x4", clock_mhz = 1000, grid = {rows = 4, cols = 4}, tile = {mac = {rows = 16, cols = 16, dataflow = "weight_stationary", macs_per_cycle = {f32 = 256, f16 = 256, bf16 = 256, i8 = 256}}, vector = {lanes = 16, dtypes = ["f32", "f16", "bf16"], latency = {add = 2, sub = 2, mul = 3, div = 12, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 8, log = 8, tanh = 10, erf = 10, sin = 10, cos = 10, sqrt = 10, rsqrt = 10, recip = 8, cast = 2, reduce_add = 4, reduce_max = 2}}, sram = {bytes = 262144, banks = 8, bytes_per_cycle = 64, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 32, setup_cycles = 20}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 32, hop_cycles = 2}, dram = {channels = 4, bytes_per_cycle = 32, latency_cycles = 100, capacity_bytes = 8589934592, attach = [[0, 0], [0, 3], [1, 1], [3, 3]]}}>} {
}
