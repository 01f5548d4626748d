"""Where on the grid each op's rectangle lies.

The mappers choose an op's rectangle, parts and steps wherever the
rectangle lies (:func:`tessel.mapper.space.placement_key`), and a mapping
of one pipeline stage puts every rectangle at the grid's north-west
corner. On a grid whose DRAM channels sit along its edges that is not
neutral: a tile reads through its nearest channel, so a rectangle in the
north rows loads everything through the north channels while the south
ones idle. ResNet-18's classifier (a 512 x 1000 matmul cut 143 ways on
11 x 13 tiles of ``tessel-16x16``) reads its 2 MB of weights through 7 of
the 16 channels at the corner: 8,058 cycles simulated, against 6,260
three rows further south, where the rectangle reaches both edges' channels
alike (docs/mapper.md, *Rectangles placed by their DRAM channels*).

:func:`place_by_dram_channels` moves each rectangle that does not fill the
grid to the corner where the cost model, which prices each tile's share of
its DRAM channel and links (``cost._dram_paths``), predicts it fastest, at
the same parts and steps. It moves no op whose result stays on chip or
that reads one (their placements were weighed together), and nothing in a
mapping of several stages (the stages' rectangles are packed side by side).
"""

from __future__ import annotations

from dataclasses import replace

from .cost import estimate
from .graph import Graph
from .on_chip import tied_to_kept_results
from .space import Choice, Solution

# A corner is taken only where it saves at least 1 / SAVING_DIVISOR of the
# op's predicted cycles: below that the cost model's error on one op is
# larger than the saving (small_cnn's bf16 classifier on tessel-16x16,
# predicted 1,210 -> 1,202 cycles eight rows south, ran 52 cycles slower
# there).
SAVING_DIVISOR = 16


def _corners(arch, rows: int, cols: int):
    """Every north-west corner of a ``rows x cols`` rectangle on the grid,
    the grid's own first."""
    return [(r, c) for r in range(arch.grid.rows - rows + 1)
            for c in range(arch.grid.cols - cols + 1)]


def best_corner(graph: Graph, choice: Choice, arch, overlap_dma: bool) -> Choice:
    """``choice`` at the corner where its op is predicted fastest, at its
    parts and steps, where that saves at least 1 / SAVING_DIVISOR of its
    predicted cycles; as it is otherwise (on ties its own corner, then the
    first in row-major order)."""
    op = graph.ops[choice.op]
    p = choice.placement
    best = choice
    for row, col in _corners(arch, p.rows, p.cols):
        if (row, col) == (p.row, p.col):
            continue
        e = estimate(op, arch, replace(p, row=row, col=col),
                     overlap_dma=overlap_dma,
                     steps=choice.candidate.estimate.steps)
        if e is not None and e.cycles < best.cycles and \
                (choice.cycles - e.cycles) * SAVING_DIVISOR >= choice.cycles:
            best = replace(choice, candidate=replace(
                choice.candidate, placement=replace(p, row=row, col=col),
                estimate=e))
    return best


def place_by_dram_channels(graph: Graph, solution: Solution, arch,
                           overlap_dma: bool = True) -> Solution:
    """``solution`` with each op's rectangle moved to its fastest corner
    (module docstring), and a note per op moved."""
    if len(solution.stage_cycles()) > 1:
        return solution
    grid = arch.grid.rows * arch.grid.cols
    tied = tied_to_kept_results(graph, solution.on_chip)
    choices, notes = [], []
    for choice in solution.choices:
        op = graph.ops[choice.op]
        p = choice.placement
        if op.folded or p.rows * p.cols == grid or choice.op in tied:
            choices.append(choice)
            continue
        moved = best_corner(graph, choice, arch, overlap_dma)
        if moved is not choice:
            notes.append(f"{op.label()}: {p.rows}x{p.cols} tiles at "
                         f"({moved.placement.row}, {moved.placement.col}), "
                         f"not ({p.row}, {p.col}), for its DRAM channels: "
                         f"predicted {choice.cycles} -> {moved.cycles} cycles")
        choices.append(moved)
    if not notes:
        return solution
    return replace(solution, choices=tuple(choices),
                   notes=solution.notes + tuple(notes))
