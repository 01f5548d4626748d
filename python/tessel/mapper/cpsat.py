"""The CP-SAT mapper (OR-tools): one model for the whole graph.

Decisions: for each op one candidate (rectangle shape, parts per loop,
streamed or resident weights; each with the cycles and SRAM the cost model
predicts) and, in pipeline mode, its stage. Stages are contiguous in
program order; each stage owns a rectangle of the grid, the stages'
rectangles do not overlap (``AddNoOverlap2D`` over optional intervals, a
stage absent when unused), and an op runs at its stage's north-west corner
on a rectangle that fits inside the stage's. A tile of a stage holds the
resident weights of all the stage's ops plus the largest double-buffered
working set among them.

Objective: latency (the sum of the ops' cycles: ops run one after another,
less what the results handed over on chip save, tessel.mapper.handover)
or throughput (the longest stage, weighted above the latency).

Deterministic: fixed seed, fixed workers with interleaved search, and the
time limit in deterministic time, so the same inputs give the same mapping.
"""

from __future__ import annotations

import time
from dataclasses import replace

from . import heuristic
from .space import Choice, Problem, Solution, pack, placement_key


def _handed_over(m, problem: Problem, sel):
    """The cycles the results handed over on chip save, as an expression of
    the candidates chosen (tessel.mapper.handover): for each result, a
    boolean that it stays, which holds only where its writer's candidate
    and each reader's are one of the pairs listed."""
    index = [{} for _ in problem.cands]
    for i, cs in enumerate(problem.cands):
        for k, c in enumerate(cs):
            index[i].setdefault(placement_key(c), []).append(sel[i][k])
    saved = []
    # The Booleans that hand a result over with each candidate.
    using: dict = {}
    for h in problem.handovers:
        stays = m.NewBoolVar(f"stays{h.writer}")
        mine, picked = [], []
        for w, cycles in h.stored.items():
            z = m.NewBoolVar("")
            m.Add(z <= sum(index[h.writer][w]))
            picked.append(z)
            mine.append(cycles * z)
            using.setdefault((h.writer, w), []).append(z)
        m.Add(sum(picked) == stays)
        for reader, pairs in h.reads:
            picked = []
            for (w, r), cycles in pairs.items():
                y = m.NewBoolVar("")
                m.Add(y <= sum(index[h.writer][w]))
                m.Add(y <= sum(index[reader][r]))
                picked.append(y)
                mine.append(cycles * y)
                using.setdefault((reader, r), []).append(y)
            m.Add(sum(picked) == stays)
        # A result stays only where it saves something (Problem.objective
        # counts no other).
        m.Add(sum(mine) >= 1).OnlyEnforceIf(stays)
        saved.extend(mine)
    # A candidate offered to hand a result over is chosen only to do so.
    for i, key in sorted(problem.aligned, key=lambda a: (a[0], str(a[1]))):
        m.Add(sum(index[i][key]) <= sum(using.get((i, key), [])))
    return sum(saved)


def solve(problem: Problem, hint: Solution | None = None) -> Solution:
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    arch, options, cands = problem.arch, problem.options, problem.cands
    rows, cols = arch.grid.rows, arch.grid.cols
    sram = arch.tile.sram.bytes
    n = len(cands)
    hint = hint or heuristic.solve(problem)
    stages = options.max_stages if options.objective == "throughput" else 1
    stages = max(1, min(stages, n, cols * rows))
    m = cp_model.CpModel()

    sel = [[m.NewBoolVar(f"op{i}_c{k}") for k in range(len(cs))]
           for i, cs in enumerate(cands)]
    for s in sel:
        m.AddExactlyOne(s)

    def expr(i, figure):
        return sum(figure(c) * v for c, v in zip(cands[i], sel[i]))

    cost = [expr(i, lambda c: c.estimate.cycles) for i in range(n)]
    max_cost = [max(c.estimate.cycles for c in cs) for cs in cands]
    latency = sum(cost) - _handed_over(m, problem, sel)
    weight = problem.weight

    if stages == 1:
        # One stage: every op may use the whole grid. Residents of all ops
        # share the tiles with the largest working set.
        if options.resident_weights:
            peak = m.NewIntVar(0, sram, "peak_ws")
            for i in range(n):
                m.Add(peak >= expr(i, lambda c: c.estimate.sram_bytes
                                   - c.estimate.resident_bytes))
            m.Add(sum(expr(i, lambda c: c.estimate.resident_bytes)
                      for i in range(n)) + peak <= sram)
        if options.objective == "latency":
            m.Minimize(latency)
        else:
            m.Minimize(latency * (weight + 1))
        stage_of = None
    else:
        member = [[m.NewBoolVar(f"op{i}_s{s}") for s in range(stages)]
                  for i in range(n)]
        stage_of = [m.NewIntVar(0, stages - 1, f"stage{i}") for i in range(n)]
        for i in range(n):
            m.AddExactlyOne(member[i])
            m.Add(stage_of[i] == sum(s * b for s, b in enumerate(member[i])))
        m.Add(stage_of[0] == 0)
        for i in range(n - 1):
            m.Add(stage_of[i + 1] - stage_of[i] <= 1)
            m.Add(stage_of[i + 1] >= stage_of[i])
        used = [m.NewBoolVar(f"used{s}") for s in range(stages)]
        for s in range(stages):
            m.Add(stage_of[n - 1] >= s).OnlyEnforceIf(used[s])
            m.Add(stage_of[n - 1] < s).OnlyEnforceIf(used[s].Not())
        xs, ys = [], []
        op_rows = [expr(i, lambda c: c.placement.rows) for i in range(n)]
        op_cols = [expr(i, lambda c: c.placement.cols) for i in range(n)]
        rect = []
        most_dram = sum(max(c.estimate.dram_cycles for c in cs) for cs in cands)
        interval = m.NewIntVar(0, max(sum(max_cost), most_dram), "interval")
        for s in range(stages):
            x, w = m.NewIntVar(0, cols, f"x{s}"), m.NewIntVar(0, cols, f"w{s}")
            y, h = m.NewIntVar(0, rows, f"y{s}"), m.NewIntVar(0, rows, f"h{s}")
            x_end, y_end = m.NewIntVar(0, cols, f"xe{s}"), m.NewIntVar(0, rows, f"ye{s}")
            xs.append(m.NewOptionalIntervalVar(x, w, x_end, used[s], f"xi{s}"))
            ys.append(m.NewOptionalIntervalVar(y, h, y_end, used[s], f"yi{s}"))
            rect.append((x, y, w, h))
            stage_time = []
            residents = []
            peak = m.NewIntVar(0, sram, f"peak_ws{s}")
            for i in range(n):
                m.Add(w >= op_cols[i]).OnlyEnforceIf(member[i][s])
                m.Add(h >= op_rows[i]).OnlyEnforceIf(member[i][s])
                t = m.NewIntVar(0, max_cost[i], f"t{i}_{s}")
                m.Add(t == cost[i]).OnlyEnforceIf(member[i][s])
                m.Add(t == 0).OnlyEnforceIf(member[i][s].Not())
                stage_time.append(t)
                if options.resident_weights:
                    r = m.NewIntVar(0, sram, f"r{i}_{s}")
                    m.Add(r == expr(i, lambda c: c.estimate.resident_bytes)
                          ).OnlyEnforceIf(member[i][s])
                    m.Add(r == 0).OnlyEnforceIf(member[i][s].Not())
                    residents.append(r)
                    m.Add(peak >= expr(i, lambda c: c.estimate.sram_bytes
                                       - c.estimate.resident_bytes)
                          ).OnlyEnforceIf(member[i][s])
            if residents:
                m.Add(sum(residents) + peak <= sram)
            m.Add(interval >= sum(stage_time))
        m.AddNoOverlap2D(xs, ys)
        # The stages run at once and share the DRAM channels.
        m.Add(interval >= sum(expr(i, lambda c: c.estimate.dram_cycles)
                              for i in range(n)))
        m.Minimize(interval * weight + latency)

    # Start from the greedy mapping, so the answer is never worse than it.
    hinted = {c.op: c for c in hint.choices}
    for i in range(n):
        chosen = hinted[i].candidate
        for c, v in zip(cands[i], sel[i]):
            m.AddHint(v, c.placement == replace(chosen.placement, row=0, col=0))
        if stage_of is not None:
            m.AddHint(stage_of[i], hinted[i].stage)

    solver = cp_model.CpSolver()
    p = solver.parameters
    p.random_seed = options.seed
    p.num_workers = options.workers
    p.interleave_search = options.workers > 1
    p.max_deterministic_time = options.time_limit_s
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise ValueError(f"CP-SAT found no mapping ({solver.StatusName(status)})")

    picked = [cands[i][next(k for k, v in enumerate(sel[i]) if solver.Value(v))]
              for i in range(n)]
    stage = [solver.Value(stage_of[i]) if stage_of is not None else 0
             for i in range(n)]
    # Where a stage lies does not change its cycles: place the stages by the
    # exact packer, so equal solutions print equally.
    dims = [(0, 0)] * (max(stage) + 1)
    for c, s in zip(picked, stage):
        dims[s] = (max(dims[s][0], c.placement.rows),
                   max(dims[s][1], c.placement.cols))
    corners = pack(dims, rows, cols) if len(dims) > 1 else [(0, 0)]
    if corners is None:     # the solver's own placement, then
        corners = [(solver.Value(rect[s][1]), solver.Value(rect[s][0]))
                   for s in range(len(dims))]
    choices = [Choice(i, replace(c, placement=replace(
        c.placement, row=corners[s][0], col=corners[s][1])), s)
        for i, (c, s) in enumerate(zip(picked, stage))]
    objective = problem.objective(choices)
    bound = min(int(solver.BestObjectiveBound()), objective)
    if hint.objective < objective:       # the solver lost the hint
        return replace(hint, method="cpsat", bound=bound,
                       solve_seconds=time.perf_counter() - start)
    return Solution(method="cpsat", choices=tuple(choices), objective=objective,
                    bound=bound, solve_seconds=time.perf_counter() - start,
                    status=solver.StatusName(status))
