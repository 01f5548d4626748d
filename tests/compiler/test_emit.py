"""The program emitter: hand-written tessel IR, emitted, simulated and compared
with NumPy."""

import filecmp
import hashlib
import os

import numpy as np
import pytest

from tessel.compiler.emit import EmitError, _find_device, emit_program
from tessel.ir import Context, Module
from tessel.passmanager import PassManager
from tessel.runtime import isa
from tessel.runtime.disasm import disassemble
from tessel.runtime.numerics import exp as isa_exp
from tessel.runtime.loader import load_program, program_from_files
from tessel.runtime.program import ProgramError
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
                               log = 4, tanh = 4, erf = 4, sin = 4, cos = 4, sqrt = 4, rsqrt = 4,
                               recip = 4, cast = 1, reduce_add = 2, reduce_max = 1}},
          sram = {bytes = 16384, banks = 2, bytes_per_cycle = 16, alignment = 64},
          dma = {channels = 2, bytes_per_cycle = 8, setup_cycles = 10}},
  noc = {topology = "mesh", routing = "xy", link_bytes_per_cycle = 8, hop_cycles = 1},
  dram = {channels = 1, bytes_per_cycle = 8, latency_cycles = 50,
          capacity_bytes = 1048576, attach = [[0, 0]]}}>
#sram = #tessel.memory_space<sram>
#dram = #tessel.memory_space<dram>
"""


# The passes that make the decisions the emitter reads (the end of
# tessel-lowering-pipeline).
ASSIGN = ("builtin.module(tessel-assign-dram-addresses,tessel-assign-semaphore-ids,"
          "tessel-assign-dma-channels,tessel-assign-dma-slots)")


def parse_device(body: str, assign: bool = True) -> Module:
    """A module holding the device ``body`` (the text inside
    ``tessel.device``), its decisions assigned unless ``assign`` is false;
    inside a Context."""
    module = Module.parse(PRELUDE + "tessel.device @main arch #tiny {\n"
                          + body + "\n}\n")
    if assign:
        PassManager.parse(ASSIGN).run(module.operation)
    return module


def emit(body: str, **kwargs):
    """Emit the device ``body`` (the text inside ``tessel.device``)."""
    with Context():
        return emit_program(parse_device(body), **kwargs)


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


def test_permuted_weight_is_stored_transposed():
    x, w = rng_array((8, 4), 0), rng_array((4, 4), 1)
    body = ONE_TILE.replace("@w weight :", "@w weight permuted [1, 0] :")
    out = simulate(emit(body, weights={"w": w}), {"x": x}).outputs["y"]
    assert np.array_equal(out.view(np.uint32),
                          isa_exp(matmul_ref(x, w.T)).view(np.uint32))

    # A non-square weight: the buffer holds (2, 3) as [3, 2], transposed.
    body = """
  %t00 = tessel.tile(0, 0)
  %w = tessel.dram_buffer @w weight permuted [1, 0] : memref<3x2xf32, #dram>
  tessel.core(%t00) {
  }
"""
    w = rng_array((2, 3), 2)
    program = emit(body, weights={"w": w})
    stored = program.buffer("w")
    image = np.frombuffer(program.dram_image, np.float32,
                          count=6, offset=stored.offset)
    assert np.array_equal(image, w.T.ravel())
    message = emit_error(body, weights={"w": w.T.copy()})
    assert message == ("weight @w has shape [3, 2], expected [2, 3] (the "
                       "buffer holds it permuted by [1, 0])")


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


# ---------------------------------------------------------------------------
# 2. Two tiles: a semaphore hands tile (0, 0)'s result to tile (0, 1).
# ---------------------------------------------------------------------------

# Tile (0, 1)'s SRAM is one i8 arena; its buffers are memref.views into it at
# byte shifts, as the lowering makes them.
TWO_TILES = """
  %t00 = tessel.tile(0, 0)
  %t01 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<8x4xf32, #dram>
  %w = tessel.dram_buffer @w weight : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x4xf32, #dram>
  %s = tessel.dram_buffer @s output : memref<8xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<8x4xf32, #sram>
  %b = tessel.buffer @b on %t00 at 128 : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %t00 at 256 : memref<8x4xf32, #sram>
  %arena = tessel.buffer @sram_0_1 on %t01 at 0 : memref<1024xi8, #sram>
  %spare = tessel.semaphore on %t01 init 3
  %ready = tessel.semaphore on %t01
  %done = tessel.semaphore on %t00
  tessel.core(%t00) {
    %t0 = tessel.dma %x to %a : memref<8x4xf32, #dram> to memref<8x4xf32, #sram>
    %t1 = tessel.dma %w to %b channel 1 : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %t0
    tessel.wait %t1
    tessel.vector_fill 0.0, %c : memref<8x4xf32, #sram>
    tessel.matmul %a, %b, %c : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, #sram>
    %c192 = arith.constant 192 : index
    %in = memref.view %arena[%c192][] : memref<1024xi8, #sram> to memref<8x4xf32, #sram>
    %t2 = tessel.dma %c to %in : memref<8x4xf32, #sram> to memref<8x4xf32, #sram>
    tessel.wait %t2
    tessel.signal %ready by 2
    tessel.wait_semaphore %done
  }
  tessel.core(%t01) {
    %c192 = arith.constant 192 : index
    %c320 = arith.constant 320 : index
    %c448 = arith.constant 448 : index
    %in = memref.view %arena[%c192][] : memref<1024xi8, #sram> to memref<8x4xf32, #sram>
    %r = memref.view %arena[%c320][] : memref<1024xi8, #sram> to memref<8x4xf32, #sram>
    %sum = memref.view %arena[%c448][] : memref<1024xi8, #sram> to memref<8xf32, #sram>
    tessel.wait_semaphore %ready for 2
    tessel.vector_binary_imm max %in, 0.0, %r : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_binary_imm sub %r, 1.0, %r {imm_lhs} : memref<8x4xf32, #sram>, memref<8x4xf32, #sram>
    tessel.vector_reduce add %r, %sum dim 1 : memref<8x4xf32, #sram>, memref<8xf32, #sram>
    %t0 = tessel.dma %r to %y : memref<8x4xf32, #sram> to memref<8x4xf32, #dram>
    %t1 = tessel.dma %sum to %s : memref<8xf32, #sram> to memref<8xf32, #dram>
    tessel.wait %t0, %t1
    tessel.signal %done
  }
"""


def test_two_tiles_semaphore_hand_off():
    x, w = rng_array((8, 4), 2), rng_array((4, 4), 3)
    program = emit(TWO_TILES, weights={"w": w})
    result = simulate(program, {"x": x})
    r = np.float32(1) - np.maximum(matmul_ref(x, w), np.float32(0))
    np.testing.assert_array_equal(result.outputs["y"], r)
    s = r[:, 0]
    for j in range(1, 4):
        s = s + r[:, j]
    np.testing.assert_array_equal(result.outputs["s"], s)

    # Semaphores are numbered per owning tile in declaration order.
    assert [(t.row, t.col, t.semaphores) for t in program.tiles] == [
        (0, 0, (0,)), (0, 1, (3, 0))]
    a, b = program.instructions(0, 0), program.instructions(0, 1)
    signal = next(i for i in a if i.op == "signal")
    assert (signal["row"], signal["col"], signal["semaphore"], signal["count"]) == (0, 1, 1, 2)
    assert (b[0].op, b[0]["semaphore"], b[0]["count"]) == ("wait_semaphore", 1, 2)
    assert (b[-1].op, b[-1]["row"], b[-1]["col"], b[-1]["semaphore"]) == ("signal", 0, 0, 0)
    # The DMA into the other tile's SRAM: the view's byte shift is the base.
    xfer = next(i for i in a if i.op == "dma" and i["dst"].kind == "sram"
                and (i["dst"].row, i["dst"].col) == (0, 1))
    assert xfer["dst"].view == isa.View(192, (4, 1))
    # The explicit channel is kept; the others go round-robin. Separate waits
    # free one slot each, so the third transfer reuses slot 0.
    assert [(i["channel"], i["token"]) for i in a if i.op == "dma"] == [
        (0, 0), (1, 1), (1, 0)]
    assert [i["tokens"] for i in a if i.op == "wait"] == [(0,), (1,), (0,)]
    reduce = next(i for i in b if i.op == "vector_reduce")
    assert reduce["out"] == isa.View(448, (1,)) and reduce["dim"] == 1


# A multicast that waits for its receiver's credit: its DMA channel does
# (one dma_wait_semaphore per credit, on the multicast's channel, before it).
CREDITED = """
  %t00 = tessel.tile(0, 0)
  %t01 = tessel.tile(0, 1)
  %x = tessel.dram_buffer @x input : memref<16xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<16xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<16xf32, #sram>
  %b = tessel.buffer @b on %t01 at 0 : memref<16xf32, #sram>
  %spare = tessel.semaphore on %t00
  %free = tessel.semaphore on %t00
  %ready = tessel.semaphore on %t01
  tessel.core(%t00) {
    %m = tessel.dma_multicast %x to %a, %b after %free channel 1 : memref<16xf32, #dram> to memref<16xf32, #sram>, memref<16xf32, #sram>
    tessel.signal %ready
    tessel.wait %m
  }
  tessel.core(%t01) {
    tessel.vector_fill 0.0, %b : memref<16xf32, #sram>
    tessel.signal %free
    tessel.wait_semaphore %ready
    tessel.vector_unary exp %b, %b : memref<16xf32, #sram>, memref<16xf32, #sram>
    %s = tessel.dma %b to %y : memref<16xf32, #sram> to memref<16xf32, #dram>
    tessel.wait %s
  }
"""


def test_a_multicasts_credits_are_its_channels_waits():
    program = emit(CREDITED)
    ops = [(i.op, i.fields.get("channel"), i.fields.get("semaphore"), i.fields.get("count"))
           for i in program.instructions(0, 0)]
    assert ops[:2] == [("dma_wait_semaphore", 1, 1, 1), ("dma_multicast", 1, None, None)]
    x = rng_array((16,), 5)
    got = simulate(program, {"x": x}).outputs["y"]
    np.testing.assert_array_equal(got, isa_exp(x))


# ---------------------------------------------------------------------------
# 3. Strided views of SRAM and DRAM.
# ---------------------------------------------------------------------------

STRIDED = """
  %t00 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<8x8xf32, #dram>
  %w = tessel.dram_buffer @w weight at 4096 : memref<4x4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<8x8xf32, #dram>
  %yt = tessel.dram_buffer @yt output : memref<4x8xf32, #dram>
  %flat = tessel.dram_buffer @flat output : memref<64xf32, #dram>
  %even = tessel.dram_buffer @even output : memref<8x4xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<8x4xf32, #sram>
  %b = tessel.buffer @b on %t00 at 128 : memref<4x4xf32, #sram>
  %c = tessel.buffer @c on %t00 at 256 : memref<8x8xf32, #sram>
  %d = tessel.buffer @d on %t00 at 512 : memref<4x8xf32, #sram>
  tessel.core(%t00) {
    %xcols = memref.subview %x[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #dram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #dram>
    %t0 = tessel.dma %xcols to %a : memref<8x4xf32, strided<[8, 1], offset: 4>, #dram> to memref<8x4xf32, #sram>
    %t1 = tessel.dma %w to %b : memref<4x4xf32, #dram> to memref<4x4xf32, #sram>
    tessel.wait %t0, %t1
    tessel.vector_fill 0.0, %c : memref<8x8xf32, #sram>
    %right = memref.subview %c[0, 4] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    tessel.matmul %a, %b, %right : memref<8x4xf32, #sram>, memref<4x4xf32, #sram>, memref<8x4xf32, strided<[8, 1], offset: 4>, #sram>
    %left = memref.subview %c[0, 0] [8, 4] [1, 1] : memref<8x8xf32, #sram> to memref<8x4xf32, strided<[8, 1]>, #sram>
    tessel.vector_unary copy %a, %left : memref<8x4xf32, #sram>, memref<8x4xf32, strided<[8, 1]>, #sram>
    %at = memref.reinterpret_cast %a to offset: [0], sizes: [4, 8], strides: [1, 4] : memref<8x4xf32, #sram> to memref<4x8xf32, strided<[1, 4]>, #sram>
    tessel.vector_unary copy %at, %d : memref<4x8xf32, strided<[1, 4]>, #sram>, memref<4x8xf32, #sram>
    %t2 = tessel.dma %c to %y : memref<8x8xf32, #sram> to memref<8x8xf32, #dram>
    %t3 = tessel.dma %d to %yt : memref<4x8xf32, #sram> to memref<4x8xf32, #dram>
    %cflat = memref.collapse_shape %c [[0, 1]] : memref<8x8xf32, #sram> into memref<64xf32, #sram>
    %t4 = tessel.dma %cflat to %flat : memref<64xf32, #sram> to memref<64xf32, #dram>
    %rows = memref.subview %c[0, 4] [4, 4] [2, 1] : memref<8x8xf32, #sram> to memref<4x4xf32, strided<[16, 1], offset: 4>, #sram>
    %erows = memref.subview %even[1, 0] [4, 4] [2, 1] : memref<8x4xf32, #dram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #dram>
    %t5 = tessel.dma %rows to %erows : memref<4x4xf32, strided<[16, 1], offset: 4>, #sram> to memref<4x4xf32, strided<[8, 1], offset: 4>, #dram>
    tessel.wait %t2, %t3, %t4, %t5
  }
"""


def test_strided_views():
    x, w = rng_array((8, 8), 4), rng_array((4, 4), 5)
    program = emit(STRIDED, weights={"w": w})
    out = simulate(program, {"x": x}).outputs
    block = x[:, 4:8]
    product = matmul_ref(block, w)
    np.testing.assert_array_equal(out["y"], np.concatenate([block, product], axis=1))
    np.testing.assert_array_equal(out["yt"], block.T)
    np.testing.assert_array_equal(out["flat"], out["y"].reshape(-1))
    even = np.zeros((8, 4), np.float32)
    even[1::2] = product[0::2]
    np.testing.assert_array_equal(out["even"], even)

    ins = program.instructions(0, 0)
    x_off = program.buffer("x").offset
    assert ins[0]["src"].view == isa.View(x_off + 16, (8, 1))
    matmul = next(i for i in ins if i.op == "matmul")
    assert matmul["acc"] == isa.View(256 + 16, (0, 8, 1))   # one group
    copy_t = [i for i in ins if i.op == "vector_unary"][1]
    assert copy_t["in"] == isa.View(0, (1, 4)) and copy_t["sizes"] == (4, 8)
    last = [i for i in ins if i.op == "dma"][-1]
    assert last["src"].view == isa.View(256 + 16, (16, 1))
    assert last["dst"].view == isa.View(program.buffer("even").offset + 16, (8, 1))
    # `at` is kept; the others fill the gaps from 0 up, 64-byte aligned.
    assert [(b.name, b.offset) for b in program.buffers] == [
        ("x", 0), ("w", 4096), ("y", 256), ("yt", 512), ("flat", 640),
        ("even", 896)]


RANKS = """
  %t00 = tessel.tile(0, 0)
  %x = tessel.dram_buffer @x input : memref<1x2x2x2x4xf32, #dram>
  %wb = tessel.dram_buffer @wb weight : memref<4xbf16, #dram>
  %y = tessel.dram_buffer @y output : memref<32xf32, #dram>
  %yb = tessel.dram_buffer @yb output : memref<4xbf16, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<32xf32, #sram>
  %b = tessel.buffer @b on %t00 at 128 : memref<4xbf16, #sram>
  tessel.core(%t00) {
    %a5 = memref.expand_shape %a [[0, 1, 2, 3, 4]] output_shape [1, 2, 2, 2, 4] : memref<32xf32, #sram> into memref<1x2x2x2x4xf32, #sram>
    %t0 = tessel.dma %x to %a5 : memref<1x2x2x2x4xf32, #dram> to memref<1x2x2x2x4xf32, #sram>
    %t1 = tessel.dma %wb to %b : memref<4xbf16, #dram> to memref<4xbf16, #sram>
    tessel.wait %t0, %t1
    tessel.vector_binary_imm mul %a5, 3.0, %a5 : memref<1x2x2x2x4xf32, #sram>, memref<1x2x2x2x4xf32, #sram>
    %first = memref.subview %a[5] [1] [1] : memref<32xf32, #sram> to memref<1xf32, strided<[1], offset: 5>, #sram>
    %scalar = memref.collapse_shape %first [] : memref<1xf32, strided<[1], offset: 5>, #sram> into memref<f32, strided<[], offset: 5>, #sram>
    tessel.vector_fill 7.0, %scalar : memref<f32, strided<[], offset: 5>, #sram>
    %t2 = tessel.dma %a to %y : memref<32xf32, #sram> to memref<32xf32, #dram>
    %t3 = tessel.dma %b to %yb : memref<4xbf16, #sram> to memref<4xbf16, #dram>
    tessel.wait %t2, %t3
  }
"""


def test_ranks_above_four_and_zero():
    x = rng_array((1, 2, 2, 2, 4), 6)
    wb = np.array([1.0, -2.5, 1 + 2 ** -9, 3.0], np.float32)
    program = emit(RANKS, weights={"wb": wb})
    out = simulate(program, {"x": x}).outputs
    expected = x.reshape(-1) * np.float32(3)
    expected[5] = 7
    np.testing.assert_array_equal(out["y"], expected)
    # bf16 weights given as float32 are rounded to nearest even.
    np.testing.assert_array_equal(out["yb"], [1.0, -2.5, 1.0, 3.0])
    ins = program.instructions(0, 0)
    # Rank 5, contiguous everywhere: one dimension of 32.
    assert ins[0]["sizes"] == (32,) and ins[0]["dst"].view == isa.View(0, (1,))
    assert ins[3]["sizes"] == (32,)
    # Rank 0: one element at the view's offset.
    assert ins[4]["sizes"] == (1,) and ins[4]["out"] == isa.View(20, (1,))


def test_repeated_wait_and_semaphore_tile_without_core():
    body = """
  %t00 = tessel.tile(0, 0)
  %t11 = tessel.tile(1, 1)
  %x = tessel.dram_buffer @x input : memref<4xf32, #dram>
  %y = tessel.dram_buffer @y output : memref<4xf32, #dram>
  %a = tessel.buffer @a on %t00 at 0 : memref<4xf32, #sram>
  %seen = tessel.semaphore on %t11 init 2
  tessel.core(%t00) {
    %t0 = tessel.dma %x to %a : memref<4xf32, #dram> to memref<4xf32, #sram>
    tessel.wait %t0
    tessel.wait %t0
    %t1 = tessel.dma %a to %y : memref<4xf32, #sram> to memref<4xf32, #dram>
    tessel.signal %seen
  }
"""
    program = emit(body)
    x = rng_array((4,), 7)
    np.testing.assert_array_equal(simulate(program, {"x": x}).outputs["y"], x)
    # The second wait has nothing left to wait for; the last DMA, never
    # waited for, reuses the freed slot (the program ends when it completes).
    assert [i.op for i in program.instructions(0, 0)] == ["dma", "wait", "dma", "signal"]
    assert [(t.row, t.col, t.semaphores, t.tokens) for t in program.tiles] == [
        (0, 0, (), 1), (1, 1, (2,), 0)]
    assert program.instructions(1, 1) == []


def test_dram_placement():
    program = emit("""
  %a = tessel.dram_buffer @a scratch : memref<8xf32, #dram>
  %b = tessel.dram_buffer @b input at 64 : memref<16xf32, #dram>
  %c = tessel.dram_buffer @c scratch : memref<32xf32, #dram>
  %d = tessel.dram_buffer @d output : memref<4xi8, #dram>
  %e = tessel.dram_buffer @e input at 1024 : memref<4xf32, #dram>
""")
    # a fits below b; c does not fit the gap before b; e keeps its `at`.
    assert [(b.name, b.offset) for b in program.buffers] == [
        ("a", 0), ("b", 64), ("c", 128), ("d", 256), ("e", 1024)]
    assert program.inputs == ["b", "e"] and program.outputs == ["d"]
    assert program.dram_bytes == 1024 + 64 and program.tiles == []


# ---------------------------------------------------------------------------
# 4. Errors.
# ---------------------------------------------------------------------------

def emit_error(body: str, **kwargs) -> str:
    with pytest.raises(EmitError) as info:
        emit(body, **kwargs)
    return str(info.value)


def test_error_device_count():
    with Context():
        with pytest.raises(EmitError, match="exactly one tessel.device, found 0"):
            emit_program(Module.parse("module {}"))
        two = Module.parse(PRELUDE + "tessel.device @a arch #tiny {}\n"
                           "tessel.device @b arch #tiny {}")
        with pytest.raises(EmitError, match="exactly one tessel.device, found 2"):
            emit_program(two)


def test_error_buffer_without_address():
    message = emit_error(ONE_TILE.replace("@b on %t00 at 128", "@b on %t00"),
                         weights={"w": rng_array((4, 4), 1)})
    assert "SRAM buffer @b" in message and "has no address" in message
    assert "run SRAM allocation first" in message


@pytest.mark.parametrize("skipped, subject", [
    ("tessel-assign-dram-addresses", "DRAM buffer @x"),
    ("tessel-assign-semaphore-ids", "'tessel.semaphore'"),
    ("tessel-assign-dma-channels", "'tessel.dma' at model.py:11:0 has no channel"),
    ("tessel-assign-dma-slots", "'tessel.dma' at model.py:11:0 has no slot"),
])
def test_error_decision_missing(skipped, subject):
    """The emitter makes no decision of its own: IR without one of the
    tessel-assign-* passes is refused with the pass to run."""
    body = ONE_TILE.replace("tessel.core(%t00) {",
                            "%s = tessel.semaphore on %t00\n  tessel.core(%t00) {")
    passes = ASSIGN.replace(skipped + ",", "").replace("," + skipped, "")
    with Context():
        module = parse_device(body, assign=False)
        PassManager.parse(passes).run(module.operation)
        with pytest.raises(EmitError) as info:
            emit_program(module, weights={"w": rng_array((4, 4), 1)})
    assert subject in str(info.value) and str(info.value).endswith(f"; run {skipped}")


def test_error_unknown_op_in_core():
    body = ONE_TILE.replace(
        "tessel.wait %t2 loc(unknown)",
        "tessel.wait %t2 loc(unknown)\n"
        '    %one = arith.constant 1 : index\n'
        '    %two = arith.addi %one, %one : index loc("bad.py":7:3)')
    message = emit_error(body, weights={"w": rng_array((4, 4), 1)})
    assert message == ("the emitter does not know 'arith.addi' at bad.py:7:3 in "
                       "the core of tile (0, 0)")


def test_error_weights():
    assert emit_error(ONE_TILE) == (
        "no data for weight buffer @w: pass it in weights={'w': array}")
    message = emit_error(ONE_TILE, weights={"w": rng_array((4, 5), 1)})
    assert message == "weight @w has shape [4, 5], the buffer has [4, 4]"
    message = emit_error(ONE_TILE, weights={"w": np.zeros((4, 4), np.float64)})
    assert message.startswith("weight @w has NumPy dtype float64, the buffer holds f32")
    message = emit_error(ONE_TILE, weights={"w": rng_array((4, 4), 1),
                                            "x": rng_array((8, 4), 1)})
    assert message == "weights given for x: the device has no weight buffer of that name"


def test_error_dynamic_subview_offset():
    body = ONE_TILE.replace(
        "%t2 = tessel.dma %c to %y : memref<8x4xf32, #sram> to memref<8x4xf32, #dram> loc(unknown)",
        '%i = arith.constant 2 : index\n'
        '    %half = memref.subview %c[%i, 0] [4, 4] [1, 1] : memref<8x4xf32, #sram> to '
        'memref<4x4xf32, strided<[4, 1], offset: ?>, #sram> loc("view.py":5:1)\n'
        '    %yhalf = memref.subview %y[0, 0] [4, 4] [1, 1] : memref<8x4xf32, #dram> to '
        'memref<4x4xf32, strided<[4, 1]>, #dram>\n'
        '    %t2 = tessel.dma %half to %yhalf : memref<4x4xf32, strided<[4, 1], offset: ?>, '
        '#sram> to memref<4x4xf32, strided<[4, 1]>, #dram> loc("out.py":9:2)')
    message = emit_error(body, weights={"w": rng_array((4, 4), 1)})
    assert message.startswith(
        "operand 'source' of 'tessel.dma' at out.py:9:2 (made by 'memref.subview' "
        "at view.py:5:1) has a dynamic offset or stride")
    assert message.endswith("views must be static after unrolling")


def test_error_invalid_ir():
    from tessel import arch
    from tessel.dialects import tessel
    from tessel.ir import InsertionPoint, Location

    with Context(), Location.unknown():
        module = Module.parse(PRELUDE + "tessel.device @d arch #tiny {}")
        device = module.body.operations[0]
        with InsertionPoint(device.regions[0].blocks[0]):
            tessel.TileOp(5, 0)
        with pytest.raises(EmitError, match=r"(?s)does not verify.*\(5, 0\) lies "
                           "outside the 2x2 grid"):
            emit_program(module)
        # Verified on a second thread while it is encoded: the verifier's
        # diagnostic is what is reported, not what the encoder made of it.
        with pytest.raises(EmitError, match=r"(?s)does not verify.*\(5, 0\) lies "
                           "outside the 2x2 grid"):
            emit_program(module, verify="alongside")


def test_verified_alongside_gives_the_same_program():
    weights = {"w": rng_array((4, 4), 3)}
    before = emit(TWO_TILES, weights=weights)
    alongside = emit(TWO_TILES, weights=weights, verify="alongside")
    assert alongside.manifest() == before.manifest()
    assert alongside.dram_image == before.dram_image
    with pytest.raises(ValueError, match="verify='beside': pass True, False or 'alongside'"):
        emit(TWO_TILES, weights=weights, verify="beside")


# ---------------------------------------------------------------------------
# 5. The disassembler reads what the emitter wrote.
# ---------------------------------------------------------------------------

def test_disassembly(tmp_path):
    program = emit(TWO_TILES, weights={"w": rng_array((4, 4), 3)})
    text = disassemble(load_program(program.save(tmp_path / "p")))
    lines = text.splitlines()
    body = [l for l in lines if not l.startswith(";")]
    assert len(body) == program.num_instructions == 18
    assert "; tile (0,1): semaphores [3, 0], 2 token slots" in lines
    for word in ("dma", "wait", "matmul", "vector_fill", "vector_binary_imm",
                 "vector_reduce", "signal", "wait_semaphore"):
        assert any(f" {word}" in l for l in body), word


# ---------------------------------------------------------------------------
# 6. Speed work on the emitter changes no byte.
# ---------------------------------------------------------------------------

def program_digest(program, directory) -> str:
    """A hash of every file of the saved program, names included."""
    out = program.save(directory)
    h = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(out)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# Taken with the emitter as it was before its caches of view places, layouts
# and tags: a change here is a change of the program format or the emitter's
# rules, not of its speed. (Retaken when the arch gained the sin and cos
# latencies, which the manifest's arch carries, when the manifest gained
# the SHA-256 of every file, and when the arch gained
# tile.mac.weight_buffers; the streams and the image did not change. Retaken
# for format version 2, whose matmuls carry groups of rows, and when the
# arch gained its energy section: only the manifest's arch changed.)
@pytest.mark.parametrize("body, weights, digest", [
    ("ONE_TILE", {"w": rng_array((4, 4), 1)}, "bef2e16f744c0214"),
    ("TWO_TILES", {"w": rng_array((4, 4), 1)}, "4cbe9fb1adfc023f"),
    ("STRIDED", {"w": rng_array((4, 4), 5)}, "31ea1ba4ac48e30d"),
    ("RANKS", {"wb": np.array([1.0, -2.5, 1 + 2 ** -9, 3.0], np.float32)},
     "35b80d6ab81e8149"),
])
def test_emitted_bytes_are_pinned(body, weights, digest, tmp_path):
    assert program_digest(emit(globals()[body], weights=weights), tmp_path / "p") == digest


@pytest.mark.parametrize("model", ["mlp", "small_cnn"])
def test_encoded_streams_are_the_isa_tables_words(model):
    # The streams are encoded in C++; runtime/isa.py states the same layouts
    # for the decoder, the builder and the disassembler. Every instruction
    # of a compiled model, decoded and encoded again by the Python tables,
    # gives the encoder's words back.
    pytest.importorskip("torch")
    from tessel import frontend as fe
    from tessel import zoo
    from tessel.compiler import lower_to_device
    from tessel.ir import StringAttr

    module, inputs = zoo.get(model).build()
    module.eval()
    imported = fe.import_torch(module, inputs)
    device = lower_to_device(imported.mlir, "tessel-4x4", signature=imported.signature)
    with Context():
        lowered = Module.parse(device)
        placed = {StringAttr(op.attributes["sym_name"]).value
                  for op in _find_device(lowered).regions[0].blocks[0].operations
                  if op.operation.name == "tessel.dram_buffer"}
        weights = {k: v for k, v in imported.weights.items() if k in placed}
        program = emit_program(lowered, weights=weights)
    ops = set()
    for tile in program.tiles:
        instructions = isa.decode_stream(tile.stream)
        words = [isa.encode(i.op, i.fields, i.tag) for i in instructions]
        assert isa.encode_stream(words) == tile.stream, (tile.row, tile.col)
        ops.update(i.op for i in instructions)
    assert {"dma", "wait", "matmul", "vector_binary"} <= ops


def test_program_files_built_in_memory():
    # The emitter reads the writer's files in memory, their manifest without
    # digests; asked for them, the writer's digests are the ones
    # Program.save writes.
    import json

    from tessel.dialects import tessel
    from tessel.compiler import weight_data

    w = rng_array((4, 4), 1)
    with Context():
        module = parse_device(ONE_TILE)
        data = weight_data(module, {"w": w})
        device = _find_device(module)
        files = tessel.build_program(device, data)
        sealed = tessel.build_program(device, data, digests=True)
    assert sorted(files) == ["dram.bin", "manifest.json", "tiles/r0c0.bin"]
    assert "sha256" not in json.loads(files["manifest.json"])
    program = program_from_files(files)
    assert json.loads(sealed["manifest.json"]) == program.manifest()
    assert program.dram_image == files["dram.bin"]
    with pytest.raises(ProgramError, match="no manifest.json"):
        program_from_files({k: v for k, v in files.items() if k != "manifest.json"})
    with pytest.raises(ProgramError, match=r"the stream 'tiles/r0c0.bin' does not exist"):
        program_from_files({k: v for k, v in files.items() if k != "tiles/r0c0.bin"})


def test_tessel_translate_reads_weights_named_by_paths(tmp_path):
    # ONNX initializers are often named by paths: their files in --weights
    # escape '/', '%' and a leading '.', as --dump-ir writes them.
    import subprocess

    from tessel._tools import tool_path
    from tessel.compiler import weight_file_name

    name = "/layer.0/w%1"
    assert weight_file_name(name) == "%2Flayer.0%2Fw%251.bin"
    assert weight_file_name(".w") == "%2Ew.bin"
    body = ONE_TILE.replace("@w weight", f'@"{name}" weight')
    with Context():
        module = parse_device(body)
        (tmp_path / "weights").mkdir()
        w = rng_array((4, 4), 1)
        (tmp_path / "weights" / weight_file_name(name)).write_bytes(w.tobytes())
        expected = emit_program(module, weights={name: w})
        text = module.operation.get_asm(enable_debug_info=True)
    subprocess.run([tool_path("tessel-translate"), "--tessel-to-program", "--weights",
                    str(tmp_path / "weights"), "-o", str(tmp_path / "p")],
                   input=text, text=True, check=True)
    program = load_program(tmp_path / "p")
    assert program.dram_image == expected.dram_image
    assert program.manifest() == expected.manifest()


@pytest.mark.parametrize("loc, described", [
    ('loc(unknown)', None),
    ('loc("m.py":3:7)', ("m.py:3:7", "m.py:3:7")),
    ('loc("fc1"("m.py":3:7))', ("fc1", "m.py:3:7")),
    ('loc("fc1")', ("fc1", "")),
    # torch-mlir's stack: the innermost frame outside library code.
    ('loc(callsite("/x/site-packages/torch/nn/linear.py":125:0 at '
     'callsite("model.py":20:0 at "run.py":5:0)))', ("model.py:20:0", "model.py:20:0")),
    ('loc(callsite("/x/site-packages/a.py":1:0 at "/x/site-packages/b.py":2:0))',
     ("/x/site-packages/a.py:1:0", "/x/site-packages/a.py:1:0")),
    ('loc(fused["m.py":3:7, "relu"("n.py":1:1)])', ("relu", "m.py:3:7")),
    ('loc(fused[unknown, unknown])', None),
])
def test_tags_name_the_model_line(loc, described):
    from tessel.frontend.locations import describe_location

    with Context():
        module = Module.parse(f"module {{}} {loc}")
        assert describe_location(module.operation.location) == described


def test_operation_codes_are_the_dialects_enums():
    """The emitter writes each vector operation as its enum's value
    (lib/Target/Program); the simulator and the emulators read it as the
    index into tessel.runtime.isa's tables: the two orders must agree."""
    from tessel.dialects import _tessel_enum_gen as enums

    for enum, table in ((enums.VectorUnaryKind, isa.UNARY_OPS),
                        (enums.VectorBinaryKind, isa.BINARY_OPS),
                        (enums.ReductionKind, isa.REDUCE_OPS),
                        (enums.ComparePredicate, isa.PREDICATES)):
        assert [kind.name for kind in sorted(enum, key=int)] == list(table), enum
