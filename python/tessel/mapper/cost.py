"""Predicted cycles of one op on a rectangle of tiles with a given split.

The model follows what the lowering emits today (docs/lowering.md) and times
it with the simulator's own equations (docs/simulator.md): the compute
instructions through ``tessel.runtime.timing.matmul_phases`` and
``vector_cycles``, transfers as ``setup + bytes / rate + hops * hop_cycles
(+ DRAM latency)`` where ``rate`` is the bottleneck share of the DMA channel,
SRAM port, NoC links and DRAM channel on the transfer's XY route when every
tile of the rectangle transfers at once.

Per tile an op is a sequence of steps. Their sizes are the mapper's
choice, written into the mapping as ``steps``: the cheapest of the sizes
``tessel-tile-for-sram`` would pick itself (halve the loop that shrinks the
working set most until two steps and the lowering's temporaries fit SRAM)
and the sizes that halving gives when it keeps one loop whole for as long as
it can (a weight-stationary array streams a matmul's rows: halving them
doubles the blocks, each paying fill and drain). A step brings its operand
slices in, computes, and writes its result slice back. With ``overlap_dma``
(the default: tessel-schedule double-buffers) a step's compute hides the
next step's loads and the previous step's stores, so an op costs its first
loads and last stores plus the slower of its compute and its other
transfers (a convolution's weight loads on crowded DRAM channels: see
:func:`later_transfer_cycles` and docs/mapper.md, *Crowded channels*);
without it every transfer is waited for at once. After
an op every tile of the program meets at a barrier.

A placement that is ``shared`` (tessel-share-loads) reads an input slice
that several tiles load at the same step once, and multicasts it to them:
the input's DRAM traffic is divided by the number of tiles sharing each
slice (and by the overlap of the windows neighbouring tiles read, where
their halos are read once: ``halo_fraction``), and the multicast, one flow
among that many fewer, runs at a higher share of the DRAM channels and
links, up to what one transfer's DMA channel, SRAM port and link allow. Each shared load costs the leader a
credit wait and a delivery signal per receiver, and each receiver a signal
and a wait: four instructions per tile and step, on average.

A split reduction loop (``split_reductions``) adds what tessel-partition
emits for it: a fill of the partial results and a reduce that adds them up,
through DRAM. Weights kept resident in SRAM over a stream of inputs (the
solvers use them only when asked) are loaded by the stream's first input
alone, so per input they cost SRAM but no transfer.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from itertools import product
from typing import Mapping

from ..runtime.isa import MAX_MULTICAST_DESTINATIONS
from ..runtime.timing import dram_channel_for, matmul_phases, vector_cycles, xy_route
from .graph import Op, Operand

_DTYPE_OF_BYTES = {4: "f32", 2: "bf16", 1: "i8"}
_ISSUE = 1      # cycles of a dma / wait instruction


@dataclass(frozen=True)
class Placement:
    """A rectangle of ``rows x cols`` tiles at ``(row, col)`` and the number
    of parts each loop is cut into (one per loop; the product is the tile
    count)."""

    row: int
    col: int
    rows: int
    cols: int
    parts: tuple[int, ...]
    resident: bool = False      # weights stay in SRAM across inputs
    shared: bool = False        # slices several tiles read are multicast
    # The loops, slowest first, as parts are laid onto the tiles in
    # row-major order; () for the loops' own (mapper.part_order).
    order: tuple[int, ...] = ()

    @property
    def tiles(self) -> int:
        return self.rows * self.cols


@dataclass(frozen=True)
class Estimate:
    """Predicted figures of one op under one placement (per input)."""

    cycles: int                 # start to end, barrier included
    compute: int                # cycles of compute on the busiest tile
    transfer: int               # cycles of transfers on the busiest tile
    reduce: int                 # cross-tile reduction (split reduction loops)
    barrier: int
    steps: tuple[int, ...]      # step sizes per loop on one tile
    num_steps: int              # steps per tile
    sram_bytes: int             # peak SRAM per tile: two steps + resident
    dram_bytes: int             # DRAM traffic of the whole op
    resident_bytes: int         # weight bytes per tile kept in SRAM
    dram_cycles: int = 0        # dram_bytes at the whole chip's DRAM bandwidth


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def uses_every_part(extent: int, parts: int) -> bool:
    """Splitting ``extent`` into ``parts`` of ``ceil(extent / parts)`` leaves
    no part empty (tessel-default-mapping's rule)."""
    return _ceil_div(extent, _ceil_div(extent, parts)) == parts


def working_set(op: Op, steps: tuple[int, ...], skip_weights: bool = False) -> int:
    """Bytes of every operand's slice for one step (tessel-tile-for-sram's
    ``getWorkingSet``)."""
    return sum(o.slice_bytes(steps) for o in op.operands
               if not (skip_weights and o.role == "weight"))


def _result_slice(op: Op, steps: tuple[int, ...]) -> tuple[int, ...]:
    """The extents of the slice of ``op``'s result that ``steps`` of its
    loops compute: the loops of its epilogue."""
    out = next(o for o in op.operands if o.is_output)
    return tuple(a.extent(steps, full) for a, full in zip(out.access, out.shape))


def _epilogue_weight_bytes(op: Op, steps: tuple[int, ...]) -> int:
    """Bytes of the slices of its epilogue's weights that ``steps`` of
    ``op`` read (a resident op keeps them with its own)."""
    if op.epilogue is None:
        return 0
    shape = _result_slice(op, steps)
    return sum(o.slice_bytes(shape) for o in op.epilogue.operands
               if not o.is_output and o.role == "weight")


def scratch_bytes(op: Op, steps: tuple[int, ...], skip_weights: bool = False) -> int:
    """Bytes of the SRAM temporaries tessel-lower-to-instructions allocates
    for one step (tessel-tile-for-sram's ``getScratchBytes``): an elementwise
    body's values (one per body op, captured value and reduced loop:
    ``Op.temporaries``), a
    depthwise convolution's products, the slice of a seed that sets an
    accumulator."""
    # An accumulator set from a seed loads the seed's slice beside it (a
    # resident weight's lies with the weights); an epilogue its inputs'
    # slices (the result's counted again, as tessel-tile-for-sram does) and
    # its temporaries.
    seeds = sum(o.seed_bytes(steps) for o in op.operands
                if not (skip_weights and o.seed_is_weight))
    if op.epilogue is not None:
        shape = _result_slice(op, steps)
        # An output of another element size than the result's is computed
        # into a slice of its own.
        seeds += scratch_bytes(op.epilogue, shape) + sum(
            o.slice_bytes(shape) for o in op.epilogue.operands
            if (not o.is_output and not (skip_weights and o.role == "weight"))
            or (o.is_output and o.elem_bytes != _result_elem_bytes(op)))
    if op.kind in ("elementwise", "reduction"):
        count = op.temporaries + op.captured + len(op.reduction_loops)
        return 4 * count * math.prod(steps) + seeds
    if op.kind == "window":
        # A depthwise convolution's products; narrow inputs accumulated
        # wider widen each window, and a depthwise convolution's weights.
        widened = _widened(op)
        count = int(op.weighted) + int(widened)
        weights = (4 * op.operands[1].slice_bytes(steps) // op.operands[1].elem_bytes
                   if op.weighted and widened else 0)
        return 4 * count * math.prod(s for s, t in zip(steps, op.iterators)
                                     if t == "parallel") + weights + seeds
    return seeds


def _result_elem_bytes(op: Op) -> int:
    return next(o.elem_bytes for o in op.operands if o.is_output)


def _widened(op: Op) -> bool:
    """Whether a window op's input is narrower than its output (bf16
    accumulated in f32): each window is widened before it is combined."""
    return op.operands[0].elem_bytes != _result_elem_bytes(op)


@functools.lru_cache(maxsize=1 << 18)
def sram_step_bytes(op: Op, steps: tuple[int, ...], skip_weights: bool = False) -> int:
    """SRAM for steps of ``steps``: two steps' operands (one computing, one
    arriving) and one step's temporaries. Cached: :func:`step_sizes` tries
    the same halvings for each loop it keeps whole and each reduction cap."""
    return (2 * working_set(op, steps, skip_weights)
            + scratch_bytes(op, steps, skip_weights))


@functools.lru_cache(maxsize=65536)
def step_sizes(op: Op, part: tuple[int, ...], budget: int,
               skip_weights: bool = False,
               keep: int | None = None,
               reduction_step: int = 0) -> tuple[int, ...] | None:
    """Step sizes for a part of extents ``part`` that fit ``budget`` bytes
    (:func:`sram_step_bytes`), by tessel-tile-for-sram's rule: halve the loop
    whose halving shrinks the bytes most. Loop ``keep``, if given, is halved
    only when no other loop can be. A ``reduction_step`` caps every
    reduction loop's step first (short reduction steps under an accumulator
    that stays in SRAM across them leave the room to the parallel loops).
    None if single-element steps do not fit. Cached: the placements of an
    op share few part shapes."""
    steps = list(part)
    if reduction_step:
        for loop in op.reduction_loops:
            steps[loop] = min(steps[loop], reduction_step)
    while sram_step_bytes(op, tuple(steps), skip_weights) > budget:
        best, best_bytes = None, 0
        for loop, s in enumerate(steps):
            if s == 1 or loop == keep:
                continue
            trial = list(steps)
            trial[loop] = _ceil_div(s, 2)
            b = sram_step_bytes(op, tuple(trial), skip_weights)
            if best is None or b < best_bytes:
                best, best_bytes = loop, b
        if best is None:
            if keep is not None and steps[keep] > 1:
                best = keep
            else:
                return None
        steps[best] = _ceil_div(steps[best], 2)
    return tuple(steps)


@functools.lru_cache(maxsize=1 << 16)
def step_candidates(op: Op, part: tuple[int, ...], budget: int,
                    skip_weights: bool = False, array_rows: int = 0,
                    short_last: bool = False,
                    array_cols: int = 0) -> tuple[tuple[int, ...], ...]:
    """The step sizes worth costing for a part: tessel-tile-for-sram's own,
    and for a MAC-array op those keeping each parallel loop whole as long as
    possible; for a matmul or a convolution each also with reduction steps
    of ``array_rows`` and of four times that (the MAC array's rows: shorter
    steps leave rows idle; a convolution's kernel loops are shorter still,
    so the cap cuts its channels) (distinct, in that order). With
    ``short_last`` (an op without an epilogue), for a
    matmul or a convolution each then also with a short last step: the
    loop the array streams (a matmul's rows, a convolution's output rows)
    cut into steps an eighth shorter, the rest a last step of its own,
    whose result leaves soon after the compute (the step before its last
    is stored under it). Not the loops across the array's columns: a short
    last step there would leave columns idle; nor for an op with an
    epilogue, whose result leaves as a whole after it. With ``array_cols``
    (the MAC array's columns), for a matmul or a convolution each then also
    with longer streams: the streamed loop's steps twice as long, the loop
    across the array's columns cut to the most whole columns of the array
    that still fit (each block streamed through the array pays its weights'
    way through the SRAM port once, docs/simulator.md: halving only, the
    2 x 192 rows of BERT's FFN2 on a 768 KiB tile never became 512 x 128).
    Cached: an op's shared and unshared placements, and its rectangles of
    one tile count, cut it into the same parts."""
    out = []
    variants = [(None, 0)]
    if op.macs:
        keeps = [None] + [l for l in op.parallel_loops if part[l] > 1]
        reductions = (0,)
        if op.kind in ("matmul", "batch_matmul", "conv"):
            reductions = tuple(dict.fromkeys((0, array_rows, 4 * array_rows)))
        variants = [(keep, r) for keep in keeps for r in reductions]
    for keep, reduction_step in variants:
        steps = step_sizes(op, part, budget, skip_weights, keep, reduction_step)
        if steps is not None and steps not in out:
            out.append(steps)
    streamed = _STREAMED_LOOP.get(op.kind)
    if array_cols and streamed is not None:
        across = _COLUMNS_LOOP[op.kind]
        for steps in list(out):
            if steps[streamed] >= part[streamed] or steps[across] <= array_cols:
                continue
            longer = list(steps)
            longer[streamed] = min(part[streamed], 2 * steps[streamed])
            for cols in range(steps[across] - steps[across] % array_cols,
                              0, -array_cols):
                longer[across] = cols
                if sram_step_bytes(op, tuple(longer), skip_weights) <= budget:
                    if tuple(longer) not in out:
                        out.append(tuple(longer))
                    break
    if short_last and streamed is not None and op.epilogue is None:
        for steps in list(out):
            s = steps[streamed]
            if not 1 < s < part[streamed] or part[streamed] % s:
                continue
            shorter = list(steps)
            shorter[streamed] -= max(1, s // 8)
            if tuple(shorter) not in out:
                out.append(tuple(shorter))
    return tuple(out)


# The loop whose iterations a weight-stationary array streams as a block's
# rows: a matmul's (and a batch's) rows, a convolution's output rows.
_STREAMED_LOOP = {"matmul": 0, "batch_matmul": 1, "conv": 2}
# The loop across the array's columns: a matmul's (and a batch's) columns, a
# convolution's output channels.
_COLUMNS_LOOP = {"matmul": 1, "batch_matmul": 2, "conv": 1}


@functools.lru_cache(maxsize=1 << 14)
def _chunks(extent: int, size: int) -> tuple[tuple[int, int], ...]:
    """``(size, count)`` of the pieces cutting ``extent`` into ``size``
    (cached: every estimate cuts its part so, a few shapes over and over)."""
    full, rest = divmod(extent, size)
    out = ((size, full),) if full else ()
    if rest:
        out += ((rest, 1),)
    return out


def mac_dtype(op: Op) -> str:
    """The element type an op's MACs run at (of its first operand)."""
    return _DTYPE_OF_BYTES.get(op.operands[0].elem_bytes if op.operands else 4, "f32")


def compute_cycles(op: Op, arch, step: tuple[int, ...], joined: bool = False) -> int:
    """Cycles of the instructions one step of ``op`` becomes; ``joined``:
    as a step whose run of matmul blocks goes on from the previous step's
    (docs/simulator.md, *Runs joined across control instructions*), its
    first fill hidden and no drain of its own. Kept per arch: the
    placements of an op share few step shapes."""
    kept = _kept_for(arch)
    key = ("compute", op, step, joined)
    if key not in kept:
        kept[key] = _compute_cycles(op, arch, step, joined)
    return kept[key]


def _compute_cycles(op: Op, arch, step: tuple[int, ...], joined: bool) -> int:
    elems = math.prod(step)
    item = op.operands[-1].elem_bytes if op.operands else 4
    dtype = mac_dtype(op)
    mac = arch.tile.mac
    ws = mac.dataflow == "weight_stationary"

    def blocks(m: int, k: int, n: int, repeats: int = 1) -> int:
        # tessel-lower-to-instructions' emitMatmulBlocks, `repeats` times
        # back to back: WS keeps m whole, n in columns of the array, k in
        # its rows.
        mb, kb = (m, mac.rows) if ws else (mac.rows, k)
        shapes = [(mc * nc * kc, matmul_phases(arch, dtype, ms, ks, ns)[:3])
                  for ms, mc in _chunks(m, mb)
                  for ns, nc in _chunks(n, mac.cols)
                  for ks, kc in _chunks(k, kb)]
        if mac.weight_buffers == 1:
            return repeats * sum(c * (f + d + s) for c, (f, d, s) in shapes)
        # Double-buffered weights (timing.matmul_run_cycles): a block
        # pays the part of its fill its predecessor's stream does not hide
        # (taken as its own stream), the first block its whole fill, the
        # run one drain.
        steady = sum(c * max(f, s) for c, (f, _, s) in shapes)
        if joined:
            return repeats * steady
        f1, _, s1 = shapes[0][1]
        return repeats * steady + min(f1, s1) + max(d for _, (_, d, _) in shapes)

    # tessel-lower-to-instructions' emitMatmul: the product as written or
    # transposed, whichever is faster.
    if op.kind == "matmul":
        m, n, k = step
        return min(blocks(m, k, n), blocks(n, k, m))
    if op.kind == "batch_matmul":
        b, m, n, k = step
        return b * min(blocks(m, k, n), blocks(n, k, m))
    if op.kind == "conv":
        return _conv_cycles(step, blocks)
    if op.kind == "window":
        taps = math.prod(step[4:])
        out = math.prod(step[:4]) // max(1, step[0])
        per_tap = vector_cycles(arch, "max", out, out * item * 3)
        if _widened(op):
            per_tap += vector_cycles(arch, "cast", out, out * 6)
        if op.weighted:
            per_tap += vector_cycles(arch, "mul", out, out * item * 3)
        return step[0] * taps * per_tap
    if op.kind == "fill":
        return vector_cycles(arch, "add", elems, elems * item)
    if op.kind == "copy":
        return vector_cycles(arch, "cast", elems, elems * item * 2)
    if op.kind == "elementwise":
        return op.vector_ops * vector_cycles(arch, "add", elems, elems * item * 3)
    # A reduction: the elementwise part over the whole step, a vector_reduce
    # per reduced loop, the combine with the output's previous value.
    total = (op.vector_ops - 1) * vector_cycles(arch, "add", elems, elems * item * 3)
    shape = list(step)
    for loop in reversed(op.reduction_loops):
        e = math.prod(shape)
        shape[loop] = 1
        total += vector_cycles(arch, "reduce_add", e, (e + math.prod(shape)) * item)
    out = math.prod(shape)
    return total + vector_cycles(arch, "add", out, out * item * 3)


def runs_in_issue_order(arch, tile: tuple[int, int]) -> bool:
    """Whether ``tile`` has at least two DRAM channels of its own and fewer
    than two DMA channels for each, so that its transfers reach DRAM in the
    order they are issued (the passes' ``runsTransfersInIssueOrder``)."""
    split = _split_channels(arch, *tile)
    return split >= 2 and arch.tile.dma.channels < 2 * split


def early_store_pieces(op: Op, arch, step: tuple[int, ...], nbytes: int,
                       tile: tuple[int, int] = (0, 0), last: bool = False) -> int:
    """How many pieces tessel-early-stores cuts the store of a step's
    ``nbytes`` result on ``tile`` into: the MAC array finishes it a block
    of ``mac.cols`` along the shorter of its two sides at a time (the
    longer one streams), each piece at least what the DMA moves in four
    times its setup. One where an epilogue runs on the whole slice after
    the blocks, and where the tile has no second DMA channel for each DRAM
    channel it spreads a transfer over (the pieces' latencies would not
    overlap), unless the store is the tile's ``last`` one and the tile runs
    its transfers in issue order (nothing queues behind it; the caller
    checks that the tile's products outlast its transfers)."""
    if op.kind not in ("matmul", "batch_matmul", "conv") or op.epilogue is not None:
        return 1
    if (arch.tile.dma.channels < 2 * _split_channels(arch, *tile)
            and not (last and runs_in_issue_order(arch, tile))):
        return 1
    if op.kind == "conv":
        n, f, oh, ow = step[:4]
        sides = (f, oh * ow)
    else:
        sides = step[-3:-1]
    blocks = _ceil_div(min(sides), arch.tile.mac.cols)
    dma = arch.tile.dma
    least = 4 * dma.setup_cycles * transfer_rate(arch)
    return max(1, min(blocks, nbytes // least))


def spread_store_pieces(op: Op, arch, step: tuple[int, ...], nbytes: int,
                        runs: int, tile: tuple[int, int] = (0, 0)) -> int:
    """How many pieces tessel-spread-stores issues the store of a step's
    ``nbytes`` result on ``tile`` in, ``runs`` steps of loads before it is
    waited for: one after each but the last, each at least what the tile's
    DMA moves in four times its setup over its DRAM channels, where the
    tile's stores and loads share its DMA channels and the store, with the
    step's loads, takes them longer than the step's products take the MAC
    array at its peak. One elsewhere (the store leaves whole)."""
    if not op.macs or not runs_in_issue_order(arch, tile):
        return 1
    rate = transfer_rate(arch) * _split_channels(arch, *tile)
    loads = sum(o.slice_bytes(step) for o in op.operands if o.read and not o.is_output)
    mac_cycles = math.prod(step) / max(1, arch.tile.mac.macs_per_cycle.get(mac_dtype(op), 1))
    if nbytes + loads <= mac_cycles * rate:
        return 1
    rows = next((e for e in _result_slice(op, step) if e > 1), 1)
    pieces = min(runs - 1, rows, nbytes // (4 * arch.tile.dma.setup_cycles * rate))
    return pieces if pieces > 1 else 1


def _dram_bound(op: Op, arch, placement: Placement, nbytes: float) -> bool:
    """Whether a tile's ``nbytes`` of DRAM transfers for its part of ``op``
    take its DRAM channels longer than its products take the MAC array at
    its peak (tessel-spread-stores then moves no store)."""
    rate = transfer_rate(arch) * _split_channels(arch, placement.row, placement.col)
    peak = max(1, arch.tile.mac.macs_per_cycle.get(mac_dtype(op), 1))
    return nbytes > op.macs / placement.tiles / peak * rate


def _conv_cycles(step: tuple[int, ...], blocks) -> int:
    """tessel-lower-to-instructions' ``lowerConv``: contract over the
    longest of channels, kernel rows and kernel columns (ties: channels),
    the other two as taps; per image the faster of one product per output
    row and one stream of all rows per tap (``oh`` groups of ``ow`` pixels,
    timed as ``oh * ow`` rows: exact for a weight-stationary array, which
    streams them all in one block; an output-stationary one splits them at
    group boundaries)."""
    n, f, oh, ow, c, kh, kw = step
    k = max(c, kh, kw)
    taps = c * kh * kw // k
    per_row = min(blocks(f, k, ow, taps * oh), blocks(ow, k, f, taps * oh))
    if oh > 1:
        per_row = min(per_row, blocks(oh * ow, k, f, taps))
    return n * per_row


def arch_key(arch) -> str:
    """A hashable identity of an architecture description (``Arch`` holds
    mappings, which do not hash), for caches; kept per arch (every
    estimate asks for it)."""
    kept = _kept_for(arch)
    if "key" not in kept:
        kept["key"] = json.dumps(arch.to_dict(), sort_keys=True)
    return kept["key"]


# id(arch) -> (arch, the figures kept for it); the arch is held so that its
# id stays its own.
_PER_ARCH: dict = {}


def _kept_for(arch) -> dict:
    """The figures kept for ``arch``: a frozen dataclass, so they hold as
    long as it lives."""
    held, kept = _PER_ARCH.get(id(arch), (None, None))
    if held is not arch:
        kept = {}
        _PER_ARCH[id(arch)] = (arch, kept)
    return kept


_PATHS: dict = {}


def _split_channels(arch, row: int, col: int) -> int:
    """``arch.split_channels(row, col)``, kept per arch (it visits every
    tile)."""
    kept = _kept_for(arch)
    if ("split", row, col) not in kept:
        kept["split", row, col] = arch.split_channels(row, col)
    return kept["split", row, col]


def _dram_paths(arch, row: int, col: int, rows: int, cols: int):
    """Per tile of the rectangle: (bytes per cycle it gets when every tile of
    the rectangle reads DRAM at once, hops to its DRAM channel)."""
    key = (arch_key(arch), row, col, rows, cols)
    if key not in _PATHS:
        _PATHS[key] = _compute_dram_paths(arch, row, col, rows, cols)
    return _PATHS[key]


def _compute_dram_paths(arch, row: int, col: int, rows: int, cols: int):
    tiles = [(row + i, col + j) for i in range(rows) for j in range(cols)]
    channel = {t: dram_channel_for(arch, t[0], t[1], 0) for t in tiles}
    users: dict = {}
    routes = {}
    for t in tiles:
        attach = arch.dram.attach[channel[t]]
        routes[t] = xy_route(attach, t)
        for res in [("dram", channel[t])] + routes[t]:
            users[res] = users.get(res, 0) + 1
    out = []
    for t in tiles:
        # A tile with DRAM channels of its own moves a large slice over all
        # of them at once (tessel-split-transfers); smaller transfers, which
        # it keeps whole, are costed at that rate too.
        split = _split_channels(arch, *t)
        rate = min(split * arch.tile.dma.bytes_per_cycle,
                   arch.tile.sram.bytes_per_cycle,
                   split * arch.dram.bytes_per_cycle / users[("dram", channel[t])])
        for link in routes[t]:
            rate = min(rate, arch.noc.link_bytes_per_cycle / users[link])
        out.append((rate, len(routes[t])))
    return tuple(out)


def transfer_cycles(arch, nbytes: int, rate: float, hops: int) -> float:
    """One DRAM transfer of ``nbytes`` at ``rate`` over ``hops`` links, with
    its dma and wait instructions."""
    return (2 * _ISSUE + arch.tile.dma.setup_cycles + nbytes / rate
            + hops * arch.noc.hop_cycles + arch.dram.latency_cycles)


def on_chip_transfer_cycles(arch, nbytes: int, pieces: int, rate: float,
                            hops: int) -> float:
    """One load of ``nbytes`` from the SRAM of the tiles holding a kept
    result, in ``pieces`` transfers (tessel-keep-on-chip) at ``rate`` over
    ``hops`` links: a DMA setup each, no DRAM latency."""
    return (pieces * (2 * _ISSUE + arch.tile.dma.setup_cycles) + nbytes / rate
            + hops * arch.noc.hop_cycles)


def later_transfer_cycles(arch, nbytes: int, rate: float, hops: int) -> float:
    """One of a tile's DRAM loads after its first where the tile shares its
    DRAM channel or a link with other tiles' loads, ``rate`` (its share)
    below what one transfer alone moves: while the load pays its fixed cost
    (DMA setup, hops, DRAM latency) its share goes to the other tiles'
    flows, so a tile's loads follow one another at the slower of its share
    and one transfer alone. Uncontended, as :func:`transfer_cycles`."""
    alone = one_transfer_rate(arch)
    if rate >= alone:
        return transfer_cycles(arch, nbytes, rate, hops)
    return max(2 * _ISSUE + nbytes / rate, transfer_cycles(arch, nbytes, alone, hops))


@functools.lru_cache(maxsize=1 << 16)
def _transfers(o: Operand, part: tuple[int, ...], steps: tuple[int, ...],
               kept: bool = False) -> tuple[tuple[tuple[int, ...], int], ...]:
    """``(slice shape, count)`` of the transfers of operand ``o`` over a
    part cut into ``steps``: an input's, one per step, or (``kept``) one in
    all where no loop cut into steps indexes it; an output's, one per
    iteration of the step loops (loops cut into more than one step,
    outermost first) down to the innermost one that indexes it.
    tessel-promote-to-sram keeps an accumulator in SRAM across the loops
    inside that one, the reduction's steps, and an input that no step
    changes across all of them. Cached: the candidates of an op share few
    parts and steps."""
    last = _innermost_cut_loop(o, part, steps, kept)
    pieces = [_chunks(p, s) if l <= last else ((s, 1),)
              for l, (p, s) in enumerate(zip(part, steps))]
    return tuple((tuple(s for s, _ in shape_counts),
                  math.prod(c for _, c in shape_counts))
                 for shape_counts in product(*pieces))


def _last_transfer(o: Operand, part: tuple[int, ...],
                   steps: tuple[int, ...]) -> tuple[int, ...]:
    """The slice shape of the last of :func:`_transfers`: the last
    (remainder) chunk of each loop it iterates."""
    last = _innermost_cut_loop(o, part, steps)
    return tuple(_chunks(p, s)[-1][0] if l <= last else s
                 for l, (p, s) in enumerate(zip(part, steps)))


def _innermost_cut_loop(o: Operand, part: tuple[int, ...],
                        steps: tuple[int, ...], kept: bool = False) -> int:
    """The innermost loop cut into more than one step that indexes ``o``
    (for an input, that is cut at all, unless none indexes it and
    ``kept``), or -1."""
    cut = [l for l, (p, s) in enumerate(zip(part, steps)) if s < p]
    indexing = [l for l in cut if l in o.indexed_loops]
    if o.is_output or (kept and not indexing):
        return max(indexing, default=-1)
    return max(cut, default=-1)


def _loaded_once(o: Operand, part: tuple[int, ...], steps: tuple[int, ...]) -> bool:
    """Whether operand ``o`` is loaded once per element: no loop cut into
    steps that does not index it lies outside the innermost one that does.
    An accumulator whose fill is folded into it is then set in SRAM instead
    (tessel-promote-to-sram)."""
    last = _innermost_cut_loop(o, part, steps)
    return all(l in o.indexed_loops
               for l, (p, s) in enumerate(zip(part[:last + 1], steps)) if s < p)


def sharers(o: Operand, parts: tuple[int, ...], loops: tuple[int, ...],
            steps: tuple[int, ...] | None = None) -> int:
    """How many tiles read each slice of input ``o`` from one multicast: the
    parts of the loops it does not index, in even chunks of what one
    instruction carries. tessel-share-loads pairs the loads at the same
    position of each tile's steps, so a loop cut unevenly counts only where
    its short last part takes as many ``steps`` as the others (without
    ``steps``, whether a split could share at all, it counts)."""
    count = 1
    for loop, p in enumerate(parts):
        if p > 1 and loop not in o.indexed_loops:
            if loops[loop] % p and steps is not None:
                size = _ceil_div(loops[loop], p)
                last = loops[loop] - (p - 1) * size
                if _ceil_div(last, steps[loop]) != _ceil_div(size, steps[loop]):
                    return 1
            count *= p
    return _ceil_div(count, _ceil_div(count, MAX_MULTICAST_DESTINATIONS))


# tessel-share-loads cuts overlapping windows into cells only where that
# saves at least 1 / _MIN_SAVED_FRACTION of their reads (ShareLoads.cpp,
# kMinSavedFraction).
_MIN_SAVED_FRACTION = 5


def halo_fraction(arch, o: Operand, loops: tuple[int, ...], parts: tuple[int, ...],
                  steps: tuple[int, ...]) -> float:
    """The part of its window each tile still reads from DRAM when the
    windows of input ``o`` that neighbouring tiles read at the same step
    overlap (a convolution's halos over a split of its output rows or
    columns, one step per part) and tessel-share-loads reads the overlap
    once: the union of the windows over their sum, 1.0 where they do not
    overlap or cutting them would not pay (the pass's rule: it saves a
    fifth of the reads and, per window, what one transfer moves in its
    setup and DRAM latency)."""
    fraction = 1.0
    for access, full in zip(o.access, o.shape):
        if access.terms is None or len(access.terms) < 2:
            continue
        split = [l for l, _ in access.terms if parts[l] > 1]
        if not split:
            continue
        if any(loops[l] % parts[l] or steps[l] * parts[l] != loops[l]
               for l in split):
            return 1.0
        windows = math.prod(parts[l] for l in split)
        union = access.extent(loops, full)
        fraction *= min(1.0, union / (windows * access.extent(steps, full)))
    if fraction == 1.0:
        return 1.0
    saved = 1.0 - fraction
    pays = (saved * _MIN_SAVED_FRACTION >= 1.0
            and saved * o.slice_bytes(steps) >= fixed_transfer_bytes(arch))
    return fraction if pays else 1.0


def one_flow_rate(arch) -> int:
    """What one transfer between tiles moves per cycle: the slowest of its
    DMA channel, the SRAM port and a NoC link."""
    return min(arch.tile.dma.bytes_per_cycle, arch.tile.sram.bytes_per_cycle,
               arch.noc.link_bytes_per_cycle)


def one_transfer_rate(arch) -> int:
    """What one DRAM transfer alone moves per cycle: the slowest of its DMA
    channel, its DRAM channel, the SRAM port and a NoC link."""
    return min(transfer_rate(arch), arch.tile.sram.bytes_per_cycle,
               arch.noc.link_bytes_per_cycle)


def transfer_rate(arch) -> int:
    """What one transfer moves per cycle between DRAM and a tile: the
    slower of its DMA channel and its DRAM channel (ArchAttr's
    getTransferBytesPerCycle)."""
    return min(arch.tile.dma.bytes_per_cycle, arch.dram.bytes_per_cycle)


def fixed_transfer_bytes(arch) -> int:
    """What one transfer moves in the time of its fixed cost (DMA setup and
    DRAM latency); tessel-share-loads' threshold for cutting windows and for
    choosing leaders by load."""
    return (arch.tile.dma.setup_cycles + arch.dram.latency_cycles) * transfer_rate(arch)


def shares_slices(op: Op, parts: tuple[int, ...]) -> bool:
    """Whether a ``shared`` placement with ``parts`` could share a load: a
    slice several tiles read, or windows of neighbouring tiles that
    overlap (a split loop in a windowed access)."""
    return any(sharers(o, parts, op.loops) > 1
               or any(a.terms and len(a.terms) > 1
                      and any(parts[l] > 1 for l, _ in a.terms)
                      for a in o.access)
               for o in op.operands if o.read and not o.is_output)


def shared_link(arch, placement: Placement, link: tuple[float, int],
                count: int, balanced: bool = False) -> tuple[float, int]:
    """(rate, hops) of a multicast to ``count`` tiles: the rectangle's DRAM
    contention divided among ``count`` times fewer flows, up to one
    transfer's DMA channel, SRAM port and link; its route runs on from the
    leader across the rectangle.

    The contention is the busiest tile's, where each tile reads from its
    nearest channel and some channels are nearest to more tiles than
    others. A ``balanced`` slice (:func:`balances_over_channels`) whose
    parts are the rectangle's rows by its columns is shared by a whole row
    or column of tiles, and tessel-share-loads gives its lead to whichever
    of them adds it to the emptiest DRAM channel: the channels carry even
    shares, and the rate is the rectangle's average."""
    rate, hops = link
    if balanced and _parts_are_the_rectangle(placement):
        rate = max(rate, _even_dram_rate(arch, placement))
    return (min(one_flow_rate(arch), rate * count),
            hops + placement.rows + placement.cols - 2)


def balances_over_channels(arch, o: Operand, part: tuple[int, ...],
                           steps: tuple[int, ...]) -> bool:
    """Whether :func:`shared_link` may cost input ``o``'s slices at the
    rectangle's even DRAM share: each tile loads each element once, in
    slices of at least four times what a transfer moves in its fixed cost.
    Both limits are measured. Smaller slices are mostly latency, and the
    choice then turned on tens of cycles (the MLP's first layer on
    tessel-16x16 went from 1 x 16 to 4 x 8 tiles and ran 5 % slower). An
    input loaded again at later steps was predicted far too fast: BERT's
    512 x 768 -> 3072 matmul in steps of 48 columns, predicted 57,658
    cycles and simulated 69,003 (61,458 in the steps it had). An input no
    step changes counts as loaded at every step here, as on every
    rectangle (:func:`_estimate_steps`)."""
    return (_loaded_once(o, part, steps)
            and o.slice_bytes(steps) >= 4 * fixed_transfer_bytes(arch))


def _even_dram_rate(arch, placement: Placement) -> float:
    """The bytes per cycle each tile of the rectangle gets when the DRAM
    channels its tiles may read from (the nearest ones, one per DMA
    channel) carry even shares."""
    key = (arch_key(arch), placement.row, placement.col, placement.rows,
           placement.cols)
    if key not in _EVEN_RATES:
        channels = set()
        for r in range(placement.row, placement.row + placement.rows):
            for c in range(placement.col, placement.col + placement.cols):
                channels.update(arch.nearest_dram_channels(r, c)[:arch.tile.dma.channels])
        _EVEN_RATES[key] = len(channels) * arch.dram.bytes_per_cycle / placement.tiles
    return _EVEN_RATES[key]


_EVEN_RATES: dict = {}


def clear_caches() -> None:
    """Forget every figure the cost model keeps between calls (step sizes
    and the candidates among them, SRAM per step, a step's compute cycles,
    DRAM paths and rates), so that the next estimate starts
    cold, as a fresh process's does (bench/mapper.py times the mapper so)."""
    for cached in (step_sizes, step_candidates, sram_step_bytes, _chunks,
                   _transfers, Operand.slice_bytes):
        cached.cache_clear()
    for cache in (_PER_ARCH, _PATHS, _DRAM_LINKS, _EVEN_RATES):
        cache.clear()


def _parts_are_the_rectangle(placement: Placement) -> bool:
    """Whether two loops are cut, the first laid out (in the placement's
    order) into the rectangle's rows and the second into its columns, so
    that part (i, j) runs on the rectangle's tile (i, j)."""
    loops = placement.order or range(len(placement.parts))
    cut = [placement.parts[l] for l in loops if placement.parts[l] > 1]
    return cut == [placement.rows, placement.cols]


def barrier_cycles(arch, rows: int, cols: int) -> int:
    """The barrier after an op: every tile signals the first, which waits
    for them all and signals the first tile of each row, which signals the
    rest of its row (docs/lowering.md, "Synchronization"). One dependence
    per op; the weights an op loads while its tiles wait
    (``tessel-schedule``) are still counted after it."""
    hops = (rows - 1) + (cols - 1)
    return (2 + rows + cols) * _ISSUE + 2 * hops * arch.noc.hop_cycles


def estimate(op: Op, arch, placement: Placement, *, overlap_dma: bool = True,
             program_tiles: tuple[int, int] | None = None,
             steps: tuple[int, ...] | None = None, kept_result: bool = False,
             on_chip_reads: Mapping[int, int] | None = None,
             early_weights: bool = False) -> Estimate | None:
    """Predicted figures of ``op`` under ``placement`` with its cheapest step
    sizes (:func:`step_candidates`), or None if no step fits SRAM.
    ``program_tiles`` is the rows x cols span of every tile
    the program uses (the barrier's reach); by default the rectangle's.

    Once the results kept on chip are chosen (tessel.mapper.on_chip), an
    op is costed again at its ``steps`` as the lowering then runs it: a
    ``kept_result`` is not stored, and each input in ``on_chip_reads`` (its
    position in ``op.operands``, and the pieces a step reads it in) comes
    from the SRAM of the tiles that hold it, not from DRAM. With
    ``early_weights`` it is costed as tessel-schedule runs it after another
    op, the first loads of the weights no other tile reads during the ops
    before (tessel.mapper.early_weights says why only then)."""
    parts = placement.parts
    part = tuple(_ceil_div(l, p) for l, p in zip(op.loops, parts))
    if op.folded:
        # tessel-promote-to-sram sets the accumulator in SRAM instead.
        return Estimate(cycles=0, compute=0, transfer=0, reduce=0, barrier=0,
                        steps=part, num_steps=0, sram_bytes=0, dram_bytes=0,
                        resident_bytes=0)
    sram = arch.tile.sram.bytes
    weights = [o for o in op.operands if o.role == "weight"]
    resident = placement.resident and bool(weights)
    resident_bytes = (sum(o.slice_bytes(part) for o in weights)
                      + sum(o.seed_bytes(part) for o in op.operands
                            if o.seed_is_weight)
                      + _epilogue_weight_bytes(op, part)) if resident else 0
    if resident_bytes >= sram:
        return None
    candidates = ([steps] if steps is not None
                  else _costed_steps(op, arch, part, resident_bytes, resident))
    link = dram_link(arch, placement)
    costed = [_estimate_steps(op, arch, placement, part, steps, resident,
                              resident_bytes, overlap_dma, program_tiles, link,
                              kept_result, on_chip_reads or {}, early_weights)
              for steps in candidates]
    return min(costed, key=lambda e: e.cycles, default=None)


def _step_shapes(part: tuple[int, ...],
                 steps: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """``(shape, count)`` of the steps of a part of extents ``part`` cut
    into ``steps``: at most two sizes per loop, steps of equal shape
    together."""
    return tuple((tuple(s for s, _ in shape_counts),
                  math.prod(c for _, c in shape_counts))
                 for shape_counts in product(*(_chunks(p, s)
                                               for p, s in zip(part, steps))))


def steps_compute_cycles(op: Op, arch, part: tuple[int, ...],
                         steps: tuple[int, ...]) -> int:
    """Cycles of the instructions of every step of a part of extents
    ``part`` cut into ``steps``, each alone (:func:`compute_cycles`)."""
    return sum(count * compute_cycles(op, arch, shape)
               for shape, count in _step_shapes(part, steps))


def _costed_steps(op: Op, arch, part: tuple[int, ...], resident_bytes: int = 0,
                  resident: bool = False) -> tuple[tuple[int, ...], ...]:
    """The step sizes :func:`estimate` costs for a part of extents ``part``
    (longer streams offered on a one-tile arch only: offered on the grids
    to ops on one tile, no mapping took them, docs/mapper.md)."""
    one_tile = arch.grid.rows * arch.grid.cols == 1
    return step_candidates(op, part, arch.tile.sram.bytes - resident_bytes,
                           skip_weights=resident, array_rows=arch.tile.mac.rows,
                           short_last=True,
                           array_cols=arch.tile.mac.cols if one_tile else 0)


def least_cycles(op: Op, arch, placement: Placement) -> int:
    """Cycles :func:`estimate` cannot go below for ``op`` at ``placement``
    at the step sizes it chooses itself, weights streamed (as the mapper's
    candidate search costs it): the barrier after it and, at the cheapest
    of its step sizes, what its steps' instructions take alone (the
    epilogue's and transfers' time and a shared load's signals only add to
    them). 0 on a lone tile, whose runs of blocks join across steps. The
    candidate search skips a cut of an op's loops this shows cannot beat
    the best found (tessel.mapper.space), without costing its transfers."""
    if op.folded or placement.tiles == 1 or placement.resident:
        return 0
    part = tuple(_ceil_div(l, p) for l, p in zip(op.loops, placement.parts))
    candidates = _costed_steps(op, arch, part)
    if not candidates:
        return 0
    least = min(steps_compute_cycles(op, arch, part, steps) for steps in candidates)
    return int(math.ceil(least + barrier_cycles(arch, placement.rows, placement.cols)))


def dram_link(arch, placement: Placement) -> tuple[float, int]:
    """(rate, hops) of the rectangle's slowest DRAM path: the bytes per
    cycle its busiest tile gets and the most hops to a channel."""
    rectangle = (placement.row, placement.col, placement.rows, placement.cols)
    key = (arch_key(arch), rectangle)
    if key not in _DRAM_LINKS:
        paths = _dram_paths(arch, *rectangle)
        _DRAM_LINKS[key] = min(r for r, _ in paths), max(h for _, h in paths)
    return _DRAM_LINKS[key]


_DRAM_LINKS: dict = {}


def _estimate_steps(op: Op, arch, placement: Placement, part, steps, resident,
                    resident_bytes, overlap_dma, program_tiles,
                    link: tuple[float, int], kept_result: bool = False,
                    on_chip_reads: Mapping[int, int] = {},
                    early_weights: bool = False) -> Estimate:
    """:func:`estimate` for one choice of step sizes; ``link`` is
    :func:`dram_link` of the placement."""
    parts = placement.parts
    sram_bytes = sram_step_bytes(op, steps, resident) + resident_bytes
    rate, hops = link
    barrier = barrier_cycles(arch, *(program_tiles or (placement.rows,
                                                     placement.cols)))
    moved = [(i, o) for i, o in enumerate(op.operands)
             if (o.read or o.is_output) and not (resident and o.role == "weight")]
    compute = load_total = store_total = gather_total = last_store = 0.0
    # What the steps' runs of matmul blocks save where each goes on from
    # the previous step's (the simulator joins them when the tile does not
    # stall in between).
    joinable = 0.0
    # A lone tile waits for no other between steps: its runs join.
    lone = placement.tiles == 1
    bytes_per_tile = 0
    num_steps = 0
    # Steps of equal shape cost the same: at most two sizes per loop.
    # (shape, count, compute of one step) of the steps of each shape.
    step_shapes = []
    for shape, count in _step_shapes(part, steps):
        num_steps += count
        one_step = compute_cycles(op, arch, shape)
        step_shapes.append((shape, count, one_step))
        compute += count * one_step
        if lone and op.macs and arch.tile.mac.weight_buffers > 1:
            joinable += count * (one_step - compute_cycles(op, arch, shape, joined=True))
        # A step's lookups: one gather from DRAM, waited for where it is
        # issued (its indices are the step's own loads).
        if op.gathered_bytes:
            b = math.prod(shape) * op.gathered_bytes
            gather_total += count * transfer_cycles(arch, b, rate, hops)
            bytes_per_tile += count * b
    red_parts = math.prod(parts[l] for l in op.reduction_loops)
    # The first step's loads: the tile's own share one DRAM path and add up;
    # each shared input arrives from its own leader alongside them.
    own_first = shared_first = kept_fill = 0.0
    # With ``early_weights``, an op after another op's result loads the
    # weight slices that no other tile reads during the ops before it
    # (tessel-schedule, on tiles with a DMA channel to keep for them and no
    # DRAM channels of their own): their first loads are not its time.
    early_weights = (early_weights and arch.tile.dma.channels > 1
                     and _split_channels(arch, placement.row, placement.col) < 2
                     and any(o.source[0] == "op" for o in op.operands
                             if not o.is_output))
    # Crowded weight loads (below): their first loads, in full, and the rest.
    crowded_first = crowded_rest = 0.0
    # Per moved operand: (operand, transfers per step, rate, hops).
    per_step = []
    spread_extra = 0.0
    last_store_cut = 0.0     # last_store, the model's output cut as the tile's last store
    accumulator_set = False
    # Whether a split reduction's partials, which tessel-partition always
    # fills, are set in SRAM (see _partials_cycles).
    partials_in_sram = False
    # On a tile with DRAM channels of its own a matmul's zero fill becomes
    # its first blocks' `init` (tessel-lower-to-instructions): no vector op.
    folds_zero_fills = (op.kind == "matmul"
                        and _split_channels(arch, placement.row, placement.col) > 1)
    for i, o in moved:
        # A kept result stays in the SRAM it is computed in.
        stored = o.is_output and not kept_result
        # An accumulator starting from a fill: set in SRAM where it is loaded
        # once per element (the fill then runs no code), else loaded, and
        # the fill runs after all, costed here on this op's rectangle (a
        # folded fill costs nothing itself). A split reduction's output fill
        # goes to the reduce instead (_partials_cycles).
        filled = o.filled or (o.is_output and red_parts > 1)
        in_sram = o.read and filled and _loaded_once(o, part, steps)
        partials_in_sram |= in_sram and red_parts > 1
        accumulator_set |= in_sram
        loaded = o.read and not in_sram
        if o.filled and loaded and red_parts == 1:
            nbytes = o.slice_bytes(part)
            kept_fill = (vector_cycles(arch, "add", nbytes // o.elem_bytes, nbytes)
                         + transfer_cycles(arch, nbytes, rate, hops) + barrier)
        # An input several tiles read, in a shared placement: one multicast
        # per slice, its DRAM bytes once for the tiles sharing it.
        # Overlapping windows (halos) read once divide it further.
        sharing = placement.shared and loaded and not o.is_output
        readers = sharers(o, parts, op.loops, steps) if sharing else 1
        shared = (readers / halo_fraction(arch, o, op.loops, parts, steps)
                  if sharing else 1)
        o_rate, o_hops = (shared_link(arch, placement, link, shared,
                                      balances_over_channels(arch, o, part, steps))
                          if shared > 1 else link)
        # Read from the SRAM of the tiles that hold it: over the NoC (at
        # most across the rectangle), in pieces, with no DRAM latency and
        # no multicast.
        from_holders = on_chip_reads.get(i) if loaded else None
        if from_holders:
            readers, shared = 1, 1
            o_rate, o_hops = one_flow_rate(arch), placement.rows + placement.cols - 2
        # A shared slice also waits for the credits of the tiles it goes to
        # and tells them it has arrived: a signal each way along the
        # rectangle's longer side (the tiles reading one slice are a row or
        # a column of the parts). The leader takes the credits and signals
        # the deliveries one instruction per receiver: before the first
        # step the receivers wait for all of them (later steps' handshakes
        # run under compute).
        handshake = (2 * (max(placement.rows, placement.cols) - 1) * arch.noc.hop_cycles
                     if shared > 1 else 0)
        # Weight slices (always read from DRAM) of a convolution whose
        # windows overlap, loaded at the tile's share of a DRAM channel or
        # link that the other tiles' loads crowd, below what one transfer
        # alone moves (only there measured: docs/mapper.md, *Crowded
        # channels*).
        crowded = (o.role == "weight" and o_rate < one_transfer_rate(arch)
                   and _windows_overlap(op))
        first_handshake = handshake + 2 * (readers - 1) * _ISSUE
        last_shape = (_last_transfer(o, part, steps)
                      if o.is_output and op.epilogue is None else None)
        # An input no step changes, of at least what a transfer moves in
        # its fixed cost, is loaded once and kept (tessel-promote-to-sram);
        # costed so on a lone tile only. On a rectangle it is costed at
        # every step: costed once, one of ResNet-18's 3x3 convolutions on
        # tessel-4x4 took steps of 14 rows and all 64 channels instead of
        # 28 rows and 32, and the model ran 3,063 cycles slower.
        kept = lone and o.slice_bytes(part) >= fixed_transfer_bytes(arch)
        transfers = _transfers(o, part, steps, kept=kept)
        if o.is_output:
            slices = sum(c for _, c in transfers)
        if loaded or stored:
            per_step.append((o, sum(c for _, c in transfers) / num_steps,
                             o_rate, o_hops))
        for shape, count in transfers:
            b = o.slice_bytes(shape)
            one = (on_chip_transfer_cycles(arch, b, from_holders, o_rate, o_hops)
                   if from_holders
                   else transfer_cycles(arch, b, o_rate, o_hops) + handshake)
            if loaded and crowded:
                # A shared slice's credit and delivery signals, like the
                # fixed costs, run while the other tiles' flows go on.
                later = later_transfer_cycles(arch, b, o_rate, o_hops)
                load_total += count * later
                crowded_rest += count * later
            elif loaded:
                load_total += count * one
            if stored:
                store_total += count * one
                # A store spread between the next result slice's steps
                # pays a setup and a latency per piece.
                pieces = spread_store_pieces(op, arch, steps, b,
                                             num_steps // slices,
                                             (placement.row, placement.col))
                spread_extra += (count * (pieces - 1)
                                 * transfer_cycles(arch, 0, o_rate, o_hops))
            if stored and op.epilogue is not None:
                # The largest slice's store: an epilogue's result leaves
                # whole after it, and steps of two sizes, which its last
                # store would favour, measured slower (docs/mapper.md).
                last_store = max(last_store, one)
                last_store_cut = max(last_store_cut, one)
            elif stored and shape == last_shape:
                # The last step's store stands after the compute; cut into
                # pieces that leave as the step's blocks finish
                # (tessel-early-stores), its last piece, or what the step's
                # compute did not drain of the whole.
                def tail(last: bool) -> float:
                    pieces = early_store_pieces(op, arch, shape, b,
                                                (placement.row, placement.col),
                                                last=last)
                    if pieces == 1:
                        return one
                    last_step = tuple(_chunks(p, s)[-1][0]
                                      for p, s in zip(part, steps))
                    drained = (compute_cycles(op, arch, last_step)
                               * (pieces - 1) / pieces)
                    return max(transfer_cycles(arch, b / pieces, o_rate, o_hops)
                               + handshake, one - drained)
                whole = tail(False)
                last_store = max(last_store, whole)
                # The model's output is taken for the tile's last store.
                last_store_cut = max(last_store_cut,
                                     tail(True) if o.role == "output" else whole)
            bytes_per_tile += count * (int(loaded and not from_holders) / shared
                                       + int(stored)) * b
            if in_sram and not (folds_zero_fills and not o.seed_dims):
                compute += count * vector_cycles(arch, "add", b // o.elem_bytes, b)
                # Set from a seed: its slice is loaded first, unless it is
                # kept with the resident weights.
                seed = 0 if resident and o.seed_is_weight else o.seed_bytes(shape)
                if seed:
                    load_total += count * transfer_cycles(arch, seed, rate, hops)
                    bytes_per_tile += count * seed
            if shared > 1:
                compute += count * 4 * _ISSUE
        if in_sram and o.seed_dims and not (resident and o.seed_is_weight):
            own_first += transfer_cycles(arch, o.seed_bytes(steps), rate, hops)
        if loaded:
            b = o.slice_bytes(steps)
            first = (on_chip_transfer_cycles(arch, b, from_holders, o_rate, o_hops)
                     if from_holders
                     else transfer_cycles(arch, b, o_rate, o_hops) + first_handshake)
            if shared > 1:
                shared_first = max(shared_first, first)
            elif (early_weights and o.role == "weight" and not resident
                  and not from_holders and not crowded):
                load_total -= first
            else:
                own_first += first
            if crowded:
                # Its first load pays the fixed cost in full.
                later = later_transfer_cycles(arch, b, o_rate, o_hops)
                load_total += first - later
                crowded_first += first
                crowded_rest -= later
    # An epilogue runs on each slice of the result before it is stored,
    # its other inputs' slices loaded first.
    if op.epilogue is not None:
        out = next(o for o in op.operands if o.is_output)
        for shape, count in _transfers(out, part, steps):
            result = _result_slice(op, shape)
            compute += count * compute_cycles(op.epilogue, arch, result)
            for o in op.epilogue.operands:
                if o.is_output or o.source == ("op", op.index) \
                        or (resident and o.role == "weight"):
                    continue
                b = o.slice_bytes(result)
                load_total += count * transfer_cycles(arch, b, rate, hops)
                bytes_per_tile += count * b
    first_load = max(own_first, shared_first)
    # tessel-spread-stores leaves the stores of a tile whose transfers
    # outlast its products where they are; tessel-early-stores cuts the last
    # store of one that runs its transfers in issue order only elsewhere.
    dram_bound = _dram_bound(op, arch, placement, bytes_per_tile)
    spreads = spread_extra > 0 and not dram_bound
    if not dram_bound:
        last_store = last_store_cut
    store_total += spread_extra if spreads else 0.0
    transfer = load_total + store_total
    # Steps of two or more shapes (a short last chunk of a loop): a shape
    # whose loads and stores take longer than its compute stalls the tile
    # by the difference, whatever slack the others have (a lone tile's:
    # measured there; GEMM 1024^3 in steps of 224 rows on a 768 KiB tile
    # stalled 41,000 cycles in its last 128 rows).
    if lone and overlap_dma and len(step_shapes) > 1:
        for shape, count, one_step in step_shapes:
            moving = 0.0
            for o, per, o_rate, o_hops in per_step:
                b = o.slice_bytes(shape)
                one = transfer_cycles(arch, b, o_rate, o_hops)
                if o.is_output and spreads:
                    pieces = spread_store_pieces(op, arch, shape, b,
                                                 round(1 / per),
                                                 (placement.row, placement.col))
                    one += (pieces - 1) * transfer_cycles(arch, 0, o_rate, o_hops)
                moving += per * one
            compute += count * max(0.0, moving - one_step)
    # Joined are the steps after the first, but for the first of each
    # result slice where vector work on the accumulator (setting it, an
    # epilogue) comes between. Only a lone tile's: the tiles of a rectangle
    # wait between steps for each other's credits and deliveries, and
    # whether those waits stall (which ends a run) is not known here.
    if joinable:
        slices = sum(c for _, c in _transfers(next(o for o in op.operands
                                                   if o.is_output), part, steps))
        breaks = slices if op.epilogue is not None or accumulator_set else 1
        compute -= joinable * max(0, num_steps - breaks) / num_steps

    reduce = 0
    if red_parts > 1:
        reduce = _partials_cycles(op, arch, placement, red_parts, rate, hops,
                                  barrier, partials_in_sram)

    if overlap_dma:
        # tessel-schedule issues each step's loads while the previous step
        # computes, and waits for a store at the next: only the first loads
        # and the last store are not under compute.
        # The last step computes after its loads: where the tile's crowded
        # weight loads outlast the compute, nothing hides the last step's
        # compute. They run beside the windows' loads and the stores where
        # the tile has a DMA channel to spare (tessel-assign-dma-channels
        # gives a tile's transfers its channels in turn).
        alone = first_load + last_store + gather_total
        others = load_total - first_load + store_total - last_store
        crowded = 0.0
        if crowded_first:
            last_compute = step_shapes[-1][2] if num_steps > 1 else 0
            crowded = crowded_rest + last_compute
            if arch.tile.dma.channels > 1:
                others = (load_total - crowded_first - crowded_rest
                          + store_total - last_store)
        body = alone + max(compute, others, crowded)
    else:
        body = compute + transfer + gather_total
    cycles = int(math.ceil(body + reduce + barrier + kept_fill))
    return Estimate(cycles=cycles, compute=int(compute),
                    transfer=int(transfer + gather_total),
                    reduce=int(reduce), barrier=barrier, steps=steps,
                    num_steps=num_steps, sram_bytes=sram_bytes,
                    dram_bytes=int(bytes_per_tile * placement.tiles),
                    resident_bytes=resident_bytes,
                    dram_cycles=int(math.ceil(bytes_per_tile * placement.tiles
                                              / arch.dram_bytes_per_cycle)))


def _windows_overlap(op: Op) -> bool:
    """Whether ``op`` is a convolution whose neighbouring outputs read
    overlapping windows of its input (a kernel longer than its stride along
    some dimension): not a 1 x 1 convolution, nor one over disjoint
    patches."""
    if op.kind != "conv":
        return False
    for o in op.operands:
        if o.is_output or o.role == "weight":
            continue
        for access in o.access:
            if access.terms is None or len(access.terms) != 2:
                continue
            kernel = [t for t in access.terms if t[0] in op.reduction_loops]
            output = [t for t in access.terms if t[0] not in op.reduction_loops]
            if len(kernel) != 1 or len(output) != 1:
                continue
            (kernel_loop, dilation), (_, stride) = kernel[0], output[0]
            if dilation * (op.loops[kernel_loop] - 1) + 1 > stride:
                return True
    return False


def _partials_cycles(op: Op, arch, placement: Placement, red_parts: int,
                     rate: float, hops: int, barrier: int,
                     partials_in_sram: bool) -> float:
    """What a split reduction adds (tessel-partition): a fill of the
    ``red_parts`` partial results and a reduce adding them to the output,
    both in DRAM, both over the op's rectangle (their largest parallel loop
    split over it where it divides evenly, else on one tile), each ending in
    a barrier. The op itself writes partials of the output's size, which
    :func:`estimate` counts already. Where the op sets its partials in SRAM
    (``partials_in_sram``), their fill is folded into it
    (tessel-promote-to-sram),
    and so is the output's fill into the reduce where the op's was."""
    out = next(o for o in op.operands if o.is_output)
    elems = math.prod(out.shape)
    widest = max(out.shape, default=1)
    share = placement.tiles if widest % placement.tiles == 0 else 1
    item = out.elem_bytes
    partials = red_parts * elems // share
    result = elems // share
    fill = 0 if partials_in_sram else (
        vector_cycles(arch, "add", partials, partials * item)
        + transfer_cycles(arch, partials * item, rate, hops) + barrier)
    # The reduce's accumulator: the output's fill, folded or loaded.
    if out.filled:
        loaded = partials
        fill += vector_cycles(arch, "add", result, result * item)
    else:
        loaded = partials + result
    add_up = (transfer_cycles(arch, loaded * item, rate, hops)
              + vector_cycles(arch, "reduce_add", partials,
                              (partials + result) * item)
              + vector_cycles(arch, "add", result, 3 * result * item)
              + transfer_cycles(arch, result * item, rate, hops))
    return fill + add_up + barrier


def roofline_cycles(op: Op, arch, tiles: int | None = None) -> int:
    """The op's lower bound on ``tiles`` tiles (all by default): its MACs at
    the peak rate, or its unavoidable DRAM traffic (operands read once,
    result written once) at the DRAM channels' total bandwidth; none for a
    fill folded into its consumer, which does no work of its own."""
    if op.folded:
        return 0
    tiles = tiles or arch.num_tiles
    macs_rate = tiles * arch.tile.mac.macs_per_cycle.get(mac_dtype(op), 1)
    compute = op.macs / macs_rate if op.macs else 0
    if not op.macs:
        elems = math.prod(op.loops)
        compute = elems * max(1, op.vector_ops) / (tiles * arch.tile.vector.lanes)
    traffic = sum(o.nbytes for o in op.operands if o.read or o.is_output)
    return int(math.ceil(max(compute, traffic / arch.dram_bytes_per_cycle)))
