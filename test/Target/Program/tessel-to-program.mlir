// RUN: rm -rf %t && mkdir -p %t/weights
// RUN: %PYTHON -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<4f', 1, 2, 3, 4))" > %t/weights/w.bin
// RUN: tessel-translate --tessel-to-program %s --weights %t/weights -o %t/prog
// RUN: FileCheck %s --input-file=%t/prog/manifest.json
// RUN: od -A d -t x4 %t/prog/tiles/r0c0.bin | FileCheck %s --check-prefix=STREAM
// RUN: od -A d -t f4 %t/prog/dram.bin | FileCheck %s --check-prefix=IMAGE
// A program written again replaces the one there.
// RUN: tessel-translate --tessel-to-program %s --weights %t/weights -o %t/prog
// A directory named with a trailing separator is the same directory.
// RUN: tessel-translate --tessel-to-program %s --weights %t/weights -o %t/slash/
// RUN: diff -r %t/prog %t/slash
// RUN: not tessel-translate --tessel-to-program %s --weights %t/weights -o %t/weights/w.bin 2>&1 | FileCheck %s --check-prefix=NOT-A-DIRECTORY
// RUN: not tessel-translate --tessel-to-program %s -o %t/prog 2>&1 | FileCheck %s --check-prefix=NO-WEIGHTS
// RUN: not tessel-translate %s -o %t/prog 2>&1 | FileCheck %s --check-prefix=NO-TRANSLATION
// RUN: tessel-opt %s -tessel-check-synchronization -mlir-print-debuginfo | tessel-translate --tessel-to-program --weights %t/weights -o %t/piped
// RUN: diff -r %t/prog %t/piped

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000, grid = {rows = 1, cols = 2}, tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary", macs_per_cycle = {i8 = 64, f32 = 16}}, vector = {lanes = 4, dtypes = ["f32"], latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1, cmp = 1, select = 1, neg = 1, abs = 1, exp = 4, log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4, recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}}, sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64}, dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}}, noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1}, dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50, capacity_bytes = 1048576, attach = [[0, 0]]}}>

// The manifest as the Python loader reads it: the arch's maps in the
// schema's order, the buffers in declaration order, one tag per source
// location in order of first appearance, the digests.
// CHECK:      {
// CHECK-NEXT:  "format": "tessel-program",
// CHECK-NEXT:  "version": 2,
// CHECK-NEXT:  "arch": {
// CHECK-NEXT:   "name": "tiny",
// CHECK:        "macs_per_cycle": {
// CHECK-NEXT:     "f32": 16,
// CHECK-NEXT:     "i8": 64
// CHECK-NEXT:    },
// CHECK-NEXT:    "weight_buffers": 1
// CHECK:        "attach": [
// CHECK-NEXT:    [
// CHECK-NEXT:     0,
// CHECK-NEXT:     0
// CHECK-NEXT:    ]
// CHECK-NEXT:   ]
// CHECK-NEXT:  },
// The energy section the arch leaves out: written with its defaults.
// CHECK-NEXT:  "energy": {
// CHECK-NEXT:   "mac_fj": {
// CHECK-NEXT:    "f32": 4600,
// CHECK-NEXT:    "f16": 2000,
// CHECK-NEXT:    "bf16": 2000,
// CHECK-NEXT:    "i8": 300
// CHECK-NEXT:   },
// CHECK-NEXT:   "sram_fj_per_byte": 2500,
// CHECK-NEXT:   "noc_fj_per_byte_hop": 2000,
// CHECK-NEXT:   "dram_fj_per_byte": 162500,
// CHECK-NEXT:   "tile_static_uw": 50000
// CHECK-NEXT:  }
// CHECK-NEXT: },
// CHECK-NEXT: "dram": {
// CHECK-NEXT:  "bytes": 128,
// CHECK-NEXT:  "image": "dram.bin",
// CHECK-NEXT:  "buffers": [
// CHECK-NEXT:   {
// CHECK-NEXT:    "name": "x",
// CHECK-NEXT:    "kind": "input",
// CHECK-NEXT:    "offset": 0,
// CHECK-NEXT:    "shape": [
// CHECK-NEXT:     4
// CHECK-NEXT:    ],
// CHECK-NEXT:    "dtype": "f32"
// CHECK-NEXT:   },
// CHECK:         "name": "w",
// CHECK-NEXT:    "kind": "weight",
// CHECK-NEXT:    "offset": 64,
// CHECK:         "name": "y",
// CHECK-NEXT:    "kind": "output",
// CHECK-NEXT:    "offset": 16,
// CHECK:       "inputs": [
// CHECK-NEXT:  "x"
// CHECK-NEXT: ],
// CHECK-NEXT: "outputs": [
// CHECK-NEXT:  "y"
// CHECK-NEXT: ],
// CHECK-NEXT: "tiles": [
// CHECK-NEXT:  {
// CHECK-NEXT:   "row": 0,
// CHECK-NEXT:   "col": 0,
// CHECK-NEXT:   "stream": "tiles/r0c0.bin",
// CHECK-NEXT:   "instructions": 6,
// CHECK-NEXT:   "semaphores": [],
// CHECK-NEXT:   "tokens": 2
// CHECK-NEXT:  },
// CHECK-NEXT:  {
// CHECK-NEXT:   "row": 0,
// CHECK-NEXT:   "col": 1,
// CHECK-NEXT:   "stream": "tiles/r0c1.bin",
// CHECK-NEXT:   "instructions": 0,
// CHECK-NEXT:   "semaphores": [
// CHECK-NEXT:    0,
// CHECK-NEXT:    3
// CHECK-NEXT:   ],
// CHECK-NEXT:   "tokens": 0
// CHECK-NEXT:  }
// CHECK-NEXT: ],
// CHECK-NEXT: "tags": [
// CHECK-NEXT:  {
// CHECK-NEXT:   "id": 0,
// CHECK-NEXT:   "name": "load",
// CHECK-NEXT:   "op": "",
// CHECK-NEXT:   "loc": "model.py:11:0"
// CHECK-NEXT:  },
// CHECK-NEXT:  {
// CHECK-NEXT:   "id": 1,
// CHECK-NEXT:   "name": "model.py:12:4",
// CHECK-NEXT:   "op": "",
// CHECK-NEXT:   "loc": "model.py:12:4"
// CHECK-NEXT:  }
// CHECK-NEXT: ],
// CHECK-NEXT: "sha256": {
// CHECK-NEXT:  "dram.bin": "{{[0-9a-f]+}}",
// CHECK-NEXT:  "tiles/r0c0.bin": "{{[0-9a-f]+}}",
// CHECK-NEXT:  "tiles/r0c1.bin": "{{[0-9a-f]+}}"
// CHECK-NEXT: },
// CHECK-NEXT: "manifest_sha256": "{{[0-9a-f]+}}"
// CHECK-NEXT: }

// The stream: the header (magic, version 2, 6 instructions, 75 words), then
// the first dma: opcode 0x01, 18 words, tag 0; channel 0, slot 0, f32, rank
// 1, size 4, from DRAM (kind 1, tile (0, 0), base 0, stride 1) to the SRAM
// (kind 0) of tile (0, 0).
// STREAM:      0000000 314c5354 00000002 00000006 0000004b
// STREAM-NEXT: 0000016 00001201 00000000 00000000 00000000
// STREAM-NEXT: 0000032 00000001 00000004 00000001 00000000
// STREAM-NEXT: 0000048 00000000 00000000 00000000 00000001

// The weight at its offset, the rest zero up to it.
// IMAGE:      0000000 0 0 0 0
// IMAGE:      0000064 1 2 3 4

// NOT-A-DIRECTORY: tessel-translate: error: {{.*}}w.bin exists and is not a program directory
// NO-WEIGHTS: tessel-translate: error: weight buffer @w needs its data: give --weights DIR holding w.bin
// NO-TRANSLATION: tessel-translate: error: choose a translation: --tessel-to-program

tessel.device @main arch #tiny {
  %t0 = tessel.tile(0, 0)
  %t1 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input at 0 : memref<4xf32, #dram>
  %w = tessel.dram_buffer @w weight at 64 : memref<4xf32, #dram>
  %y = tessel.dram_buffer @y output at 16 : memref<4xf32, #dram>
  %a = tessel.buffer @a on %t0 at 0 : memref<4xf32, #sram>
  %b = tessel.buffer @b on %t0 at 64 : memref<4xf32, #sram>
  %s = tessel.semaphore on %t1 init 3 id 1
  tessel.core(%t0) {
    %0 = tessel.dma %x to %a channel 0 slot 0 : memref<4xf32, #dram> to memref<4xf32, #sram> loc("load"("model.py":11:0))
    %1 = tessel.dma %w to %b channel 1 slot 1 : memref<4xf32, #dram> to memref<4xf32, #sram> loc("load"("model.py":11:0))
    tessel.wait %0, %1 loc(unknown)
    tessel.vector_binary add %a, %b, %a : memref<4xf32, #sram>, memref<4xf32, #sram>, memref<4xf32, #sram> loc("model.py":12:4)
    %2 = tessel.dma %a to %y channel 0 slot 0 : memref<4xf32, #sram> to memref<4xf32, #dram> loc(unknown)
    tessel.wait %2 loc(unknown)
  }
}
