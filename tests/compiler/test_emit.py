"""The program emitter: hand-written tessel IR, emitted, simulated and compared
with NumPy."""

import filecmp
import os

import numpy as np
import pytest

from tessel.compiler.emit import EmitError, emit_program
from tessel.ir import Context, Module
from tessel.runtime import isa
from tessel.runtime.disasm import disassemble
from tessel.runtime.numerics import exp as isa_exp
from tessel.runtime.program import load_program
from tessel.runtime.simulator import simulate

# A 2x2 chip with 16 KiB of SRAM per tile and a 4x4 weight-stationary MAC
# array (test/Dialect/Tessel/ops.mlir).
PRELUDE = """
#tiny = #tessel.arch<{name = "tiny", clock_mhz = 1000,
  grid = {rows = 2, cols = 2},
  tile = {mac = {rows = 4, cols = 4, dataflow = "weight_stationary",
                 macs_per_cycle = {f32 = 16, i8 = 64}},
          vector = {lanes = 4, dtypes = ["f32", "bf16"],
                    latency = {add = 1, sub = 1, mul = 1, div = 8, max = 1, min = 1,
                               cmp = 1, select = 1, neg = 1, abs = 1, exp = 4,
                               log = 4, tanh = 4, erf = 4, sqrt = 4, rsqrt = 4,
                               recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}},
          sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64},
          dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}},
  noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1},
  dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50,
          capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
"""


def emit(body: str, **kwargs):
    """Emit the device ``body`` (the text inside ``tessel.device``)."""
    with Context():
        module = Module.parse(PRELUDE + "tessel.device @main arch #tiny {\n"
                              + body + "\n}\n")
        return emit_program(module, **kwargs)


def rng_array(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def matmul_ref(a, b):
    """acc = 0 + a @ b, accumulated in index order in f32 as the ISA says."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = acc + a[:, k:k + 1] * b[k:k + 1, :]
    return acc


# ---------------------------------------------------------------------------
# 1. One tile: DMA in, matmul, exp, DMA out.
# ---------------------------------------------------------------------------

ONE_TILE = """
  %t00 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x4xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<8x4xf32, #sram>
  %b = tessel.buffer @b on %t00 at 128 : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %t00 at 256 : memref<8x4xf32, #sram>
  tessel.core(%t00) {
    %t0 = tessel.dma %x to %a : memref<8x4xf32, #dram> to memref<8x4xf32, #sram> loc("load"("model.py":11:0))
    %t1 = tessel.dma %w to %b : memref<4x4xf32, #dram> to memref<4x4xf32, #sram> loc("load"("model.py":11:0))
    tessel.wait %t0, %t1 loc(unknown)
    tessel.vector_fill 0.0, %c : memref<8x4xf32, #sram> loc("fc1"("model.py":12:0))
    tessel.matmul %a, %b, %c : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram> loc("fc1"("model.py":12:0))
    tessel.vector_unary exp %c, %c : memref<8x4xf32, #sram>, memref<8x4xf32, #sram> loc("model.py":13:4)
    %t2 = tessel.dma %c to %y : memref<8x4xf32, #sram> to memref<8x4xf32, #dram> loc(unknown)
    tessel.wait %t2 loc(unknown)
  }
"""


def test_one_tile_matches_numpy():
    x, w = rng_array((8, 4), 0), rng_array((4, 4), 1)
    program = emit(ONE_TILE, weights={"w": w})
    out = simulate(program, {"x": x}).outputs["y"]
    expected = np.exp(matmul_ref(x, w))
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-7)
    # The ISA's own exp sequence gives exactly the simulator's bits.
    assert np.array_equal(out.view(np.uint32),
                          isa_exp(matmul_ref(x, w)).view(np.uint32))


def test_one_tile_manifest():
    program = emit(ONE_TILE, weights={"w": rng_array((4, 4), 1)})
    # Offsets in declaration order, each at a multiple of 64.
    assert [(b.name, b.kind, b.offset) for b in program.buffers] == [
        ("x", "input", 0), ("w", "weight", 128), ("y", "output", 192)]
    assert program.inputs == ["x"] and program.outputs == ["y"]
    (tile,) = program.tiles
    assert (tile.row, tile.col, tile.tokens, tile.semaphores) == (0, 0, 2, ())
    ops = [ins.op for ins in program.instructions(0, 0)]
    assert ops == ["dma", "dma", "wait", "vector_fill", "matmul", "vector_unary",
                   "dma", "wait"]
    ins = program.instructions(0, 0)
    # Lowest free token slot; the slots are free again after the wait.
    assert [ins[i]["token"] for i in (0, 1, 6)] == [0, 1, 0]
    assert ins[2]["tokens"] == (0, 1)
    # Channels round-robin over the arch's two.
    assert [ins[i]["channel"] for i in (0, 1, 6)] == [0, 1, 0]
    assert ins[4]["m"] == 8 and ins[4]["k"] == 4 and ins[4]["n"] == 4
    # One tag per location, numbered by first appearance; a NameLoc's name
    # names the tag, a file position names itself; an unknown location gives
    # no tag.
    assert [(t.id, t.name, t.loc) for t in program.tags] == [
        (0, "load", "model.py:11:0"), (1, "fc1", "model.py:12:0"),
        (2, "model.py:13:4", "model.py:13:4")]
    assert [i.tag for i in ins] == [0, 0, None, 1, 1, 2, None, None]


def test_emit_is_deterministic(tmp_path):
    w = rng_array((4, 4), 1)
    first = emit(ONE_TILE, weights={"w": w}).save(tmp_path / "a")
    second = emit(ONE_TILE, weights={"w": w}).save(tmp_path / "b")
    files = sorted(str(p.relative_to(first)) for p in first.rglob("*") if p.is_file())
    assert files == ["dram.bin", "manifest.json", "tiles/r0c0.bin"]
    match, mismatch, errors = filecmp.cmpfiles(first, second, files, shallow=False)
    assert (match, mismatch, errors) == (files, [], [])
    # What was saved loads back and runs.
    x = rng_array((8, 4), 0)
    again = simulate(load_program(first), {"x": x}).outputs["y"]
    np.testing.assert_allclose(again, np.exp(matmul_ref(x, w)), rtol=1e-6, atol=1e-7)
