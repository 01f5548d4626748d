"""The exhaustive mapper: every combination of candidates and every cut into
contiguous stages, packed exactly onto the grid. Exponential; for small
graphs, where it proves the CP-SAT mapper's answer optimal (same candidates,
same objective, same constraints)."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import replace

from .space import Choice, Problem, Solution, pack

# Refuse beyond this many combinations: the mapper is a check, not a tool.
MAX_COMBINATIONS = 2_000_000


def _cuts(n: int, stages: int):
    """Stage of each of ``n`` ops, contiguous, at most ``stages`` stages."""
    for k in range(1, min(stages, n) + 1):
        for bounds in itertools.combinations(range(1, n), k - 1):
            edges = (0, *bounds, n)
            yield [s for s in range(k) for _ in range(edges[s], edges[s + 1])]


def solve(problem: Problem) -> Solution:
    start = time.perf_counter()
    arch, options, cands = problem.arch, problem.options, problem.cands
    n = len(cands)
    stages = options.max_stages if options.objective == "throughput" else 1
    combos = math.prod(len(cs) for cs in cands) * sum(
        math.comb(n - 1, k - 1) for k in range(1, min(stages, n) + 1))
    if combos > MAX_COMBINATIONS:
        raise ValueError(f"the exhaustive mapper would try {combos} mappings "
                         f"(at most {MAX_COMBINATIONS}); use cpsat")
    sram = arch.tile.sram.bytes
    packed: dict = {}
    best = None
    for stage_of in _cuts(n, stages):
        k = max(stage_of) + 1
        for picks in itertools.product(*cands):
            dims = [(0, 0)] * k
            residents, peaks = [0] * k, [0] * k
            for p, s in zip(picks, stage_of):
                dims[s] = (max(dims[s][0], p.placement.rows),
                           max(dims[s][1], p.placement.cols))
                e = p.estimate
                residents[s] += e.resident_bytes
                peaks[s] = max(peaks[s], e.sram_bytes - e.resident_bytes)
            if any(r + w > sram for r, w in zip(residents, peaks)):
                continue
            key = tuple(dims)
            if key not in packed:
                packed[key] = pack(dims, arch.grid.rows, arch.grid.cols) \
                    if k > 1 else [(0, 0)]
            corners = packed[key]
            if corners is None:
                continue
            choices = [Choice(i, replace(p, placement=replace(
                p.placement, row=corners[s][0], col=corners[s][1])), s)
                for i, (p, s) in enumerate(zip(picks, stage_of))]
            value = problem.objective(choices)
            if best is None or value < best[0]:
                best = (value, tuple(choices))
    if best is None:
        raise ValueError("no mapping fits the grid and SRAM")
    return Solution(method="exhaustive", choices=best[1], objective=best[0],
                    bound=best[0], solve_seconds=time.perf_counter() - start)
