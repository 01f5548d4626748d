"""``dma_wait_semaphore``: a DMA channel, not the core, waits for a
semaphore before the transfers queued after it. Its timing against the
closed form of docs/simulator.md, the order in which a semaphore serves its
claims, deadlock reports and checks (the emulators' results are in
test_emulator.py)."""

import numpy as np
import pytest

from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.disasm import format_instruction
from tessel.runtime.program import ProgramError
from tessel.runtime.simulator import DeadlockError, simulate
from tessel.runtime.timing import ISSUE_CYCLES


def fill_cycles(arch, n: int) -> float:
    """The cycles of a vector_fill of ``n`` f32 alone on a tile."""
    b = ProgramBuilder(arch)
    b.tile(0, 0).vector_fill("f32", 1.0, (n,), (0, (1,)))
    return simulate(b.build(), numerics=False).cycles


def credit_program(arch, on_dma: bool):
    """Tile (0,1) fills 4096 f32, then gives tile (0,0) a credit; (0,0)
    sends it 1024 f32 after the credit, and meanwhile fills 8192 f32 of
    its own (with ``on_dma``: its DMA channel waits for the credit; else
    its core does)."""
    b = ProgramBuilder(arch)
    a = b.tile(0, 0, semaphores=1, tokens=1)
    if on_dma:
        a.dma_wait_semaphore(0, 0)
    else:
        a.wait_semaphore(0)
    a.dma(0, 0, "f32", (1024,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    a.vector_fill("f32", 2.0, (8192,), (8192, (1,)))
    a.wait(0)
    r = b.tile(0, 1)
    r.vector_fill("f32", 1.0, (4096,), (0, (1,)))
    r.signal(0, 0, 0)
    return b.build()


def test_the_core_goes_on_while_its_dma_waits(make_arch):
    # The credit leaves (0,1) after its fill and the signal's issue, and
    # crosses one link; the transfer starts a DMA setup later and moves
    # 4096 bytes over one hop: T = fill + issue + hop + setup + b / rate + hop.
    a = make_arch("tessel-4x4")
    arrives = fill_cycles(a, 4096) + ISSUE_CYCLES + a.noc.hop_cycles
    rate = min(a.tile.dma.bytes_per_cycle, a.tile.sram.bytes_per_cycle,
               a.noc.link_bytes_per_cycle)
    sent = arrives + a.tile.dma.setup_cycles + 4096 / rate + a.noc.hop_cycles
    own = fill_cycles(a, 8192)
    on_dma = simulate(credit_program(a, True), numerics=False)
    # (0,0) issues the gate and the dma, then fills from cycle 2.
    assert on_dma.cycles == max(sent, 2 * ISSUE_CYCLES + own + ISSUE_CYCLES)
    assert on_dma.tiles[(0, 0)].stalls["tile"] == 0
    # The core's own wait holds its fill back until the credit (the wait's
    # issue cycle inside the stall).
    on_core = simulate(credit_program(a, False), numerics=False)
    assert on_core.tiles[(0, 0)].stalls["tile"] == arrives - ISSUE_CYCLES
    assert on_core.cycles == arrives + ISSUE_CYCLES + own + ISSUE_CYCLES
    assert on_dma.cycles < on_core.cycles


def test_transfers_queued_behind_a_gate_wait_and_other_channels_do_not(make_arch):
    a = make_arch("tessel-4x4")
    b = ProgramBuilder(a)
    t = b.tile(0, 0, semaphores=1, tokens=2)
    t.dma_wait_semaphore(0, 0)
    t.dma(0, 0, "f32", (256,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.dma(1, 1, "f32", (256,), sram(0, (1,)), sram(4096, (1,), tile=(0, 1)))
    t.wait(1)
    t.wait(0)
    r = b.tile(0, 1)
    r.vector_fill("f32", 1.0, (4096,), (8192, (1,)))
    r.signal(0, 0, 0)
    got = simulate(b.build(), numerics=False, trace=True)
    # The trace draws DMA channel c of a tile as its thread 10 + c.
    dmas = sorted((e["tid"] - 10, e["ts"]) for e in got.trace_events
                  if e.get("ph") == "X" and e["name"].startswith("dma ("))
    (ch0, start0), (ch1, start1) = dmas
    assert (ch0, ch1) == (0, 1)
    assert start1 < start0                  # channel 1 did not wait
    clock = a.clock_mhz
    assert start0 * clock >= fill_cycles(a, 4096) + a.noc.hop_cycles


def test_a_semaphore_serves_its_claims_in_issue_order(make_arch):
    # The gate asks 2, the core's wait after it 1; one signal of 1 arrives.
    # The core may not take it ahead of the gate: the program deadlocks,
    # and the report says the core waits behind the DMA's claim.
    b = ProgramBuilder(make_arch("tessel-4x4"))
    t = b.tile(0, 0, semaphores=1, tokens=1)
    t.dma_wait_semaphore(0, 0, 2)
    t.dma(0, 0, "f32", (16,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.wait_semaphore(0, 1)
    t.signal(0, 1, 0)
    o = b.tile(0, 1, semaphores=1)
    o.signal(0, 0, 0)
    o.wait_semaphore(0)
    with pytest.raises(DeadlockError) as info:
        simulate(b.build(), numerics=False)
    msg = str(info.value)
    assert "DMA channel 0 of tile (0, 0) at offset 16" in msg
    assert "dma_wait_semaphore ch0 sem0 2" in msg
    assert "semaphore 0 to hold 2; it holds 1" in msg
    assert "tile (0, 0) at offset" in msg and "waits behind the DMA's claim at offset 16" in msg
    assert info.value.waiting[0]["channel"] == 0
    # With a second signal the gate takes 2 and the core waits forever for
    # a third: served in order, never the core first.
    b2 = ProgramBuilder(make_arch("tessel-4x4"))
    t = b2.tile(0, 0, semaphores=1, tokens=1)
    t.dma_wait_semaphore(0, 0, 2)
    t.dma(0, 0, "f32", (16,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.wait_semaphore(0, 1)
    o = b2.tile(0, 1)
    o.signal(0, 0, 0, 2)
    with pytest.raises(DeadlockError, match="semaphore 0 to hold 1; it holds 0"):
        simulate(b2.build(), numerics=False)


def test_a_gate_nobody_signals_is_a_deadlock_even_when_every_core_ended(make_arch):
    b = ProgramBuilder(make_arch("tessel-4x4"))
    t = b.tile(1, 1, semaphores=1, tokens=1)
    t.dma_wait_semaphore(1, 0)
    t.dma(1, 0, "f32", (16,), sram(0, (1,)), sram(64, (1,)))
    with pytest.raises(DeadlockError) as info:
        simulate(b.build(), numerics=False)
    msg = str(info.value)
    assert "DMA channel 1 of tile (1, 1) at offset 16" in msg
    assert "no instruction of the program signals it" in msg


def test_a_gates_channel_and_semaphore_are_checked(make_arch):
    a = make_arch("tessel-4x4")
    b = ProgramBuilder(a)
    b.tile(0, 0, semaphores=1).dma_wait_semaphore(a.tile.dma.channels, 0)
    with pytest.raises(ProgramError) as info:
        b.build()
    assert info.value.field == "channel"
    assert f"not below the arch's {a.tile.dma.channels} DMA channels" in str(info.value)
    b = ProgramBuilder(a)
    b.tile(0, 0, semaphores=1).dma_wait_semaphore(0, 1)
    with pytest.raises(ProgramError, match="semaphore 1 does not exist: the tile has 1"):
        b.build()


def handover_program(arch):
    """Tile (0,1) writes 7s into its buffer and stores them as ``y0``, then
    gives (0,0) the credit that the buffer is free; (0,0)'s DMA waits for
    it and overwrites the buffer with ``x``, and (0,0) signals the delivery,
    after which (0,1) stores the buffer as ``y1``."""
    b = ProgramBuilder(arch)
    x = b.add_buffer("x", "input", (256,), "f32")
    y0 = b.add_buffer("y0", "output", (256,), "f32")
    y1 = b.add_buffer("y1", "output", (256,), "f32")
    a = b.tile(0, 0, semaphores=1, tokens=1)
    a.dma(0, 0, "f32", (256,), dram(x.offset, (1,)), sram(0, (1,)))
    a.wait(0)
    a.dma_wait_semaphore(0, 0)
    a.dma(0, 0, "f32", (256,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    a.signal(0, 1, 0)
    a.vector_fill("f32", 3.0, (4096,), (4096, (1,)))
    a.wait(0)
    r = b.tile(0, 1, semaphores=1, tokens=1)
    r.vector_fill("f32", 7.0, (256,), (0, (1,)))
    r.dma(0, 0, "f32", (256,), sram(0, (1,)), dram(y0.offset, (1,)))
    r.wait(0)
    r.signal(0, 0, 0)
    r.wait_semaphore(0)
    r.dma(0, 0, "f32", (256,), sram(0, (1,)), dram(y1.offset, (1,)))
    r.wait(0)
    return b.build()


def test_the_credit_orders_the_buffers_two_uses(make_arch):
    # Every executor, against these bits: test_emulator.py.
    program = handover_program(make_arch("tessel-4x4"))
    x = np.arange(256, dtype=np.float32) - 100.5
    got = simulate(program, {"x": x}).outputs
    np.testing.assert_array_equal(got["y0"], np.full(256, 7.0, np.float32))
    np.testing.assert_array_equal(got["y1"], x)


def test_disassembly():
    b = ProgramBuilder("tessel-4x4")
    b.tile(0, 0, semaphores=3).dma_wait_semaphore(1, 2, 4)
    (ins,) = b.build().decoded()[(0, 0)]
    assert format_instruction(ins) == "dma_wait_semaphore ch1 sem2 4"
