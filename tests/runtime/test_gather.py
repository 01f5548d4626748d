"""Indices: dma_gather picks rows (or elements) of a DRAM table by indices in
SRAM, the same bits on every executor, an index outside the table an error
on each, timed as a dma of the gathered bytes; a cast writes an index found
in f32 as i64 (docs/isa.md, docs/simulator.md)."""

import numpy as np
import pytest

from conftest import arch_with
from test_emulator import EXECUTORS, assert_same_bytes, host_kernel, run_on  # noqa: F401

from tessel.runtime import isa
from tessel.runtime.disasm import format_instruction
from tessel.runtime.emulator import EmulationError
from tessel.runtime.program import ProgramError
from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.simulator import SimulationError, simulate

ARCH = arch_with()
VOCAB, DIM = 10, 4


def embedding_program(index_dtype: str = "i64", ids_shape=(2, 3), wrap: bool = False):
    """out[b, s, :] = table[ids[b, s], :]: the index view repeats each id
    along the row (stride 0), the table view walks the row (stride 1)."""
    b = ProgramBuilder(ARCH)
    table = b.add_buffer("table", "input", (VOCAB, DIM), "f32")
    ids = b.add_buffer("ids", "input", ids_shape, index_dtype)
    out = b.add_buffer("out", "output", ids_shape + (DIM,), "f32")
    tag = b.add_tag("embedding", op="linalg.generic", loc="model.py:7:0")
    t = b.tile(0, 0, tokens=1)
    n, s = ids_shape
    t.dma(0, 0, index_dtype, (n * s,), dram(ids.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    rows = -(-n * s * isa.DTYPE_SIZE[index_dtype] // 256) * 256
    t.dma_gather(0, 0, "f32", (n, s, DIM), (table.offset, (0, 0, 1)), index_dtype,
                 (0, (s, 1, 0)), DIM, VOCAB, (rows, (s * DIM, DIM, 1)), wrap=wrap,
                 tag=tag)
    t.wait(0)
    t.dma(0, 0, "f32", (n * s * DIM,), sram(rows, (1,)), dram(out.offset, (1,)))
    t.wait(0)
    return b.build()


def embedding_inputs(index_dtype: str = "i64"):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    ids = np.array([[3, 0, 9], [9, 1, 3]], dtype=np.dtype(index_dtype.replace("i", "int")))
    return table, ids


@pytest.mark.parametrize("index_dtype", ["i64", "i32"])
@pytest.mark.parametrize("executor", EXECUTORS + ["kernel-64"])
def test_embedding_rows_match_numpy_on_every_executor(executor, index_dtype, host_kernel):
    table, ids = embedding_inputs(index_dtype)
    program = embedding_program(index_dtype)
    want = simulate(program, {"table": table, "ids": ids}).outputs
    assert np.array_equal(want["out"], table[ids])
    got = run_on(executor, program, {"table": table, "ids": ids}, host_kernel)
    assert_same_bytes(got, want)


@pytest.mark.parametrize("executor", ["simulator"] + EXECUTORS)
def test_negative_indices_count_from_the_end_with_wrap(executor, host_kernel):
    # PyTorch's x[ids]: -1 is the last row, -10 the first; -11 is outside.
    table, ids = embedding_inputs()
    ids[0, 0], ids[1, 1] = -1, -10
    program = embedding_program(wrap=True)
    inputs = {"table": table, "ids": ids}
    run = ((lambda: simulate(program, inputs).outputs) if executor == "simulator"
           else (lambda: run_on(executor, program, inputs, host_kernel)))
    assert np.array_equal(run()["out"], table[ids])
    ids[1, 2] = -11
    with pytest.raises(SimulationError, match=r"index -11 at position \(1, 2, 0\) is "
                       r"outside \[-10, 10\)" if executor != "kernel" else "outside"):
        run()


@pytest.mark.parametrize("executor", EXECUTORS)
def test_element_gather_along_the_last_dimension(executor, host_kernel):
    # torch.gather(x, 1, idx): out[i, j] = x[i, idx[i, j]]; the table view
    # walks the rows (stride 5), the index picks the element (stride 1).
    b = ProgramBuilder(ARCH)
    x = b.add_buffer("x", "input", (3, 5), "f32")
    idx = b.add_buffer("idx", "input", (3, 2), "i64")
    out = b.add_buffer("out", "output", (3, 2), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "i64", (6,), dram(idx.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.dma_gather(0, 0, "f32", (3, 2), (x.offset, (5, 0)), "i64", (0, (2, 1)), 1, 5,
                 (64, (2, 1)))
    t.wait(0)
    t.dma(0, 0, "f32", (6,), sram(64, (1,)), dram(out.offset, (1,)))
    t.wait(0)
    program = b.build()
    xs = np.arange(15, dtype=np.float32).reshape(3, 5)
    ids = np.array([[4, 0], [1, 1], [3, 2]], np.int64)
    got = run_on(executor, program, {"x": xs, "idx": ids}, host_kernel)
    assert np.array_equal(got["out"], np.take_along_axis(xs, ids, 1))


@pytest.mark.parametrize("bad", [10, -1])
@pytest.mark.parametrize("executor", ["simulator"] + EXECUTORS)
def test_an_index_outside_the_table_is_an_error_never_a_wild_read(executor, bad,
                                                                  host_kernel):
    table, ids = embedding_inputs()
    ids[1, 2] = bad
    program = embedding_program()
    inputs = {"table": table, "ids": ids}
    if executor == "simulator":
        with pytest.raises(SimulationError) as e:
            simulate(program, inputs)
    else:
        with pytest.raises(EmulationError) as e:
            run_on(executor, program, inputs, host_kernel)
    if executor != "kernel":     # the host kernel only knows that one was met
        message = str(e.value)
        assert f"index {bad} at position (1, 2, 0) is outside [0, 10)" in message
        assert "tile (0, 0)" in message and "dma_gather" in message
        assert "the linalg.generic 'embedding' at model.py:7:0" in message


def test_gather_is_timed_as_a_dma_of_the_gathered_bytes():
    # Alone on its resources, from the tile at the DRAM channel:
    # T = setup + b / min(dma, dram, sram) + dram_latency after the ids' dma.
    program = embedding_program(ids_shape=(8, 64))
    r = simulate(program, numerics=False)
    a = ARCH
    rate = min(a.tile.dma.bytes_per_cycle, a.dram.bytes_per_cycle,
               a.tile.sram.bytes_per_cycle)
    setup, latency = a.tile.dma.setup_cycles, a.dram.latency_cycles
    transfers = [(8 * 64 * 8), (8 * 64 * DIM * 4), (8 * 64 * DIM * 4)]
    assert r.cycles == sum(setup + b / rate + latency for b in transfers)
    assert r.bytes["dram_read"] == transfers[0] + transfers[1]
    assert r.bytes["dram_write"] == transfers[2]


def test_the_validator_checks_every_row_the_indices_may_reach():
    b = ProgramBuilder(ARCH)
    table = b.add_buffer("table", "input", (VOCAB, DIM), "f32")
    t = b.tile(0, 0, tokens=1)
    # 100 rows of the last buffer, 10 rows long: rows past DRAM's end.
    t.dma_gather(0, 0, "f32", (4, DIM), (table.offset, (0, 1)), "i64", (0, (1, 0)),
                 DIM, 100, (256, (DIM, 1)))
    t.wait(0)
    with pytest.raises(ProgramError, match=r"table: dma_gather: view reaches bytes "
                       r"\[0, 1600\), outside \[0, 192\)"):
        b.build()
    b = ProgramBuilder(ARCH)
    b.add_buffer("table", "input", (VOCAB, DIM), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma_gather(0, 0, "f32", (4,), (0, (0,)), "f32", (0, (1,)), DIM, VOCAB,
                 (256, (1,)))
    with pytest.raises(ProgramError, match="index_dtype f32 is not one of i32, i64"):
        b.build()


def test_gather_round_trips_through_the_stream_and_disassembles():
    program = embedding_program()
    gather = [ins for ins in program.instructions(0, 0) if ins.op == "dma_gather"][0]
    words = isa.encode(gather.op, gather.fields, gather.tag)
    assert len(words) == 15 + 4 * 3
    assert isa.decode_instruction(words, 0, 0).fields == gather.fields
    assert format_instruction(gather) == (
        f"dma_gather ch0 tok0 f32 [2x3x4] dram@0x{gather['table'].base:x}(0,0,1) "
        "+ 4 * i64@0x0(3,1,0) < 10 -> @0x100(12,4,1)")
    wrapped = [ins for ins in embedding_program(wrap=True).instructions(0, 0)
               if ins.op == "dma_gather"][0]
    assert "< 10 wrap -> " in format_instruction(wrapped)


@pytest.mark.parametrize("executor", EXECUTORS + ["kernel-64"])
def test_a_cast_writes_an_i64_index_found_in_f32(executor, host_kernel):
    # Nearest even, saturated, NaN to 0, as every cast to an integer.
    b = ProgramBuilder(ARCH)
    x = b.add_buffer("x", "input", (8,), "f32")
    y = b.add_buffer("y", "output", (8,), "i64")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (8,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.vector_unary("cast", "f32", "i64", (8,), (0, (1,)), (64, (1,)))
    t.dma(0, 0, "i64", (8,), sram(64, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    program = b.build()
    xs = np.array([0, 3, 2.5, -1.5, 7e18, 1e30, -1e30, np.nan], np.float32)
    want = [0, 3, 2, -2, int(np.float32(7e18)), 2 ** 63 - 1, -2 ** 63, 0]
    assert simulate(program, {"x": xs}).outputs["y"].tolist() == want
    assert run_on(executor, program, {"x": xs}, host_kernel)["y"].tolist() == want


def test_the_vector_unit_computes_on_i64_where_the_arch_says_so():
    # The presets' vector units take i64; an arch whose vector unit lacks it
    # still casts into it (argmax's position), and computes nothing else.
    no_ints = arch_with(**{"tile.vector.dtypes": ["f32"]})
    b = ProgramBuilder(no_ints)
    t = b.tile(0, 0, tokens=1)
    t.vector_unary("cast", "f32", "i64", (8,), (0, (1,)), (64, (1,)))
    b.build()
    t.vector_binary("add", "i64", (8,), (64, (1,)), (64, (1,)), (128, (1,)))
    with pytest.raises(ProgramError, match="the vector unit does not support i64 "
                       r"\(it has f32\)"):
        b.build()
    assert "i64" in ARCH.tile.vector.dtypes
