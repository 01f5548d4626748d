"""The timing model against the closed forms of docs/simulator.md. Every
figure below is a sum of integers and of byte counts divided by powers of two,
so the simulator's float times are exact and the checks are equalities."""

import pytest

from tessel.runtime.program import ProgramBuilder, dram, sram
from tessel.runtime.simulator import matmul_cycles, simulate



def run(b):
    return simulate(b.build(), numerics=False)




@pytest.fixture(autouse=True)
def _arch(make_arch):
    global ARCH
    ARCH = make_arch


def test_single_matmul_block_is_compute_bound():
    # systolic-32x32, weight-stationary, bf16: T = K + (K + N - 1) + M when
    # the SRAM port keeps up: (M*K + K*N)*2 + M*N*4 bytes <= M * 256.
    b = ProgramBuilder("systolic-32x32")
    t = b.tile(0, 0)
    m, k, n = 256, 32, 32
    t.matmul("bf16", m, k, n, (0, (k, 1)), (65536, (n, 1)), (131072, (n, 1)))
    r = run(b)
    assert (m * k + k * n) * 2 + m * n * 4 <= m * 256
    assert r.cycles == k + (k + n - 1) + m == 351
    s = r.tiles[(0, 0)]
    assert s.mac == 351 and s.busy == 351 and s.idle == 0
    assert r.mac_utilization == pytest.approx(m * k * n / 1024 / 351)


def test_matmul_sram_bound_and_output_stationary():
    a = ARCH("systolic-32x32")
    # f32, N = 32: (M*K + K*N + M*N) * 4 / 256 cycles of port exceed M steps.
    c, nbytes = matmul_cycles(a, "f32", 256, 32, 32)
    assert nbytes == (256 * 32 + 32 * 32 + 256 * 32) * 4
    assert c == 32 + 63 + nbytes // 256
    os_arch = ARCH("tessel-4x4", **{"tile.mac.dataflow": "output_stationary"})
    # OS: skew M + N - 2, then max(K steps, port cycles), M rows drained.
    c, nbytes = matmul_cycles(os_arch, "bf16", 16, 64, 16)
    assert nbytes == (16 * 64 + 64 * 16) * 2 + 16 * 16 * 4
    assert c == 30 + max(64, nbytes // 64) + 16


def test_dram_bound_copy():
    # DRAM channel 8 B/cycle, DMA 32 B/cycle: T = setup + B / 8 + latency.
    a = ARCH("tessel-4x4", **{"dram.bytes_per_cycle": 8})
    b = ProgramBuilder(a)
    x = b.add_buffer("x", "input", (4096,), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (4096,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    r = run(b)
    assert r.cycles == 20 + 16384 // 8 + 100
    assert r.tiles[(0, 0)].stalls["dram"] == r.cycles - 2
    assert r.bytes["dram_read"] == 16384


def test_dram_transfer_crosses_the_noc_from_the_nearest_channel():
    # Tile (1,1): nearest channel attaches at (0,0), 2 hops away.
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (1024,), "f32")
    t = b.tile(1, 1, tokens=1)
    t.dma(0, 0, "f32", (1024,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    r = run(b)
    assert r.cycles == 20 + 4096 // 32 + 100 + 2 * 2
    assert r.bytes["noc_link"] == 2 * 4096


@pytest.mark.parametrize("dst, hops", [((0, 1), 1), ((0, 2), 2), ((0, 3), 3),
                                       ((3, 3), 6), ((2, 1), 3)])
def test_noc_transfer_over_k_hops(dst, hops):
    # T = setup + B / min(dma, link) + hops * hop_cycles
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (2048,), sram(0, (1,)), sram(0, (1,), tile=dst))
    t.wait(0)
    r = run(b)
    assert r.cycles == 20 + 8192 // 32 + hops * 2
    assert r.bytes["noc"] == 8192 and r.bytes["noc_link"] == 8192 * hops
    assert r.tiles[(0, 0)].stalls["noc"] == r.cycles - 2


@pytest.mark.parametrize("b1, b2", [(8192, 8192), (4096, 8192)])
def test_two_transfers_contending_for_one_link(b1, b2):
    # (0,0)->(0,2) and (0,1)->(0,3) share the link (0,1)->(0,2): 16 B/cycle
    # each while both run; the longer one then has the link alone.
    b = ProgramBuilder("tessel-4x4")
    for (r, c), nbytes in (((0, 0), b1), ((0, 1), b2)):
        t = b.tile(r, c, tokens=1)
        t.dma(0, 0, "f32", (nbytes // 4,), sram(0, (1,)), sram(0, (1,), tile=(r, c + 2)))
        t.wait(0)
    res = run(b)
    short, long_ = min(b1, b2), max(b1, b2)
    shared = short / 16
    end_long = 20 + shared + (long_ - short) / 32 + 2 * 2
    assert res.cycles == end_long
    assert res.tiles[(0, 0) if b1 <= b2 else (0, 1)].finished_at == 20 + shared + 4


def test_transfers_on_one_dma_channel_run_one_after_the_other():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=2)
    for tok in (0, 1):
        t.dma(0, tok, "f32", (256,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.wait(0, 1)
    one = 20 + 1024 / 32 + 2
    assert run(b).cycles == 2 * one
    # On two channels they overlap (each channel 32 B/cycle, the link shared).
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=2)
    for tok in (0, 1):
        t.dma(tok, tok, "f32", (256,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.wait(0, 1)
    # Starts at 20 and 21; 1 cycle alone (32 B), then 16 B/cycle each.
    first_end = 21 + (1024 - 32) / 16
    assert run(b).cycles == first_end + 32 / 32 + 2


def test_signal_latency_and_vector_timing():
    # A signals B three hops away: the message leaves after A's issue cycle
    # and B goes on when it arrives, at 1 + 3 * hop_cycles.
    b = ProgramBuilder("tessel-4x4")
    b.tile(0, 0).signal(1, 2, 0)
    tb = b.tile(1, 2, semaphores=1)
    tb.wait_semaphore(0)
    # vector add of 1000 f32: latency 2 + max(ceil(1000/16), ceil(12000/64)).
    tb.vector_binary("add", "f32", (1000,), (0, (1,)), (4096, (1,)), (8192, (1,)))
    r = run(b)
    assert r.cycles == (1 + 3 * 2) + 2 + max(63, 188)
    assert r.tiles[(1, 2)].stalls["tile"] == 1 + 6 - 1


def test_signal_waits_for_earlier_transfers_to_its_tile():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (1024,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.signal(0, 1, 0)
    b.tile(0, 1, semaphores=1).wait_semaphore(0)
    r = run(b)
    done = 20 + 4096 / 32 + 2
    assert r.tiles[(0, 1)].finished_at == done + 2      # + 1 hop for the message
