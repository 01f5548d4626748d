"""Speed work on the simulator must not change a single figure. Each program
here is pinned by a digest of everything a run reports: cycles, end time,
event count, every field of every tile's and tag's statistics, bytes, the
trace, and the bits of the outputs. The digests were taken before the event
loop was rewritten for speed; a deliberate change to the timing model updates
them together with docs/simulator.md. The programs run with one weight
buffer in the MAC array (the model the digests were taken with; two are
timed by test_timing and test_bench_programs).

Besides the two programs of bench/simulator.py, seeded random programs on
tessel-4x4 exercise what the bench programs do not: transfers between tiles
that contend for links and SRAM ports with DRAM traffic, several transfers
queued on one channel, signals that must wait for earlier transfers, rings of
semaphores, and compute interleaved with all of it."""

import hashlib
import json

import numpy as np
import pytest

from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.simulator import simulate

F32 = 4


def digest(result) -> str:
    """A hash of every figure of a result (floats by repr: exact)."""
    tiles = [(rc, s.busy, s.mac, s.vector, s.control, sorted(s.stalls.items()),
              s.idle, s.finished_at, s.instructions, s.macs, s.mac_peak_cycles)
             for rc, s in sorted(result.tiles.items())]
    tags = [(name, t.instructions, t.busy, t.stall, t.macs, t.dram_bytes,
             t.noc_bytes, t.first, t.last) for name, t in result.tags.items()]
    outputs = [(name, hashlib.sha256(a.tobytes()).hexdigest())
               for name, a in sorted(result.outputs.items())]
    trace = (hashlib.sha256(json.dumps(result.trace_events).encode()).hexdigest()
             if result.trace_events is not None else None)
    text = repr((result.cycles, result.end_time, result.events, result.instructions,
                 tiles, tags, sorted(result.bytes.items()), result.mac_utilization,
                 outputs, trace))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def random_program(seed: int, phases: int = 3, ops_per_phase: int = 24):
    """A seeded multi-tile program on tessel-4x4. Each phase, every tile
    issues a random mix of DRAM loads, stores and transfers into other tiles'
    SRAM (its own inbox slot there), compute on its SRAM, and one signal to
    the next tile in a ring that it later waits for from the previous one
    (signal before wait, so the ring cannot deadlock); a barrier on tile
    (0,0) closes the phase."""
    rng = np.random.default_rng(seed)
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (256, 64), "f32")
    tiles = [(r, c) for r in range(4) for c in range(4)]
    y = b.add_buffer("y", "output", (len(tiles), 32, 32), "f32")
    tags = [b.add_tag(f"op{i}", op="linalg.generic") for i in range(3)]
    tokens = 4
    streams = {rc: b.tile(*rc, semaphores=3, tokens=tokens) for rc in tiles}
    LOAD, INBOX, WORK = 0, 64 * 1024, 128 * 1024     # SRAM regions (bytes)

    for _ in range(phases):
        for i, rc in enumerate(tiles):
            t = streams[rc]
            pending: list[int] = []
            ring_signal = int(rng.integers(0, ops_per_phase))
            ring_wait = int(rng.integers(ring_signal, ops_per_phase)) + 1
            right = tiles[(i + 1) % len(tiles)]

            def token() -> int:
                free = [k for k in range(tokens) if k not in pending]
                if not free:
                    t.wait(pending.pop(0))
                    free = [k for k in range(tokens) if k not in pending]
                pending.append(free[0])
                return free[0]

            for step in range(ops_per_phase + 2):
                if step == ring_signal:
                    t.signal(*right, 2)
                if step == ring_wait:
                    t.wait_semaphore(2)
                t.default_tag = tags[int(rng.integers(0, len(tags)))]
                what = rng.random()
                ch = int(rng.integers(0, 2))
                if what < 0.3:
                    rows = int(rng.choice([4, 16, 64]))
                    r0 = int(rng.integers(0, 256 - rows + 1))
                    t.dma(ch, token(), "f32", (rows, 64),
                          dram(x.offset + r0 * 64 * F32, (64, 1)), sram(LOAD, (64, 1)))
                elif what < 0.55:
                    other = tiles[int(rng.integers(0, len(tiles)))]
                    n = int(rng.choice([16, 64, 256]))
                    t.dma(ch, token(), "f32", (n,), sram(LOAD, (1,)),
                          sram(INBOX + i * 1024, (1,), tile=other))
                elif what < 0.65:
                    t.dma(ch, token(), "f32", (32, 32), sram(WORK, (32, 1)),
                          dram(y.offset + i * 32 * 32 * F32, (32, 1)))
                elif what < 0.75:
                    t.matmul("f32", 16, 16, 16, (LOAD, (64, 1)), (INBOX, (16, 1)),
                             (WORK, (32, 1)))
                elif what < 0.85:
                    t.vector_binary("add", "f32", (32, 32), (WORK, (32, 1)),
                                    (LOAD, (64, 1)), (WORK, (32, 1)))
                elif what < 0.9:
                    t.vector_fill("f32", float(rng.integers(0, 3)), (32, 32),
                                  (WORK, (32, 1)))
                elif pending:
                    t.wait(pending.pop(int(rng.integers(0, len(pending)))))
            if pending:
                t.wait(pending)
        for rc in tiles:
            streams[rc].signal(0, 0, 0)
        root = streams[(0, 0)]
        root.wait_semaphore(0, len(tiles))
        for rc in tiles:
            root.signal(*rc, 1)
        for rc in tiles:
            streams[rc].wait_semaphore(1)
    program = b.build()
    inputs = {"x": np.float32(rng.standard_normal((256, 64)))}
    return program, inputs


# (numerics, trace) -> digest, per program.
PINNED = {
    "conv": {
        (False, False): "49bbc40cd616c945",
        (False, True): "8555a24213389502",
        (True, False): "2b0d6ba154ec8e8a",
    },
    "bert": {
        (False, False): "a8d45aa62fe2abd7",
        (False, True): "1105991655c32d07",
    },
    "random0": {
        (False, False): "c8ed534a8bb71466",
        (False, True): "6e49b0b16228c338",
        (True, False): "5b7c202b39373ae2",
    },
    "random1": {
        (False, False): "a9e2529fb663d07f",
        (False, True): "af6baa2f8db93f13",
        (True, False): "3d73f9d33b8ca539",
    },
    "random2": {
        (False, False): "c250e95c35a87c68",
        (False, True): "9d15cd5c02daf4c2",
        (True, False): "bf534c4e98808405",
    },
}


def program_and_inputs(bench, name):
    if name == "conv":
        program = bench.conv_program()[0]
        return program, bench.conv_inputs(program)
    if name == "bert":
        program = bench.bert_program()[0]
        return program, {"x": np.float32(
            np.random.default_rng(3).standard_normal((128, 768)))}
    return random_program(int(name[len("random"):]))


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_figure_is_pinned(bench, set_weight_buffers, name):
    program, inputs = program_and_inputs(bench, name)
    program = set_weight_buffers(program, 1)
    got = {(numerics, trace): digest(simulate(program, inputs if numerics else None,
                                              numerics=numerics, trace=trace))
           for numerics, trace in PINNED[name]}
    assert got == PINNED[name]


def test_random_programs_contend_and_synchronize():
    # What the random programs are for: transfers between tiles, stalls of
    # every cause, and more than one transfer in flight per link.
    program, inputs = random_program(0)
    r = simulate(program, numerics=False)
    assert r.bytes["noc"] > 0 and r.bytes["dram"] > 0
    stalls = {cause for s in r.tiles.values() for cause, v in s.stalls.items() if v}
    assert {"dram", "noc", "tile"} <= stalls
    assert r.bytes["noc_link"] > r.bytes["noc"]
