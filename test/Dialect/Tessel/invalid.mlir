// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// Every case runs on a 2x2 chip with 16 KiB of SRAM per tile (64-byte
// alignment), a 4x4 MAC array for f32 and i8, a vector unit for f32 and
// bf16, two DMA channels and 1 MiB of DRAM.

// The grid attribute on its own.
// expected-error @+1 {{grid rows must be in [1, 1024], got 0}}
func.func @g() attributes {g = #tessel.grid<0, 4>} {
  return
}

// -----

// 
// expected-error @+1 {{grid cols must be in [1, 1024], got 2000}}
func.func @g() attributes {g = #tessel.grid<4, 2000>} {
  return
}

// -----

// tessel.arch belongs on a module.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
// expected-error @+1 {{'tessel.arch' belongs on a builtin.module, not on 'func.func'}}
func.func @f() attributes {tessel.arch = #tiny} {
  return
}

// -----

// 
// expected-error @+1 {{'tessel.arch' must be a #tessel.arch attribute}}
module attributes {tessel.arch = 4} {
}

// -----

// Tiles: inside the grid, once each, only in a device.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.tile' op coordinate (2, 0) lies outside the 2x2 grid of device @main: row must be in [0, 1] and col in [0, 1]}}
  %t = tessel.tile(2, 0)
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.tile' op attribute 'row' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %t = tessel.tile(-1, 0)
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-note @+1 {{first declared here}}
  %a = tessel.tile(1, 1)
  // expected-error @+1 {{'tessel.tile' op declares tile (1, 1) of device @main a second time}}
  %b = tessel.tile(1, 1)
}

// -----

// 
func.func @outside_device() {
  // expected-error @+1 {{'tessel.tile' op expects parent op 'tessel.device'}}
  %t = tessel.tile(0, 0)
  return
}

// -----

// One core per tile.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-note @+1 {{first core here}}
  tessel.core(%t) {
  }
  // expected-error @+1 {{'tessel.core' op is a second core for tile (0, 0); a tile runs one program}}
  tessel.core(%t) {
  }
}

// -----

// SRAM buffers: in SRAM, fitting, aligned, not overlapping, uniquely named.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op must be in #tessel.memory_space<sram>; arrays in DRAM are tessel.dram_buffer}}
  %a = tessel.buffer @a on %t : memref<4x4xf32, #dram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op needs 32768 bytes, but the SRAM of tile (0, 0) holds 16384 bytes}}
  %a = tessel.buffer @a on %t : memref<64x128xf32, #sram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op address 100 is not a multiple of the SRAM alignment 64}}
  %a = tessel.buffer @a on %t at 100 : memref<4x4xf32, #sram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op at 16320 with 256 bytes ends past the 16384-byte SRAM of tile (0, 0)}}
  %a = tessel.buffer @a on %t at 16320 : memref<8x8xf32, #sram>
}

// -----

// The sum over a tile's buffers, each padded to the alignment (260 bytes -> 320).
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 1)
  %a = tessel.buffer @a on %t : memref<64x32xf32, #sram>
  %b = tessel.buffer @b on %t : memref<64x31xf32, #sram>
  // expected-error @+1 {{'tessel.buffer' op does not fit in the SRAM of tile (0, 1): the tile's buffers need 16448 bytes (each aligned to 64) and its SRAM holds 16384 bytes}}
  %c = tessel.buffer @c on %t : memref<65xf32, #sram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-note @+1 {{@a is here}}
  %a = tessel.buffer @a on %t at 0 : memref<16x16xf32, #sram>
  // expected-error @+1 {{'tessel.buffer' op [512, 1536) overlaps @a [0, 1024) in the SRAM of tile (0, 0)}}
  %b = tessel.buffer @b on %t at 512 : memref<16x16xf32, #sram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-note @+1 {{see existing symbol definition here}}
  %a = tessel.buffer @a on %t : memref<4xf32, #sram>
  // expected-error @+1 {{redefinition of symbol named 'a'}}
  %b = tessel.dram_buffer @a input : memref<4xf32, #dram>
}

// -----

// DRAM buffers: in DRAM, within capacity, not overlapping.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op must be in #tessel.memory_space<dram>; buffers in a tile's SRAM are tessel.buffer}}
  %x = tessel.dram_buffer @x input : memref<4xf32, #sram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op at 1048560 with 64 bytes ends past the 1048576-byte DRAM}}
  %x = tessel.dram_buffer @x input at 1048560 : memref<16xf32, #dram>
}

// -----

// A constant DRAM buffer carries its value, of the buffer's shape and type;
// no other kind has one.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op of kind constant needs a value}}
  %m = tessel.dram_buffer @m constant : memref<2xf32, #dram>
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op has a value but is not of kind constant}}
  %w = tessel.dram_buffer @w weight value(dense<1.0> : tensor<2xf32>) : memref<2xf32, #dram>
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op value of type 'tensor<3xf32>' does not match the buffer 'memref<2xf32, #tessel.memory_space<dram>>'}}
  %m = tessel.dram_buffer @m constant value(dense<1.0> : tensor<3xf32>) : memref<2xf32, #dram>
}

// -----

// Only a weight is stored permuted, by a permutation of its dimensions.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op is permuted but is not of kind weight; only weights are written into DRAM by the runtime}}
  %x = tessel.dram_buffer @x input permuted [1, 0] : memref<2x4xf32, #dram>
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op permutation [1, 1] is not a permutation of the buffer's 2 dimensions}}
  %w = tessel.dram_buffer @w weight permuted [1, 1] : memref<2x4xf32, #dram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %x = tessel.dram_buffer @x input : memref<512x512xf32, #dram>
  // expected-error @+1 {{'tessel.dram_buffer' op does not fit in DRAM: the device's DRAM buffers need 1048580 bytes and the DRAM holds 1048576 bytes}}
  %y = tessel.dram_buffer @y output : memref<1xf32, #dram>
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-note @+1 {{@x is here}}
  %x = tessel.dram_buffer @x input at 0 : memref<16xf32, #dram>
  // expected-error @+1 {{'tessel.dram_buffer' op [32, 96) overlaps @x [0, 64) in DRAM}}
  %y = tessel.dram_buffer @y output at 32 : memref<16xf32, #dram>
}

// -----

// Memrefs are static and in a tessel memory space.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  // expected-error @+1 {{'tessel.buffer' op result #0 must be statically shaped memref in #tessel.memory_space<dram> or <sram>}}
  %a = tessel.buffer @a on %t : memref<4x4xf32>
}

// -----

// DMA: same shapes, a path, the issuing tile's own SRAM at one end.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma' op source and target must have the same shape and element type, got 'memref<4x4xf32, #tessel.memory_space<dram>>' and 'memref<4x8xf32, #tessel.memory_space<sram>>'}}
    %d = tessel.dma %x to %v : memref<4x4xf32, #dram> to memref<4x8xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma' op DRAM-to-DRAM transfers have no path: stage the data through a tile's SRAM}}
    %d = tessel.dma %x to %y : memref<4x4xf32, #dram> to memref<4x4xf32, #dram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma' op the DMA engine of tile (0, 0) moves data to or from its own SRAM only, but this transfer is from DRAM to the SRAM of tile (1, 1)}}
    %d = tessel.dma %x to %b : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma' op channel 2 does not exist: the DMA engine has 2 channels}}
    %d = tessel.dma %x to %a channel 2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    %m = memref.alloc() : memref<4x4xf32, #dram>
    // expected-error @+1 {{'tessel.dma' op target must be a tessel.buffer or tessel.dram_buffer, a view of one, or an SRAM allocation in the core}}
    %d = tessel.dma %a to %m : memref<4x4xf32, #sram> to memref<4x4xf32, #dram>
  }
}

// -----

// Waits: on tokens of the tile's own DMA engine, on semaphores it owns.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.wait' op needs at least one token to wait for}}
    tessel.wait
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %s = tessel.semaphore on %u
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.wait_semaphore' op waits on a semaphore of tile (1, 1) from the core of tile (0, 0): only the owning tile can wait on a semaphore}}
    tessel.wait_semaphore %s
  }
}

// -----

// Matmul: local SRAM, composing shapes, a supported dtype, the right accumulator, a block the array holds.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op operand #0 is in DRAM, but compute units read only their own tile's SRAM; move it there with tessel.dma}}
    tessel.matmul %x, %a, %c : memref<4x4xf32, #dram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op operand #1 lives in the SRAM of tile (1, 1), but the core runs on tile (0, 0): compute units read only their own tile's SRAM}}
    tessel.matmul %a, %b, %c : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op shapes do not compose: lhs 4x8, rhs 4x4, acc 4x4 (expected lhs [G x] M x K, rhs K x N, acc [G x] M x N)}}
    tessel.matmul %v, %a, %c : memref<4x8xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    %rows = memref.reinterpret_cast %big to offset: [0], sizes: [2, 2, 4], strides: [16, 8, 1] : memref<8x8xf32, #sram> to memref<2x2x4xf32, strided<[16, 8, 1]>, #sram>
    %out = memref.reinterpret_cast %k to offset: [0], sizes: [4, 1, 4], strides: [4, 4, 1] : memref<8x4xf32, #sram> to memref<4x1x4xf32, strided<[4, 4, 1]>, #sram>
    // expected-error @+1 {{'tessel.matmul' op shapes do not compose: lhs 2x2x4, rhs 4x4, acc 4x1x4 (expected lhs [G x] M x K, rhs K x N, acc [G x] M x N)}}
    tessel.matmul %rows, %a, %out : memref<2x2x4xf32, strided<[16, 8, 1]>, #sram>, memref<4x4xf32, #sram>, memref<4x1x4xf32, strided<[4, 4, 1]>, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    %rows = memref.reinterpret_cast %big to offset: [0], sizes: [2, 2, 4], strides: [16, 8, 1] : memref<8x8xf32, #sram> to memref<2x2x4xf32, strided<[16, 8, 1]>, #sram>
    // expected-error @+1 {{'tessel.matmul' op needs a 2-D rhs and a 2-D lhs and acc (rows) or a 3-D lhs and acc (groups of rows)}}
    tessel.matmul %rows, %a, %c : memref<2x2x4xf32, strided<[16, 8, 1]>, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op needs a 2-D rhs and a 2-D lhs and acc (rows) or a 3-D lhs and acc (groups of rows)}}
    tessel.matmul %vec, %a, %c : memref<4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op the MAC array does not support 'bf16': it supports f32, i8}}
    tessel.matmul %h, %h, %c : memref<4x4xbf16, #sram>, memref<4x4xbf16, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op lhs and rhs must have one element type, got 'f32' and 'i8'}}
    tessel.matmul %a, %q, %c : memref<4x4xf32, #sram>, memref<4x4xi8, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op accumulator must be 'i32' for 'i8' inputs, got 'f32'}}
    tessel.matmul %q, %q, %c : memref<4x4xi8, #sram>, memref<4x4xi8, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// Weight-stationary: the K x N block of rhs stays in the 4x4 array.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op block 4x8x8 (M x K x N) exceeds the 4x4 weight-stationary MAC array: K must be <= 4 and N <= 4}}
    tessel.matmul %v, %big, %v : memref<4x8xf32, #sram>, memref<8x8xf32, #sram>, memref<4x8xf32, #sram>
  }
}

// -----

// Output-stationary: the M x N block of acc stays; K streams.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "output_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.matmul' op block 8x4x4 (M x K x N) exceeds the 4x4 output-stationary MAC array: M must be <= 4 and N <= 4}}
    tessel.matmul %k, %a, %k : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram>
  }
}

// -----

// Vector unit: local SRAM, equal shapes, one supported element type.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_unary' op operands must have the same shape, got 4x4 and 4x8}}
    tessel.vector_unary exp %a, %v : memref<4x4xf32, #sram>, memref<4x8xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_unary' op input and result must have one element type, got 'f32' and 'bf16' (only 'cast' converts)}}
    tessel.vector_unary exp %a, %h : memref<4x4xf32, #sram>, memref<4x4xbf16, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_unary' op the vector unit does not support 'f16': it supports f32, bf16}}
    tessel.vector_unary neg %p, %p : memref<4x4xf16, #sram>, memref<4x4xf16, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_binary' op the vector unit does not support 'i8': it supports f32, bf16}}
    tessel.vector_binary add %q, %q, %q : memref<4x4xi8, #sram>, memref<4x4xi8, #sram>, memref<4x4xi8, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_binary' op operands must have one element type, got 'f32', 'bf16', 'f32'}}
    tessel.vector_binary mul %a, %h, %a : memref<4x4xf32, #sram>, memref<4x4xbf16, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_binary' op operand #2 is in DRAM, but compute units read only their own tile's SRAM; move it there with tessel.dma}}
    tessel.vector_binary add %a, %a, %y : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #dram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_reduce' op dim 2 is out of range for a rank-2 input}}
    tessel.vector_reduce add %a, %vec dim 2 : memref<4x4xf32, #sram>, memref<4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_reduce' op result shape 4 must be the input shape 4x8 without dim 0}}
    tessel.vector_reduce max %v, %vec dim 0 : memref<4x8xf32, #sram>, memref<4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_select' op operands must have the same shape, got 4x4 and 4x8}}
    tessel.vector_select %a, %a, %v, %a : memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x8xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // A fill also writes what the MAC array reads (i8 here), not f16.
    // expected-error @+1 {{'tessel.vector_fill' op the vector unit does not support 'f16': it supports f32, bf16}}
    tessel.vector_fill 0.0, %p : memref<4x4xf16, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_binary_imm' op operand #0 is in DRAM, but compute units read only their own tile's SRAM; move it there with tessel.dma}}
    tessel.vector_binary_imm max %x, 0.0, %a : memref<4x4xf32, #dram>, memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_compare' op operands must have one element type, got 'f32', 'bf16', 'f32'}}
    tessel.vector_compare lt %a, %h, %a : memref<4x4xf32, #sram>, memref<4x4xbf16, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// Integers: only exact operations; ranks 1 to 4; element-aligned addresses.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16", "i8"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_unary' op 'exp' is not defined on 'i8': on integers the vector unit has neg, abs, copy, cast, add, sub, mul, div, max, min, comparisons, select, fill and reductions}}
    tessel.vector_unary exp %q, %q : memref<4x4xi8, #sram>, memref<4x4xi8, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16", "i8"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.vector_unary' op 'sqrt' is not defined on 'i8'}}
    tessel.vector_unary sqrt %q, %q : memref<4x4xi8, #sram>, memref<4x4xi8, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  // expected-error @+1 {{'tessel.dram_buffer' op address 2 is not a multiple of the element size (4 bytes)}}
  %x = tessel.dram_buffer @x input at 2 : memref<4xf32, #dram>
}

// -----

// A cast converts between any element types, even ones the vector unit does not otherwise support.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  %c = tessel.buffer @c on %t : memref<4x4xf32, #sram>
  %k = tessel.buffer @k on %t : memref<8x4xf32, #sram>
  %h = tessel.buffer @h on %t : memref<4x4xbf16, #sram>
  %p = tessel.buffer @p on %t : memref<4x4xf16, #sram>
  %q = tessel.buffer @q on %t : memref<4x4xi8, #sram>
  %big = tessel.buffer @big on %t : memref<8x8xf32, #sram>
  %vec = tessel.buffer @vec on %t : memref<4xf32, #sram>
  tessel.core(%t) {
    tessel.vector_unary cast %a, %p : memref<4x4xf32, #sram>, memref<4x4xf16, #sram>
    // expected-error @+1 {{'tessel.vector_unary' op the vector unit does not support 'f16'}}
    tessel.vector_unary neg %p, %p : memref<4x4xf16, #sram>, memref<4x4xf16, #sram>
  }
}

// -----

// Mappings: one part count per loop, as many parts as tiles, inside the grid.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping splits into 3 parts but its 2x2 rectangle has 4 tiles}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [3, 1]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
}

// -----

// A mapped op that is itself invalid gets its own error, not a read of
// loops it does not have.
func.func @f(%a: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'linalg.reduce' op dimensions for reduction should be in the range [0, 0].}}
  %0 = linalg.reduce ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [3] {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping has 3 parts but 'linalg.copy' has 2 loops: give one part count per loop}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2, 1]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
module attributes {tessel.arch = #tiny} {
func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping rectangle at (1, 0) of 2x2 tiles does not fit the 2x2 grid}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 1, col = 0, rows = 2, cols = 2, parts = [4, 1]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
}

// -----

// Steps, where given: one per loop, each at least one iteration.
func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping has 1 steps but 2 parts: give one step per loop}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1], steps = [4]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping steps must be >= 1, got 0}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1], steps = [4, 0]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping order must list each of the 2 loops once (0 to 1), got [1, 1]}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2], order = [1, 1]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping order must list each of the 2 loops once (0 to 1), got [0, 2]}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2], order = [0, 2]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mapping order must list each of the 2 loops once (0 to 1), got [1]}}
  %0 = linalg.copy {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [2, 2], order = [1]>} ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip', each at most once}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], order = [0], order = [0]>}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip', each at most once}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], stage = 1, stage = 2>}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip', each at most once}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], resident, resident>}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip', each at most once}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], shared, shared>}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip', each at most once}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], on_chip, on_chip>}

// -----

// expected-error @+1 {{expected 'stage', 'steps', 'order', 'resident', 'shared' or 'on_chip'}}
func.func private @f() attributes {m = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1], weights>}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tessel.mapping' is only meaningful on ops with loops (TilingInterface), not on 'tensor.empty'}}
  %0 = tensor.empty() {tessel.mapping = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.resident' is a unit attribute of the allocation, load and deallocation of a resident weight (memref.alloc, memref.copy, memref.dealloc)}}
  linalg.fill {tessel.resident} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.share' is a non-negative integer attribute of a load (memref.copy or tessel.dma): the op whose loads may be shared}}
  linalg.fill {tessel.share = 0 : i64} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.first_load' is a unit attribute of a tessel.dma from DRAM: a piece of an op's first loads (tessel-early-loads)}}
  linalg.fill {tessel.first_load} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.loaded_together' is a unit attribute of a tessel.dma marked 'tessel.share': a load issued together with the later steps' loads of its op (tessel-schedule)}}
  linalg.fill {tessel.loaded_together} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.issued_early' is a unit attribute of a tessel.dma or tessel.dma_multicast from DRAM: a load issued during the ops before its own (tessel-schedule), which keeps a DMA channel to itself until it is waited for (tessel-assign-dma-channels)}}
  linalg.fill {tessel.issued_early} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op has one target, in the SRAM of its own tile (0, 0); a transfer into the tile's own SRAM is a tessel.dma}}
    %m = tessel.dma_multicast %x to %a : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op reads the SRAM of tile (1, 1), but the DMA engine of tile (0, 0) multicasts from DRAM or its own SRAM only}}
    %m = tessel.dma_multicast %b to %a, %c : memref<4x4xf32, #sram> to memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op target #1 must have the source's shape and element type, got 'memref<4x8xf32, #tessel.memory_space<sram>>' for 'memref<4x4xf32, #tessel.memory_space<dram>>'}}
    %m = tessel.dma_multicast %x to %a, %v : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>, memref<4x8xf32, #sram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op target #1 is in DRAM; a multicast delivers to tiles' SRAM}}
    %m = tessel.dma_multicast %x to %a, %y : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>, memref<4x4xf32, #dram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op targets #0 and #2 are both in the SRAM of tile (0, 0); each tile receives the data once}}
    %m = tessel.dma_multicast %x to %a, %b, %a2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>, memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %w = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %a2 = tessel.buffer @a2 on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %w : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %u : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op channel 2 does not exist: the DMA engine has 2 channels}}
    %m = tessel.dma_multicast %x to %a, %b channel 2 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}

// -----

// Gathers: a DRAM table, integer indices and a target in the issuing tile's SRAM, of one shape.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %i = tessel.buffer @i on %t : memref<4x4xi64, #sram>
  %f = tessel.buffer @f on %t : memref<4x4xf32, #sram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_gather' op table, indices and target must have the same shape, got 'memref<4x4xf32, #tessel.memory_space<dram>>', 'memref<4x4xi64, #tessel.memory_space<sram>>' and 'memref<4x8xf32, #tessel.memory_space<sram>>'}}
    %g = tessel.dma_gather %x[%i] rows 4 index_stride 4 to %v : memref<4x4xf32, #dram>, memref<4x4xi64, #sram> to memref<4x8xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %i = tessel.buffer @i on %t : memref<4x4xi64, #sram>
  %f = tessel.buffer @f on %t : memref<4x4xf32, #sram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_gather' op indices must be i32 or i64, got 'f32'}}
    %g = tessel.dma_gather %x[%f] rows 4 index_stride 4 to %a : memref<4x4xf32, #dram>, memref<4x4xf32, #sram> to memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %i = tessel.buffer @i on %t : memref<4x4xi64, #sram>
  %f = tessel.buffer @f on %t : memref<4x4xf32, #sram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_gather' op table must be in DRAM, not the SRAM of tile (0, 0)}}
    %g = tessel.dma_gather %f[%i] rows 4 index_stride 4 to %a : memref<4x4xf32, #sram>, memref<4x4xi64, #sram> to memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %i = tessel.buffer @i on %t : memref<4x4xi64, #sram>
  %f = tessel.buffer @f on %t : memref<4x4xf32, #sram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_gather' op target must be in the SRAM of the issuing tile (0, 0)}}
    %g = tessel.dma_gather %x[%i] rows 4 index_stride 4 to %b : memref<4x4xf32, #dram>, memref<4x4xi64, #sram> to memref<4x4xf32, #sram>
  }
}

// -----

// 
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %i = tessel.buffer @i on %t : memref<4x4xi64, #sram>
  %f = tessel.buffer @f on %t : memref<4x4xf32, #sram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %v = tessel.buffer @v on %t : memref<4x8xf32, #sram>
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_gather' op attribute 'rows' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %g = tessel.dma_gather %x[%i] rows 0 index_stride 4 to %a : memref<4x4xf32, #dram>, memref<4x4xi64, #sram> to memref<4x4xf32, #sram>
  }
}

// -----

// A padded view's result is its source grown by the padding.
func.func @pad_view_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result dimension 1 is 10, expected 11 (source 8 + low 1 + high 2)}}
  %p = tessel.pad_view %x low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> to tensor<4x10xf32>
  return
}

// -----

func.func @pad_view_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{padding of dimension 0 is negative (low -1, high 1)}}
  %p = tessel.pad_view %x low [-1, 0] high [1, 0] value 0.0 : tensor<4x8xf32> to tensor<4x8xf32>
  return
}

// -----

func.func @pad_view_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{needs one low and one high padding per dimension of the rank-2 source, and a result of that rank}}
  %p = tessel.pad_view %x low [1] high [1] value 0.0 : tensor<4x8xf32> to tensor<6x8xf32>
  return
}

// -----

func.func @pad_view_kinds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{source and result must both be tensors or both memrefs}}
  %p = tessel.pad_view %x low [0, 0] high [0, 0] value 0.0 : tensor<4x8xf32> to memref<4x8xf32, #tessel.memory_space<dram>>
  return
}

// -----

// Only DRAM is viewed padded: its loads into SRAM are what read it.
func.func @pad_view_sram(%x: memref<4x8xf32, #tessel.memory_space<sram>>) {
  // expected-error @+1 {{views DRAM only: its loads are what read it}}
  %p = tessel.pad_view %x low [0, 1] high [0, 1] value 0.0 : memref<4x8xf32, #tessel.memory_space<sram>> to memref<4x10xf32, #tessel.memory_space<sram>>
  return
}

// -----

func.func @transpose_view_permutation(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{permutation [0, 0, 2] is not a permutation of the rank-3 source's dimensions}}
  %t = tessel.transpose_view %x permutation [0, 0, 2] : tensor<4x8x16xf32> to tensor<4x4x16xf32>
  return
}

// -----

// A transposed view's dimensions are its source's, permuted.
func.func @transpose_view_shape(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{result dimension 0 is 4, expected 8 (source dimension 1)}}
  %t = tessel.transpose_view %x permutation [1, 0, 2] : tensor<4x8x16xf32> to tensor<4x8x16xf32>
  return
}

// -----

// A semaphore's id is its index in its tile's list: two of one tile cannot
// share one (two tiles can).
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  // expected-note @+1 {{the other semaphore}}
  %a = tessel.semaphore on %t id 1
  %b = tessel.semaphore on %u id 1
  // expected-error @+1 {{'tessel.semaphore' op has id 1, which another semaphore of tile (0, 0) has; run tessel-assign-semaphore-ids to number them}}
  %c = tessel.semaphore on %t id 1
}

// -----

// A token slot names one pending transfer: it is free again only after a
// wait on the transfer that holds it.
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  tessel.core(%t) {
    %0 = tessel.dma %x to %a channel 0 slot 0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %0
    // expected-note @+1 {{the transfer holding it}}
    %1 = tessel.dma %x to %a channel 0 slot 0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    %2 = tessel.dma %x to %a channel 1 slot 1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %2
    // expected-error @+1 {{'tessel.dma' op takes token slot 0, which an earlier transfer of the core still holds (no tessel.wait on its token in between); run tessel-assign-dma-slots}}
    %3 = tessel.dma %x to %a channel 1 slot 0 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %1, %3
  }
}

// -----

func.func @f(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tessel.weights_of' is a symbol attribute of a func.func: the function whose weights it computes from that function's weights}}
  linalg.fill {tessel.weights_of = @f} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

#sram = #tessel.memory_space<sram>
func.func @strided_view_element_type(%a: memref<8x4xf32, #sram>) {
  // expected-error @+1 {{'tessel.strided_view' op result element type 'i32' differs from the source's 'f32'}}
  %v = tessel.strided_view %a : memref<8x4xf32, #sram> to memref<4x4xi32, strided<[4, 1]>, #sram>
  return
}

// -----

#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
func.func @strided_view_memory_space(%a: memref<8x4xf32, #sram>) {
  // expected-error @+1 {{'tessel.strided_view' op result memory space #tessel.memory_space<dram> differs from the source's #tessel.memory_space<sram>}}
  %v = tessel.strided_view %a : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[4, 1]>, #dram>
  return
}

// -----

#sram = #tessel.memory_space<sram>
func.func @strided_view_identity_layout(%a: memref<8x4xf32, #sram>) {
  // expected-error @+1 {{'tessel.strided_view' op result layout affine_map<(d0, d1) -> (d0, d1)> is not a strided layout}}
  %v = tessel.strided_view %a : memref<8x4xf32, #sram> to memref<4x4xf32, #sram>
  return
}

// -----

#sram = #tessel.memory_space<sram>
func.func @strided_view_dynamic(%a: memref<8x4xf32, #sram>) {
  // expected-error @+1 {{'tessel.strided_view' op result layout strided<[?, 1]> has a dynamic offset or stride; a strided view is static}}
  %v = tessel.strided_view %a : memref<8x4xf32, #sram> to memref<4x4xf32, strided<[?, 1]>, #sram>
  return
}

// -----

#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {f32 = 16, i8 = 64}}, vector = {lanes = 4, dtypes = ["f32", "bf16"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
tessel.device @main arch #tiny {
  %t = tessel.tile(0, 0)
  %u = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4x4xf32, #dram>
  %a = tessel.buffer @a on %t : memref<4x4xf32, #sram>
  %b = tessel.buffer @b on %u : memref<4x4xf32, #sram>
  %free = tessel.semaphore on %u
  tessel.core(%t) {
    // expected-error @+1 {{'tessel.dma_multicast' op credit #0 is a semaphore of tile (1, 1), but only the DMA engine of the semaphore's own tile can wait on it; the issuing tile is (0, 0)}}
    %m = tessel.dma_multicast %x to %a, %b after %free : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>, memref<4x4xf32, #sram>
  }
}
