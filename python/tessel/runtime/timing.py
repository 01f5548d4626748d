"""The timing model's equations (docs/simulator.md): the cycles of a compute
instruction (a matmul block's fill, stream and drain, double-buffered
weights; a vector op's lanes and latency), the XY route of a NoC transfer
and the DRAM channel a tile's transfer uses. The simulator applies them;
the mapper's cost model (``tessel.mapper.cost``) reads the same functions,
so a change here moves both.
"""

from __future__ import annotations

from . import isa

# Cycles a control instruction (dma, dma_multicast, dma_gather,
# dma_wait_semaphore, wait, signal, wait_semaphore) takes to issue;
# docs/simulator.md.
ISSUE_CYCLES = 1


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def matmul_phases(arch, dtype: str, m: int, k: int, n: int) -> tuple[int, int, int, int]:
    """(fill, drain, stream, SRAM bytes) of one matmul block: the array
    loads its stationary block in ``fill`` cycles, streams for ``stream``
    (its steps or its SRAM traffic, whichever is slower) and its last
    results leave ``drain`` cycles after the stream ends."""
    mac = arch.tile.mac
    item, acc = isa.DTYPE_SIZE[dtype], isa.DTYPE_SIZE[isa.acc_dtype(dtype)]
    # The accumulator update is a read-modify-write inside the banks
    # (accumulate-on-write): one port transfer per element.
    sram_bytes = (m * k + k * n) * item + m * n * acc
    sram_cycles = _ceil_div(sram_bytes, arch.tile.sram.bytes_per_cycle)
    cells, rate = mac.rows * mac.cols, mac.macs_per_cycle[dtype]
    if mac.dataflow == "weight_stationary":
        fill, drain, steps = k, k + n - 1, _ceil_div(m * cells, rate)
    else:
        fill, drain, steps = m + n - 2, m, _ceil_div(k * cells, rate)
    return fill, drain, max(steps, sram_cycles), sram_bytes


def matmul_cycles(arch, dtype: str, m: int, k: int, n: int) -> tuple[int, int]:
    """(cycles, SRAM bytes) of one matmul block on its own."""
    fill, drain, stream, sram_bytes = matmul_phases(arch, dtype, m, k, n)
    return fill + drain + stream, sram_bytes


def matmul_run_cycles(arch, phases: list[tuple[int, int, int]]) -> list[int]:
    """The cycles charged to each block of a run of matmul instructions that
    follow each other with nothing between them, given each block's
    ``(fill, drain, stream)``.

    With one weight buffer every block pays its own fill and drain. With two
    (a weight-stationary array, ``tile.mac.weight_buffers``) the next
    block's weights shift in while the current block streams and its rows
    enter right behind the current block's: a block pays only the part of
    its fill that outlasts the previous block's stream, and the run ends
    when its last result leaves the array, the latest of every block's
    stream end plus its drain, charged to the last block."""
    if arch.tile.mac.weight_buffers == 1:
        return [f + d + s for f, d, s in phases]
    charged, streamed, end = _double_buffered_run(phases)
    if charged:
        charged[-1] += end - streamed
    return charged


def _double_buffered_run(phases: list[tuple[int, int, int]]
                         ) -> tuple[list[int], int, int]:
    """Each block's exposed fill plus stream, when the last stream ends and
    when the last result leaves, for a run with two weight buffers."""
    charged, streamed, end, prev_stream = [], 0, 0, None
    for f, d, s in phases:
        exposed = f if prev_stream is None else max(0, f - prev_stream)
        charged.append(exposed + s)
        streamed += exposed + s
        end = max(end, streamed + d)
        prev_stream = s
    return charged, streamed, end


def matmul_run_edges(phases: list[tuple[int, int, int]]
                     ) -> tuple[tuple[int, int], tuple[int, int]]:
    """What a run of double-buffered matmul blocks shares with its
    neighbours across control instructions (:func:`matmul_run_joined`):
    ``(fill of its first block, its cycles as charged)`` and ``(stream of
    its last block, cycles from its last stream's end to its last result's
    leaving)``."""
    _, streamed, end = _double_buffered_run(phases)
    return (phases[0][0], end), (phases[-1][2], end - streamed)


def matmul_run_joined(tail: tuple[int, int], head: tuple[int, int]) -> int:
    """The cycles a run of double-buffered matmul blocks saves when it
    continues the tile's previous run: only control instructions that did
    not stall lie between them, so the array never emptied. ``tail`` is the
    previous run's last-block edge, ``head`` this run's first-block edge
    (:func:`matmul_run_edges`). Joined, the first block's weights shift in
    during the previous last block's stream and its rows follow that
    block's: it saves the previous run's drain and the part of its own fill
    that stream hides, never more than its own cycles."""
    last_stream, drain = tail
    fill, cycles = head
    return min(cycles, drain + min(fill, last_stream))


def vector_cycles(arch, latency_key: str | tuple[str, ...], elements: int,
                  sram_bytes: int) -> int:
    """A vector instruction's cycles: its latency (the sum of the keys',
    where it chains several operations) and then its elements over the
    lanes or its bytes over the SRAM port, whichever is longer."""
    v = arch.tile.vector
    keys = (latency_key,) if isinstance(latency_key, str) else latency_key
    return sum(v.latency[key] for key in keys) + max(
        _ceil_div(elements, v.lanes),
        _ceil_div(sram_bytes, arch.tile.sram.bytes_per_cycle))


def element_count(sizes) -> int:
    """The elements of a box of these sizes."""
    n = 1
    for s in sizes:
        n *= s
    return n


def vector_timing(arch, ins) -> tuple[int, int]:
    """(cycles, SRAM bytes) of a vector instruction: its elements over the
    lanes or its bytes over the SRAM port, whichever is longer, after the
    op's latency."""
    f, op = ins.fields, ins.op
    sizes = f["sizes"]
    e = element_count(sizes)
    if op == "vector_unary":
        key = isa.UNARY_LATENCY_KEYS[f["op"]]
        nbytes = e * (isa.DTYPE_SIZE[f["in_dtype"]] + isa.DTYPE_SIZE[f["out_dtype"]])
    else:
        item = isa.DTYPE_SIZE[f["dtype"]]
        if op == "vector_reduce":
            key = isa.REDUCE_LATENCY_KEY[f["op"]]
            nbytes = (e + e // sizes[f["dim"]]) * item
        else:
            key = {"vector_binary": None, "vector_binary_imm": None,
                   "vector_fill": "add", "vector_compare": "cmp",
                   "vector_select": "select"}[op] or f["op"]
            nbytes = e * item * (len(isa.READS[op]) + 1)
    return vector_cycles(arch, key, e, nbytes), nbytes


def xy_route(src: tuple[int, int], dst: tuple[int, int]) -> list[tuple]:
    """Directed links of the XY route: along the row (columns) first."""
    (r, c), (r2, c2) = src, dst
    links = []
    while c != c2:
        nc = c + (1 if c2 > c else -1)
        links.append(((r, c), (r, nc)))
        c = nc
    while r != r2:
        nr = r + (1 if r2 > r else -1)
        links.append(((r, c), (nr, c)))
        r = nr
    return links


def dram_channel_for(arch, row: int, col: int, dma_channel: int) -> int:
    """The DRAM channel a transfer of tile (row, col) on ``dma_channel`` uses:
    the nearest attached (Manhattan hops); among equally near ones, the
    ``dma_channel mod count``-th in index order (docs/isa.md)."""
    tied = arch.nearest_dram_channels(row, col)
    return tied[dma_channel % len(tied)]
