"""The search space: the options a mapping is solved under, the candidate
placements of each op with their predicted cost, and the result every
mapper returns.

All three mappers (greedy, CP-SAT, exhaustive) choose among the same
candidates, so their objectives compare exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from . import cost
from .cost import (Estimate, Placement, arch_key, estimate, least_cycles,
                   shares_slices, uses_every_part)
from .graph import Graph, Op

OBJECTIVES = ("latency", "throughput")


@dataclass(frozen=True)
class MapperOptions:
    """How to map. Every choice the mappers make, under any options, is
    one the lowering consumes; a hand-made solution that is not is reported
    and not written into the IR (``apply.unsupported``).

    - ``objective``: ``latency`` (one input; the sum of the ops' cycles) or
      ``throughput`` (a stream of inputs: the longest pipeline stage, then
      the latency).
    - ``max_stages``: pipeline stages (concurrent, on disjoint rectangles),
      which overlap when the program computes a stream of inputs
      (``compile_imported(..., stream=N)``).
    - ``split_reductions``: allow a reduction loop split across tiles, alone
      (split-K) or together with parallel loops: tessel-partition computes
      each part's partial result, which a reduce adds up through DRAM; the
      cost model counts both. On by default.
    - ``resident_weights``: allow weights kept in SRAM over a stream of
      inputs (throughput only; ``resident`` in the mapping).
    - ``overlap_dma``: predict with transfers overlapped with compute, as
      tessel-schedule's double buffering does (on by default; off predicts
      every transfer waited for at once).
    - ``time_limit_s``: CP-SAT's limit, in deterministic time (about seconds
      on one core), so a limited run gives the same answer every time.
    - ``seed``, ``workers``: CP-SAT's random seed and worker count. One
      worker repeats exactly; with two (interleaved search) equal-cost
      answers were seen to differ between runs.
    - ``max_candidates``: placements kept per op (the cheapest of the
      Pareto set over rectangle shape and cycles).
    - ``even_splits``: cut a loop only into parts that divide it. Off by
      default: the passes lower a short last part like any other (a ViT's
      197 tokens over 16 tiles), as tessel-default-mapping's splits always
      did; such a cut is a candidate where it beats every even one by
      ``UNEVEN_MARGIN``.
    - ``single_tile_ops``: allow an op that has a parallel loop to run on
      one tile (on by default; the lowering keeps its one-part partition).
    - ``on_chip``: keep results between ops in the SRAM of the tiles that
      computed them where the SRAM holds them (``on_chip`` in the mapping;
      :mod:`tessel.mapper.on_chip`). On by default, where the mapping has
      one pipeline stage; for the latency objective the placements are
      then chosen with the results they hand over on chip
      (:mod:`tessel.mapper.handover`), plus the candidates that line a
      result's writer and readers up. ``max_candidates`` does not cap those.
    """

    objective: str = "latency"
    max_stages: int = 1
    split_reductions: bool = True
    resident_weights: bool = False
    overlap_dma: bool = True
    time_limit_s: float = 10.0
    seed: int = 0
    workers: int = 1
    max_candidates: int = 16
    even_splits: bool = False
    single_tile_ops: bool = True
    on_chip: bool = True

    def __post_init__(self):
        if self.objective not in OBJECTIVES:
            raise ValueError(f"mapper objective {self.objective!r} is not one of "
                             f"{', '.join(OBJECTIVES)}")
        if self.max_stages < 1:
            raise ValueError(f"mapper max_stages = {self.max_stages} must be >= 1")
        if self.objective == "latency" and self.max_stages != 1:
            raise ValueError("pipeline stages help only a stream of inputs: use "
                             "objective='throughput' with max_stages > 1")
        if self.resident_weights and self.objective != "throughput":
            raise ValueError("resident weights pay off only over a stream of "
                             "inputs: use objective='throughput'")
        if self.time_limit_s <= 0:
            raise ValueError(f"mapper time_limit_s = {self.time_limit_s} must be > 0")
        if self.workers < 1:
            raise ValueError(f"mapper workers = {self.workers} must be >= 1")
        if self.max_candidates < 1:
            raise ValueError(f"mapper max_candidates = {self.max_candidates} "
                             "must be >= 1")


@dataclass(frozen=True)
class Candidate:
    placement: Placement
    estimate: Estimate


def placement_key(candidate: Candidate) -> Placement:
    """A candidate's placement wherever its rectangle lies (CP-SAT places
    the rectangles after choosing)."""
    return replace(candidate.placement, row=0, col=0)


@dataclass(frozen=True)
class Choice:
    """The decision for one op: its candidate and pipeline stage, and where
    its rectangle lies (the stage's north-west corner)."""

    op: int
    candidate: Candidate
    stage: int = 0

    @property
    def placement(self) -> Placement:
        return self.candidate.placement

    @property
    def cycles(self) -> int:
        return self.candidate.estimate.cycles


def stage_cycles(choices) -> dict[int, int]:
    """Cycles of each pipeline stage under ``choices``: its ops' sum."""
    out: dict[int, int] = {}
    for c in choices:
        out[c.stage] = out.get(c.stage, 0) + c.cycles
    return out


def interval(choices) -> int:
    """Cycles between two inputs of a stream under ``choices``: see
    :attr:`Solution.interval`."""
    dram = sum(c.candidate.estimate.dram_cycles for c in choices)
    return max(max(stage_cycles(choices).values(), default=0), dram)


@dataclass(frozen=True)
class Solution:
    """A mapping of every op. ``objective`` is what the mapper minimized
    (cycles of one input for latency; the longest stage for throughput),
    ``bound`` the best proven lower bound (equal when optimal)."""

    method: str
    choices: tuple[Choice, ...]
    objective: int
    bound: int
    solve_seconds: float
    status: str = "OPTIMAL"
    notes: tuple[str, ...] = field(default=())
    # The ops whose results stay in their tiles' SRAM (tessel.mapper.on_chip).
    on_chip: frozenset[int] = frozenset()
    # The writers whose results the objective counts as handed over on chip
    # (tessel.mapper.handover).
    handed_over: frozenset[int] = frozenset()

    @property
    def gap(self) -> float:
        return (self.objective - self.bound) / self.objective if self.objective else 0.0

    @property
    def latency(self) -> int:
        return sum(c.cycles for c in self.choices)

    def stage_cycles(self) -> dict[int, int]:
        return stage_cycles(self.choices)

    @property
    def interval(self) -> int:
        """Cycles between two inputs of a stream: the longest stage, or the
        DRAM traffic of all stages at the chip's DRAM bandwidth (the stages
        run at once and share the DRAM channels), if that is longer."""
        return interval(self.choices)


# ---------------------------------------------------------------------------
# Candidates.
# ---------------------------------------------------------------------------

def _side_values(n: int) -> list[int]:
    """Rectangle side lengths tried on a grid side of ``n``: all for small
    grids, powers of two and three times them (and ``n``) for large ones."""
    if n <= 8:
        return list(range(1, n + 1))
    values = {n}
    p = 1
    while p <= n:
        values.add(p)
        if 3 * p <= n:
            values.add(3 * p)
        p *= 2
    return sorted(values)


# An uneven cut (its last part shorter) is a candidate only if predicted
# faster than every even one by more than this: above the cost model's
# median error per layer (6.7 %, docs/mapper.md). Where they come closer
# the model cannot rank them. The MLP's last layer on tessel-4x4: 10
# columns over 4 x 4 tiles as 3, 3, 3 and 1 were predicted 537 cycles
# against the even 8 x 2 cut's 569, and simulated 570 against 530; as 4, 4
# and 2 over 3 x 4 tiles, predicted 557, simulated 611.
UNEVEN_MARGIN = 0.1


# The ISA's vector_reduce takes ranks 1 to 4 (docs/isa.md).
MAX_REDUCE_RANK = 4


def partials_fit_the_isa(op: Op) -> bool:
    """Whether a split of ``op``'s reduction can be added up: its partials
    have one more dimension than the output (tessel-partition), and the
    reduce that adds them is a vector_reduce of that rank. Every dimension
    of the output is one loop's: MLIR's partial reductions place each
    part's partials by the output's loops, so a dimension kept at one
    element (a layer norm's ``1x128x1`` mean, indexed by a constant) has
    none."""
    outputs = [o for o in op.operands if o.is_output]
    return (len(outputs) == 1 and len(outputs[0].shape) + 1 <= MAX_REDUCE_RANK
            and all(a.loop() is not None for a in outputs[0].access))


def uneven_reduction_split(op: Op, parts) -> list[int]:
    """The loops ``parts`` cuts unevenly when it also splits a reduction
    loop: tessel-partition computes a split reduction's partials only over
    parts that divide every split loop, so these make a mapping it rejects.
    Empty when no reduction loop is split."""
    if not any(parts[l] > 1 for l in op.reduction_loops):
        return []
    return [l for l, p in enumerate(parts) if op.loops[l] % p]


def factorizations(n: int, extents: list[tuple[int, int]], even: bool,
                   limit: int = 3):
    """Ways to cut ``n`` parts over ``(loop, extent)`` (at most ``limit``
    loops split, every part non-empty, parts dividing the extent if
    ``even``), as {loop: parts}."""
    def rec(i, remaining, split):
        if remaining == 1:
            yield {}
            return
        if i == len(extents) or split == limit:
            return
        loop, extent = extents[i]
        for p in range(1, min(remaining, extent) + 1):
            if remaining % p or not uses_every_part(extent, p) \
                    or (even and extent % p):
                continue
            for rest in rec(i + 1, remaining // p, split + (p > 1)):
                yield ({loop: p, **rest} if p > 1 else rest)
    yield from rec(0, n, 0)


def divides(op: Op, parts) -> bool:
    """Whether ``parts`` cuts every loop of ``op`` into equal parts."""
    return all(extent % p == 0 for extent, p in zip(op.loops, parts))


def default_placement(op: Op, arch) -> Placement:
    """What tessel-default-mapping writes: the largest parallel loop (the
    outermost of equals) over the largest rectangle at (0, 0) whose tiles
    all get a part, fewer rows first."""
    split = None
    for loop in op.parallel_loops:
        if op.loops[loop] >= 2 and (split is None or op.loops[loop] > op.loops[split]):
            split = loop
    parts = [1] * len(op.loops)
    shape = (1, 1)
    if split is not None:
        for rows in range(1, arch.grid.rows + 1):
            for cols in range(1, arch.grid.cols + 1):
                if rows * cols > shape[0] * shape[1] and \
                        uses_every_part(op.loops[split], rows * cols):
                    shape = (rows, cols)
        parts[split] = shape[0] * shape[1]
    # tessel-default-mapping shares the inputs its split does not index.
    shared = any(split not in o.indexed_loops for o in op.operands
                 if o.read and not o.is_output) and shape != (1, 1)
    return Placement(0, 0, shape[0], shape[1], tuple(parts), shared=shared)


# The fields of an op that name it rather than shape its cost.
_NAMING_FIELDS = ("index", "name", "tag")


def _op_key(op: Op, producer: int | None = None):
    """Ops with equal keys have equal candidates: ResNet repeats its
    convolutions' shapes, each reading another op's result. Every field
    counts but those that name the op; of an operand's source only its
    kind does, and for an epilogue whether it is its producer's result
    (all the cost model reads of it)."""
    producer = op.index if producer is None else producer

    def operand_key(o):
        kind, index = o.source
        return replace(o, source=(kind, kind == "op" and index == producer))

    def field_key(name: str):
        value = getattr(op, name)
        if name == "operands":
            return tuple(operand_key(o) for o in value)
        if name == "epilogue" and value is not None:
            return _op_key(value, producer)
        return value

    return tuple(field_key(f.name) for f in fields(op)
                 if f.name not in _NAMING_FIELDS)


def candidates(op: Op, arch, options: MapperOptions) -> tuple[Candidate, ...]:
    """The placements the mappers choose among for ``op``, cheapest first:
    per rectangle shape the best way to cut the loops into equal parts and
    the best into unequal ones (kept where it beats every equal cut by
    ``UNEVEN_MARGIN``), then the Pareto set
    over (shape, cycles), capped at ``options.max_candidates`` (as many
    again with resident weights, when allowed); the default mapping's
    placement is always among them."""
    key = (arch_key(arch), _op_key(op), options.split_reductions,
           options.resident_weights, options.overlap_dma, options.max_candidates,
           options.single_tile_ops, options.even_splits)
    if key not in _CANDIDATES:
        _CANDIDATES[key] = _candidates(op, arch, *key[2:])
    return _CANDIDATES[key]


_CANDIDATES: dict = {}


def clear_caches() -> None:
    """Forget the candidates costed so far and the cost model's caches: the
    next mapping starts cold, as in a fresh process."""
    _CANDIDATES.clear()
    cost.clear_caches()


def epilogue_estimates(producer: Op, arch, options: MapperOptions):
    """The cheapest candidate of ``producer`` running its epilogue, and
    those of the two apart; None where one of them has no candidate."""
    fused = candidates(producer, arch, options)
    apart = (candidates(replace(producer, epilogue=None), arch, options),
             candidates(replace(producer.epilogue, folded=False), arch, options))
    if not fused or not all(apart):
        return None
    return fused[0], apart[0][0], apart[1][0]


# An epilogue is kept only where running it on its producer is predicted
# faster than the two apart by at least 1 / EPILOGUE_DIVISOR: BERT's FFN on
# tessel-4x4, its GELU one instruction, was predicted 0.6 % faster with the
# GELU on the first matmul's slices (cut 4 x 4 rather than 2 x 8) and ran
# 1.4 % slower (1,369,491 cycles against 1,350,616 apart).
EPILOGUE_DIVISOR = 100


def epilogue_pays(fused: Candidate, alone: Candidate, rest: Candidate) -> bool:
    """Whether the producer running its epilogue (``fused``) is predicted
    faster than the two apart by at least 1 / EPILOGUE_DIVISOR."""
    apart = alone.estimate.cycles + rest.estimate.cycles
    return (apart - fused.estimate.cycles) * EPILOGUE_DIVISOR >= apart


def choose_epilogues(graph: Graph, arch, options: MapperOptions) -> Graph:
    """``graph`` with each epilogue (``graph.fold_epilogues``) kept only
    where its producer's cheapest placement running it is predicted faster
    than the cheapest placements of the two apart, by ``1 /
    EPILOGUE_DIVISOR``: an epilogue saves its result's round trip through
    DRAM, but its inputs and temporaries take SRAM from the producer's
    steps and its vector work runs in them."""
    ops = list(graph.ops)
    for i, op in enumerate(ops):
        if op.epilogue is None:
            continue
        j = op.epilogue.index
        best = epilogue_estimates(op, arch, options)
        if best and epilogue_pays(*best):
            continue
        ops[i], ops[j] = replace(op, epilogue=None), replace(ops[j], folded=False)
    return replace(graph, ops=tuple(ops))


def _costed(op: Op, arch, placement: Placement, overlap: bool) -> Candidate | None:
    e = estimate(op, arch, placement, overlap_dma=overlap)
    return None if e is None else Candidate(placement, e)


def placed(op: Op, arch, placement: Placement, overlap: bool) -> Candidate | None:
    """``op`` at ``placement``, shared where that shares a load and is
    cheaper, at its cheapest steps; None where no step fits SRAM."""
    plain = _costed(op, arch, placement, overlap)
    if not shares_slices(op, placement.parts):
        return plain
    shared = _costed(op, arch, replace(placement, shared=True), overlap)
    if plain is None or (shared and shared.estimate.cycles < plain.estimate.cycles):
        return shared
    return plain


def _candidates(op: Op, arch, split_reductions: bool, resident: bool,
                overlap: bool, cap: int, single_tile: bool,
                even: bool) -> tuple[Candidate, ...]:
    split_reductions = split_reductions and partials_fit_the_isa(op)
    loops = [(l, op.loops[l]) for l in range(len(op.loops))
             if op.loops[l] >= 2 and (op.iterators[l] == "parallel" or split_reductions)]
    splittable = any(op.loops[l] >= 2 for l in op.parallel_loops)
    shapes = [(r, c) for r in _side_values(arch.grid.rows)
              for c in _side_values(arch.grid.cols)
              if single_tile or not splittable or r * c > 1 or arch.num_tiles == 1]
    counts = sorted({r * c for r, c in shapes})
    # Each placement costed once: the best cuts are placed again on every
    # rectangle of their tile count, the squarest among them.
    costed: dict[Placement, Candidate | None] = {}

    def placed_once(placement: Placement) -> Candidate | None:
        if placement not in costed:
            costed[placement] = placed(op, arch, placement, overlap)
        return costed[placement]

    # The best cut per tile count, judged on the squarest rectangle of it:
    # the best even one (every part the same) and the best uneven one.
    best_parts: dict[int, list[tuple[int, ...]]] = {}
    for n in counts:
        r, c = min(((r, c) for r, c in shapes if r * c == n),
                   key=lambda s: (abs(s[0] - s[1]), s[0]))
        # The first cheapest of each kind, in the order the cuts come:
        # costed from the least their steps' instructions take up, a cut
        # whose floor exceeds the best of its kind (or equals it, coming
        # later) is not costed. An uneven cut is kept only well below the
        # best even one (UNEVEN_MARGIN), so the two kinds never tie below.
        cuts = []
        for index, cut in enumerate(factorizations(n, loops, even)):
            parts = tuple(cut.get(l, 1) for l in range(len(op.loops)))
            if uneven_reduction_split(op, parts):
                continue
            placement = Placement(0, 0, r, c, parts)
            cuts.append((least_cycles(op, arch, placement), index, placement))
        best = {}
        for least, index, placement in sorted(cuts, key=lambda c: c[:2]):
            kind = divides(op, placement.parts)
            if kind in best and (least, index) > best[kind][0]:
                continue
            cand = placed_once(placement)
            if cand and (kind not in best
                         or (cand.estimate.cycles, index) < best[kind][0]):
                best[kind] = ((cand.estimate.cycles, index), cand)
        best_parts[n] = [b.placement.parts for _, b in
                         sorted(best.values(), key=lambda b: b[0][1])]

    found: list[Candidate] = []
    for r, c in shapes:
        for parts in best_parts.get(r * c, ()):
            for res in ((False, True) if resident and op.weight_bytes else (False,)):
                cand = placed_once(Placement(0, 0, r, c, parts, resident=res))
                if cand:
                    found.append(cand)
    # An uneven cut only where it beats every even one by more than the
    # model's error (UNEVEN_MARGIN).
    even_best = min((a.estimate.cycles for a in found
                     if divides(op, a.placement.parts)), default=None)
    if even_best is not None:
        found = [a for a in found if divides(op, a.placement.parts)
                 or a.estimate.cycles < (1 - UNEVEN_MARGIN) * even_best]
    default = _costed(op, arch, default_placement(op, arch), overlap)

    def dominated(a: Candidate) -> bool:
        pa, ea = a.placement, a.estimate
        return any(b is not a and b.placement.rows <= pa.rows
                   and b.placement.cols <= pa.cols
                   and b.estimate.cycles <= ea.cycles
                   and b.placement.resident <= pa.resident
                   and (b.estimate.cycles, b.placement.tiles)
                   < (ea.cycles, pa.tiles)
                   for b in found)

    def order(a: Candidate):
        # Among equal predictions, the one that moves fewer DRAM bytes
        # first, and a shared load before its unshared twin (the mappers
        # take the first of equals): the latency does not count the DRAM
        # bandwidth a placement leaves to the ops around it.
        return (a.estimate.cycles, a.placement.tiles, a.placement.rows,
                a.placement.resident, a.estimate.dram_bytes,
                not a.placement.shared)

    pareto = sorted((a for a in found if not dominated(a)), key=order)
    # Streamed and resident placements are capped apart: resident ones are
    # cheaper per input and would crowd out the streamed ones, which need
    # less SRAM and may be what lets a stage's ops fit together; allowing
    # resident weights must never leave the mappers fewer choices.
    kept = sorted([a for a in pareto if not a.placement.resident][:cap]
                  + [a for a in pareto if a.placement.resident][:cap], key=order)
    # The smallest rectangle stays, so a pipeline can always pack.
    smallest = min(pareto, key=lambda a: (a.placement.tiles, a.estimate.cycles),
                   default=None)
    if smallest is not None and smallest not in kept:
        kept.append(smallest)
    if default is not None and default not in kept:
        kept.append(default)
    if not kept:
        raise ValueError(f"op {op.label()} has no placement whose steps fit "
                         f"{arch.tile.sram.bytes} bytes of SRAM")
    return tuple(sorted(kept, key=order))


# The objective of choices that use a candidate offered to hand a result
# over without handing it over (Problem.aligned): no mapping.
INVALID = 1 << 62


@dataclass
class Problem:
    """A graph to map: its candidates and how objectives are scored. For
    throughput the objective is ``interval * weight + latency`` with
    ``weight`` above any latency, so the interval comes first."""

    graph: Graph
    arch: object
    options: MapperOptions
    cands: list[tuple[Candidate, ...]]
    # The results that may stay on chip, weighed with the placements
    # (tessel.mapper.handover.with_handovers; one stage, latency), and the
    # candidates offered only to hand one over: (op, placement_key).
    handovers: tuple = ()
    aligned: frozenset = frozenset()

    @classmethod
    def build(cls, graph: Graph, arch, options: MapperOptions) -> "Problem":
        return cls(graph, arch, options,
                   [candidates(op, arch, options) for op in graph.ops])

    @property
    def weight(self) -> int:
        return sum(max(c.estimate.cycles for c in cs) for cs in self.cands) + 1

    def objective(self, choices) -> int:
        latency = sum(c.cycles for c in choices)
        if self.options.objective == "latency":
            saved, _, used = self._handovers_counted(choices)
            unused = self.aligned - used
            if any((c.op, placement_key(c.candidate)) in unused for c in choices):
                return INVALID
            return latency - saved
        return interval(choices) * self.weight + latency

    def handed_over(self, choices) -> tuple[int, frozenset]:
        """Cycles saved by the results ``choices`` hand over on chip, and
        their writers (tessel.mapper.handover). One that saves nothing
        beyond its margin is not counted (CP-SAT leaves it out too)."""
        saved, writers, _ = self._handovers_counted(choices)
        return saved, writers

    def _handovers_counted(self, choices):
        """:meth:`handed_over`, and the candidates of the writers and
        readers of those results, as (op, placement_key)."""
        chosen = {c.op: placement_key(c.candidate) for c in choices}
        total, writers, used = 0, set(), set()
        for h in self.handovers:
            saved = h.saved(chosen)
            if saved is not None and saved > 0:
                total += saved
                writers.add(h.writer)
                used.update((op, chosen[op]) for op in h.ops())
        return total, frozenset(writers), frozenset(used)

    def latency_bound(self) -> int:
        """Latency no mapping beats: each op at its cheapest candidate, less
        the most every result handed over could save."""
        return (sum(min(c.estimate.cycles for c in cs) for cs in self.cands)
                - sum(h.most_saved() for h in self.handovers))


def pack(rects: list[tuple[int, int]], rows: int, cols: int):
    """North-west corners placing rectangles ``(h, w)`` without overlap on
    a ``rows x cols`` grid, in the order given, or None if they cannot be
    placed (exact: backtracking over positions, largest first)."""
    if sum(h * w for h, w in rects) > rows * cols:
        return None
    if any(h > rows or w > cols for h, w in rects):
        return None
    order = sorted(range(len(rects)), key=lambda i: -rects[i][0] * rects[i][1])
    grid = [[False] * cols for _ in range(rows)]
    corners: dict[int, tuple[int, int]] = {}

    def free(r, c, h, w):
        return all(not grid[i][j] for i in range(r, r + h) for j in range(c, c + w))

    def mark(r, c, h, w, v):
        for i in range(r, r + h):
            for j in range(c, c + w):
                grid[i][j] = v

    def place(k):
        if k == len(order):
            return True
        h, w = rects[order[k]]
        for r in range(rows - h + 1):
            for c in range(cols - w + 1):
                if free(r, c, h, w):
                    mark(r, c, h, w, True)
                    corners[order[k]] = (r, c)
                    if place(k + 1):
                        return True
                    mark(r, c, h, w, False)
        return False

    return [corners[i] for i in range(len(rects))] if place(0) else None
