"""The timing model against the closed forms of docs/simulator.md. Every
figure below is a sum of integers and of byte counts divided by powers of two,
so the simulator's float times are exact and the checks are equalities."""

import pytest

from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.simulator import simulate
from tessel.runtime.timing import matmul_cycles



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
    os_arch = ARCH("tessel-4x4", **{"tile.mac.dataflow": "output_stationary",
                                    "tile.mac.weight_buffers": 1})
    # OS: skew M + N - 2, then max(K steps, port cycles), M rows drained.
    c, nbytes = matmul_cycles(os_arch, "bf16", 16, 64, 16)
    assert nbytes == (16 * 64 + 64 * 16) * 2 + 16 * 16 * 4
    assert c == 30 + max(64, nbytes // 64) + 16


def _matmuls(b, t, blocks):
    """Back-to-back matmul blocks (dtype, m, k, n) on tile t, operands at
    disjoint SRAM addresses."""
    for dtype, m, k, n in blocks:
        t.matmul(dtype, m, k, n, (0, (k, 1)), (65536, (n, 1)), (131072, (n, 1)))


def test_double_buffered_weights_hide_fill_and_drain_between_blocks():
    # systolic-32x32 (2 weight buffers), bf16, compute bound: one block is
    # K + (K + N - 1) + M; the next block's weights shift in during the
    # current block's M streaming steps and its rows follow the current
    # block's, so r blocks take K + r * M + (K + N - 1).
    a = ARCH("systolic-32x32")
    assert a.tile.mac.weight_buffers == 2
    m, k, n, r = 256, 32, 32, 4
    b = ProgramBuilder(a)
    _matmuls(b, b.tile(0, 0), [("bf16", m, k, n)] * r)
    res = run(b)
    assert res.cycles == k + r * m + (k + n - 1) == 1119
    assert res.tiles[(0, 0)].mac == res.cycles
    # One buffer: every block pays its own fill and drain.
    single = ARCH("systolic-32x32", **{"tile.mac.weight_buffers": 1})
    b = ProgramBuilder(single)
    _matmuls(b, b.tile(0, 0), [("bf16", m, k, n)] * r)
    assert run(b).cycles == r * (k + (k + n - 1) + m) == 1404


def test_double_buffered_fill_longer_than_the_stream_shows():
    # M = 8 rows stream in 8 steps, shorter than the next block's fill of
    # K = 32 rows: each later block pays the part of its fill its
    # predecessor's stream does not hide. SRAM port:
    # (8*32 + 32*32)*2 + 8*32*4 = 3584 bytes / 256 = 14 cycles > 8 steps,
    # so the stream is 14 cycles and 18 of each later fill show.
    a = ARCH("systolic-32x32")
    m, k, n, r = 8, 32, 32, 3
    stream = ((m * k + k * n) * 2 + m * n * 4) // 256
    assert stream == 14
    b = ProgramBuilder(a)
    _matmuls(b, b.tile(0, 0), [("bf16", m, k, n)] * r)
    assert run(b).cycles == (k + stream) + (r - 1) * k + (k + n - 1) == 173


def test_a_run_of_blocks_ends_with_its_longest_drain():
    # A block with a long drain (N = 32: K + N - 1 = 63) followed by a
    # short one whose stream and drain end first (K = 4, N = 1, M = 8:
    # drain 4, stream 8): the run ends when the first block's results
    # leave, 63 cycles after its stream, charged to the last block.
    a = ARCH("systolic-32x32")
    b = ProgramBuilder(a)
    _matmuls(b, b.tile(0, 0), [("bf16", 256, 32, 32), ("bf16", 8, 4, 1)])
    first_end = 32 + 256
    second_end = first_end + 8
    assert second_end + 4 < first_end + 63
    assert run(b).cycles == first_end + 63 == 351


def test_an_instruction_between_matmuls_ends_the_run():
    # A vector instruction between two blocks: each block is a run of
    # its own and pays its fill and drain.
    a = ARCH("systolic-32x32")
    m, k, n = 256, 32, 32
    b = ProgramBuilder(a)
    t = b.tile(0, 0)
    _matmuls(b, t, [("bf16", m, k, n)])
    t.vector_fill("f32", 1.0, (32,), (200000, (1,)))
    _matmuls(b, t, [("bf16", m, k, n)])
    one = k + (k + n - 1) + m
    fill = a.tile.vector.latency["add"] + 1
    assert run(b).cycles == 2 * one + fill


def _two_runs_around_a_load(a, wait: bool):
    """Two runs of two 256 x 32 x 32 bf16 blocks; between them a load from
    DRAM (issued, and if ``wait`` waited on)."""
    m, k, n = 256, 32, 32
    b = ProgramBuilder(a)
    x = b.add_buffer("x", "input", (4096,), "f32")
    t = b.tile(0, 0, tokens=1)
    _matmuls(b, t, [("bf16", m, k, n)] * 2)
    t.dma(0, 0, "f32", (4096,), dram(x.offset, (1,)), sram(300000, (1,)))
    if wait:
        t.wait(0)
    _matmuls(b, t, [("bf16", m, k, n)] * 2)
    return run(b)


def test_a_run_goes_on_across_control_instructions_that_do_not_stall():
    # The dma is issued between the runs and nothing waits on it: the array
    # never empties, the second run saves the first one's drain (K + N - 1)
    # and its own fill (K, hidden by the last stream of M): one run of four
    # blocks plus the dma's issue cycle.
    a = ARCH("systolic-32x32")
    m, k, n = 256, 32, 32
    res = _two_runs_around_a_load(a, wait=False)
    apart = 2 * (k + 2 * m + (k + n - 1)) + 1
    assert res.cycles == k + 4 * m + (k + n - 1) + 1 == apart - 95 == 1120
    assert res.tiles[(0, 0)].mac == 1119 and res.tiles[(0, 0)].busy == 1120
    # One weight buffer: every block pays its own fill and drain.
    single = _two_runs_around_a_load(
        ARCH("systolic-32x32", **{"tile.mac.weight_buffers": 1}), wait=False)
    assert single.tiles[(0, 0)].mac == 4 * (k + (k + n - 1) + m)


def test_a_stall_between_runs_ends_the_run():
    # Waiting on the load stalls the tile until it lands: the array
    # empties, and the second run pays its fill and drain again.
    a = ARCH("systolic-32x32")
    m, k, n = 256, 32, 32
    res = _two_runs_around_a_load(a, wait=True)
    one_run = k + 2 * m + (k + n - 1)
    load = 20 + 16384 / a.dram.bytes_per_cycle + a.dram.latency_cycles
    # The dma issued at the first run's end, the second run from its landing.
    assert res.cycles == one_run + load + one_run == 1590
    assert res.tiles[(0, 0)].mac == 2 * one_run


def test_matmul_init_times_as_matmul_and_continues_the_run():
    # Starting the sums at zero changes no timing: a matmul_init among
    # matmuls is one more block of the run.
    a = ARCH("systolic-32x32")
    m, k, n = 256, 32, 32
    times = []
    for init in (False, True):
        b = ProgramBuilder(a)
        t = b.tile(0, 0)
        _matmuls(b, t, [("bf16", m, k, n)])
        t.matmul("bf16", m, k, n, (0, (k, 1)), (65536, (n, 1)), (131072, (n, 1)),
                 init=init)
        _matmuls(b, t, [("bf16", m, k, n)])
        times.append(run(b).cycles)
    assert times[0] == times[1] == k + 3 * m + (k + n - 1)


def test_groups_of_rows_time_as_their_rows():
    # A matmul of g groups of m rows streams g * m rows: the cycles of one
    # group of g * m rows, wherever the groups lie.
    a = ARCH("systolic-32x32")
    g, m, k, n = 7, 37, 32, 32
    times = []
    for lhs, acc, groups, rows in (((0, (k, 1)), (131072, (n, 1)), 1, g * m),
                                   ((0, (64 * k, k, 1)), (131072, (40 * n, n, 1)), g, m)):
        b = ProgramBuilder(a)
        b.tile(0, 0).matmul("bf16", rows, k, n, lhs, (65536, (n, 1)), acc, g=groups)
        times.append(run(b).cycles)
    assert times[0] == times[1] == k + g * m + (k + n - 1)


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


def test_gelu_takes_the_latencies_of_the_operations_it_chains():
    # 3072 f32 through tessel-4x4's port (64 bytes a cycle) read and written
    # once: 384 cycles, after div 12 + erf 10 + add 2 + mul 3 + mul 3.
    b = ProgramBuilder("tessel-4x4")
    b.tile(0, 0).vector_unary("gelu", "f32", "f32", (3072,), (0, (1,)),
                              (16384, (1,)))
    assert run(b).cycles == 12 + 10 + 2 + 3 + 3 + max(3072 // 16, 3072 * 8 // 64)


def test_signal_waits_for_earlier_transfers_to_its_tile():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (1024,), sram(0, (1,)), sram(0, (1,), tile=(0, 1)))
    t.signal(0, 1, 0)
    b.tile(0, 1, semaphores=1).wait_semaphore(0)
    r = run(b)
    done = 20 + 4096 / 32 + 2
    assert r.tiles[(0, 1)].finished_at == done + 2      # + 1 hop for the message


# ---------------------------------------------------------------------------
# dma_multicast: one flow through the tree of XY routes.
# ---------------------------------------------------------------------------

def test_multicast_from_dram_along_a_row():
    # Tile (0,0) multicasts from DRAM into the four tiles of row 0 (itself
    # included). Its DRAM channel attaches at (0,0); the tree is the row's
    # three links; the longest route is 3 hops:
    # T = setup + b / min(dma, dram, link, sram) + 3 * hop_cycles + latency.
    a = ARCH("tessel-4x4")
    b = ProgramBuilder(a)
    x = b.add_buffer("x", "input", (64, 64), "f32")
    mc = b.add_tag("mc")
    t = b.tile(0, 0, tokens=1)
    t.dma_multicast(0, 0, "f32", (64, 64), dram(x.offset, (64, 1)),
                    [sram(0, (64, 1), tile=(0, c)) for c in range(4)], tag=mc)
    t.wait(0)
    r = run(b)
    nbytes = 64 * 64 * 4
    rate = min(a.tile.dma.bytes_per_cycle, a.dram.bytes_per_cycle,
               a.noc.link_bytes_per_cycle, a.tile.sram.bytes_per_cycle)
    done = (a.tile.dma.setup_cycles + nbytes / rate + 3 * a.noc.hop_cycles
            + a.dram.latency_cycles)
    assert r.cycles == done
    assert r.tiles[(0, 0)].stalls["dram"] == done - 2
    assert r.bytes["dram_read"] == nbytes and r.bytes["dram_write"] == 0
    assert r.bytes["noc"] == nbytes and r.bytes["noc_link"] == 3 * nbytes
    assert r.bytes["sram"] == 4 * nbytes
    assert (r.tags["mc"].dram_bytes, r.tags["mc"].noc_bytes) == (nbytes, nbytes)


def test_multicast_from_sram_down_a_column_is_link_bound():
    # Tile (0,2)'s SRAM into the three tiles below it, links at 16 B/cycle:
    # T = setup + b / min(dma, sram, link) + 3 * hop_cycles.
    a = ARCH("tessel-4x4", **{"noc.link_bytes_per_cycle": 16})
    b = ProgramBuilder(a)
    t = b.tile(0, 2, tokens=1)
    t.dma_multicast(1, 0, "f32", (2048,), sram(0, (1,)),
                    [sram(4096, (1,), tile=(r, 2)) for r in (1, 2, 3)])
    t.wait(0)
    r = run(b)
    nbytes = 8192
    rate = min(a.tile.dma.bytes_per_cycle, a.tile.sram.bytes_per_cycle,
               a.noc.link_bytes_per_cycle)
    assert rate == 16
    done = a.tile.dma.setup_cycles + nbytes / rate + 3 * a.noc.hop_cycles
    assert r.cycles == done
    assert r.tiles[(0, 2)].stalls["noc"] == done - 2
    assert r.bytes["dram"] == 0
    assert r.bytes["noc"] == nbytes and r.bytes["noc_link"] == 3 * nbytes
    assert r.bytes["sram"] == 4 * nbytes                # 3 destinations + the source
    # Three dmas would cross the column's first link three times, the
    # second twice: 1 + 2 + 3 link crossings against the tree's 3.
    b = ProgramBuilder(a)
    t = b.tile(0, 2, tokens=3)
    for i, row in enumerate((1, 2, 3)):
        t.dma(1, i, "f32", (2048,), sram(0, (1,)), sram(4096, (1,), tile=(row, 2)))
    t.wait(0, 1, 2)
    assert run(b).bytes["noc_link"] == 6 * nbytes


def test_multicast_link_bytes_count_each_tree_link_once():
    # From (1,1) to (1,3), (2,3), (3,1) and (0,0): the XY routes share
    # (1,1)->(1,2)->(1,3), so the tree has 2 + 1 + 2 + 2 = 7 links where the
    # routes have 2 + 3 + 2 + 2 = 9; the longest route is 3 hops.
    a = ARCH("tessel-4x4")
    b = ProgramBuilder(a)
    t = b.tile(1, 1, tokens=1)
    dsts = [(1, 3), (2, 3), (3, 1), (0, 0)]
    t.dma_multicast(0, 0, "f32", (1024,), sram(0, (1,)),
                    [sram(0, (1,), tile=rc) for rc in dsts])
    t.wait(0)
    r = simulate(b.build(), numerics=False, trace=True)
    nbytes = 4096
    assert r.bytes["noc_link"] == 7 * nbytes and r.bytes["noc"] == nbytes
    assert r.cycles == 20 + nbytes / 32 + 3 * 2
    # The trace shows one transfer and each of the seven links busy.
    events = r.trace_events
    assert [e["name"] for e in events if e["ph"] == "X" and e.get("tid") == 10
            and e["pid"] == 1] == ["dma (noc)"]
    links = [e for e in events if e.get("name") == "thread_name"
             and e["args"]["name"].startswith("link ")]
    assert len(links) == 7


def test_a_multicast_into_its_own_tile_alone_is_a_local_copy():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(2, 2, tokens=1)
    t.dma_multicast(0, 0, "f32", (1024,), sram(0, (1,)), [sram(8192, (1,))])
    t.wait(0)
    r = simulate(b.build(), numerics=False, trace=True)
    # One SRAM port for both sides (64 B/cycle), the channel 32 B/cycle.
    assert r.cycles == 20 + 4096 / 32
    assert r.tiles[(2, 2)].stalls["dma"] == 20 + 4096 / 32 - 2
    assert r.bytes["noc"] == 0 and r.bytes["sram"] == 2 * 4096
    assert [e["name"] for e in r.trace_events
            if e["ph"] == "X" and e.get("tid") == 10] == ["dma (dma)"]


@pytest.mark.parametrize("b1, b2", [(8192, 8192), (4096, 8192)])
def test_two_multicasts_sharing_a_link_share_its_bandwidth(b1, b2):
    # (0,0) -> {(0,1), (0,2)} and (0,1) -> {(0,2), (0,3)} share the link
    # (0,1)->(0,2): 16 B/cycle each while both run (the SRAM ports of (0,1)
    # and (0,2), shared too, give 32); then the longer one runs alone.
    b = ProgramBuilder("tessel-4x4")
    for (r, c), nbytes in (((0, 0), b1), ((0, 1), b2)):
        t = b.tile(r, c, tokens=1)
        t.dma_multicast(0, 0, "f32", (nbytes // 4,), sram(0, (1,)),
                        [sram(65536, (1,), tile=(r, c + 1)),
                         sram(131072 if c else 65536 + 32768, (1,), tile=(r, c + 2))])
        t.wait(0)
    res = run(b)
    short, long_ = min(b1, b2), max(b1, b2)
    shared = short / 16
    assert res.cycles == 20 + shared + (long_ - short) / 32 + 2 * 2
    assert res.tiles[(0, 0) if b1 <= b2 else (0, 1)].finished_at == 20 + shared + 4


def test_a_signal_waits_for_a_multicast_into_its_tile():
    # (0,0) multicasts to (0,1) and (1,0), then signals (1,0): the signal
    # leaves when the multicast completes, whichever destination it names.
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=1)
    t.dma_multicast(0, 0, "f32", (1024,), sram(0, (1,)),
                    [sram(0, (1,), tile=(0, 1)), sram(0, (1,), tile=(1, 0))])
    t.signal(1, 0, 0)
    b.tile(1, 0, semaphores=1).wait_semaphore(0)
    r = run(b)
    done = 20 + 4096 / 32 + 1 * 2
    assert r.tiles[(1, 0)].finished_at == done + 2      # + 1 hop for the message


def test_a_signal_waits_only_for_the_multicasts_into_its_tile():
    # Two multicasts queued on one channel: the first into (0,1) and (0,2),
    # the second into (1,0) and (0,2). A signal to (0,1) waits for the first
    # only, one to (1,0) for the second (still queued when it is issued), one
    # to (0,2) for both.
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, tokens=2)
    t.dma_multicast(0, 0, "f32", (1024,), sram(0, (1,)),
                    [sram(0, (1,), tile=(0, 1)), sram(0, (1,), tile=(0, 2))])
    t.dma_multicast(0, 1, "f32", (1024,), sram(0, (1,)),
                    [sram(0, (1,), tile=(1, 0)), sram(4096, (1,), tile=(0, 2))])
    for rc in ((0, 1), (1, 0), (0, 2)):
        t.signal(*rc, 0)
        b.tile(*rc, semaphores=1).wait_semaphore(0)
    r = run(b)
    one = 20 + 4096 / 32 + 2 * 2                # each: 2 hops to (0,2)
    assert r.tiles[(0, 1)].finished_at == one + 1 * 2
    assert r.tiles[(1, 0)].finished_at == 2 * one + 1 * 2
    assert r.tiles[(0, 2)].finished_at == 2 * one + 2 * 2
