"""The chosen ops costed as tessel-schedule runs their weights' first loads.

``tessel-schedule`` issues an op's loads of weight slices that no other
tile reads during the ops before it (docs/Rationale.md, *Weights loaded
during the ops before, on a DMA channel of their own*), so their first
loads are not the op's time. The mappers choose without that: counted in
the choice, it drew CP-SAT to cuts whose weights then loaded in the op's
own time (GPT-2's small block on tessel-16x16 ran 9,350 -> 12,520
cycles). Once the mapping is chosen, :func:`recost_early_weights` costs
each op again at its placement and steps as the lowering runs it
(``cost.estimate``'s ``early_weights``), so that what ``tessel map
--explain`` and the cost model's error per layer show follows the
program. The ops whose results stay on chip, or that read one, were costed
so by :func:`tessel.mapper.on_chip.keep_on_chip`.
"""

from __future__ import annotations

from dataclasses import replace

from .cost import estimate
from .graph import Graph
from .on_chip import tied_to_kept_results
from .space import Solution


def recost_early_weights(graph: Graph, solution: Solution, arch,
                         overlap_dma: bool = True) -> Solution:
    """``solution`` with each op's predicted cycles as it runs with its
    weights' first loads during the ops before (module docstring)."""
    if len(solution.stage_cycles()) > 1:
        return solution
    tied = tied_to_kept_results(graph, solution.on_chip)
    choices = []
    for choice in solution.choices:
        op = graph.ops[choice.op]
        e = None
        if not (op.folded or choice.op in tied):
            e = estimate(op, arch, choice.placement, overlap_dma=overlap_dma,
                         steps=choice.candidate.estimate.steps,
                         early_weights=True)
        choices.append(choice if e is None else
                       replace(choice, candidate=replace(choice.candidate, estimate=e)))
    return replace(solution, choices=tuple(choices))
