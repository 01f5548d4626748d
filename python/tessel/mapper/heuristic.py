"""The greedy mapper: the baseline the CP-SAT mapper is measured against and
the fallback when OR-tools is missing.

Latency: each op takes its cheapest candidate. Ops run one after another,
so the latency is the sum of the ops' cycles and this choice is optimal for
the cost model (the CP-SAT mapper proves it, gap 0), but for what results
handed over on chip save (tessel.mapper.handover), which it does not weigh.

Throughput: for each stage count up to ``max_stages``, the grid is cut into
that many strips of whole columns, each op takes its cheapest candidate that
fits a strip, and the ops are cut into contiguous stages minimizing the
longest stage (dynamic programming); the best stage count wins.
"""

from __future__ import annotations

import time
from dataclasses import replace

from .space import Choice, Problem, Solution, placement_key


def _stage_sram_ok(problem: Problem, choices) -> bool:
    """Resident weights of a stage plus its largest double-buffered working
    set fit a tile's SRAM (ops of a stage share its tiles)."""
    sram = problem.arch.tile.sram.bytes
    stages: dict[int, list] = {}
    for c in choices:
        stages.setdefault(c.stage, []).append(c.candidate.estimate)
    return all(sum(e.resident_bytes for e in es)
               + max(e.sram_bytes - e.resident_bytes for e in es) <= sram
               for es in stages.values())


def _cut(costs: list[int], stages: int) -> list[int] | None:
    """Stage of each op: contiguous, ``stages`` of them, minimizing the
    longest (ties: fewer in later stages)."""
    n = len(costs)
    if stages > n:
        return None
    inf = float("inf")
    prefix = [0]
    for c in costs:
        prefix.append(prefix[-1] + c)
    best = [[inf] * (n + 1) for _ in range(stages + 1)]
    back = [[0] * (n + 1) for _ in range(stages + 1)]
    best[0][0] = 0
    for s in range(1, stages + 1):
        for j in range(s, n + 1):
            for i in range(s - 1, j):
                v = max(best[s - 1][i], prefix[j] - prefix[i])
                if v < best[s][j]:
                    best[s][j], back[s][j] = v, i
    out = [0] * n
    j = n
    for s in range(stages, 0, -1):
        i = back[s][j]
        for k in range(i, j):
            out[k] = s - 1
        j = i
    return out


def solve(problem: Problem) -> Solution:
    start = time.perf_counter()
    arch, options = problem.arch, problem.options
    rows, cols = arch.grid.rows, arch.grid.cols

    def cheapest(i, cands, h, w, resident_ok=True):
        # Not a candidate offered only to hand a result over.
        fitting = [c for c in cands if c.placement.rows <= h and c.placement.cols <= w
                   and (resident_ok or not c.placement.resident)
                   and (i, placement_key(c)) not in problem.aligned]
        return min(fitting, key=lambda c: (c.estimate.cycles, c.placement.tiles),
                   default=None)

    best = None
    stage_counts = range(1, options.max_stages + 1) \
        if options.objective == "throughput" else (1,)
    for stages in stage_counts:
        if stages > cols or stages > len(problem.graph.ops):
            break
        width = cols // stages
        strips = [(s * width, width if s < stages - 1 else cols - s * width)
                  for s in range(stages)]
        narrow = min(w for _, w in strips)
        for resident_ok in (True, False):
            picks = [cheapest(i, cs, rows, narrow, resident_ok)
                     for i, cs in enumerate(problem.cands)]
            if any(p is None for p in picks):
                continue
            stage_of = _cut([p.estimate.cycles for p in picks], stages) \
                if stages > 1 else [0] * len(picks)
            if stage_of is None:
                continue
            choices = []
            for i, (p, s) in enumerate(zip(picks, stage_of)):
                x = strips[s][0] if stages > 1 else 0
                choices.append(Choice(i, replace(p, placement=replace(
                    p.placement, row=0, col=x)), s))
            if not _stage_sram_ok(problem, choices):
                continue
            value = problem.objective(choices)
            if best is None or value < best[0]:
                best = (value, tuple(choices))
            break
    if best is None:
        raise ValueError("the greedy mapper found no mapping that fits SRAM")
    # For latency the greedy choice is optimal for the model (see above),
    # but where results handed over on chip save cycles it does not weigh.
    latency = options.objective == "latency"
    optimal = latency and not problem.handovers
    if optimal:
        bound = best[0]
    else:
        bound = problem.latency_bound() if latency else 0
    return Solution(method="heuristic", choices=best[1], objective=best[0],
                    bound=bound,
                    solve_seconds=time.perf_counter() - start,
                    status="OPTIMAL" if optimal else "FEASIBLE")
