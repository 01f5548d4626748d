"""The mapper: which tiles each op runs on and how it is split.

``map_module`` reads the legalized linalg of a module (``graph``), predicts
each op's cycles under each candidate placement (``cost``, ``space``),
chooses with a greedy (``heuristic``), CP-SAT (``cpsat``) or exhaustive
(``exhaustive``) mapper, and writes the decision as ``#tessel.mapping``
attributes (``apply``), which ``tessel-partition`` reads. ``explain`` prints
the decision. See docs/mapper.md.
"""

from __future__ import annotations

from dataclasses import replace

from .apply import UnsupportedMapping, apply, unsupported
from .corners import place_by_dram_channels
from .early_weights import recost_early_weights
from .graph import Graph, GraphError, Op, Operand
from .on_chip import keep_on_chip, realign_readers
from .part_order import order_parts
from .space import MapperOptions, Problem, Solution, choose_epilogues

# The start of tessel-lowering-pipeline: the mapper sees the ops
# partitioning will see. Running the whole pipeline afterwards repeats these
# passes, which changes nothing.
LEGALIZE = "builtin.module(tessel-legalize-pipeline)"

MAPPERS = ("default", "heuristic", "cpsat", "exhaustive")


def solve(graph: Graph, arch, method: str = "cpsat",
          options: MapperOptions | None = None) -> Solution:
    """The mapping of ``graph`` on ``arch`` by ``method`` (``heuristic``,
    ``cpsat`` or ``exhaustive``; ``cpsat`` falls back to the heuristic when
    OR-tools cannot be imported, and says so in the solution's notes)."""
    from . import cpsat, exhaustive, handover, heuristic

    if method not in ("heuristic", "exhaustive", "cpsat"):
        raise ValueError(f"unknown mapper {method!r}; known: "
                         f"{', '.join(m for m in MAPPERS if m != 'default')}")
    options = options or MapperOptions()
    problem = Problem.build(graph, arch, options)
    if options.on_chip and options.objective == "latency":
        problem = handover.with_handovers(problem)
    if method == "heuristic":
        solution = heuristic.solve(problem)
    elif method == "exhaustive":
        solution = exhaustive.solve(problem)
    else:
        try:
            import ortools  # noqa: F401
        except ImportError:
            fallback = heuristic.solve(problem)
            solution = replace(fallback, notes=(
                "OR-tools is not installed: the greedy mapping is used",))
        else:
            solution = cpsat.solve(problem)
    return replace(solution, handed_over=problem.handed_over(solution.choices)[1])


def legalize(module) -> None:
    """Runs the legalize passes on ``module`` (which has ``tessel.arch``)."""
    from ..passmanager import PassManager

    PassManager.parse(LEGALIZE, module.context).run(module.operation)


def map_module(module, arch, method: str = "cpsat",
               options: MapperOptions | None = None, *, roles=None,
               name: str = "model", legalized: bool = False) -> tuple[Graph, Solution]:
    """Legalizes ``module`` (unless ``legalized``: the compiler's legalize
    stage ran), maps it and writes the mapping into it."""
    from . import graph as graph_mod

    if not legalized:
        legalize(module)
    options = options or MapperOptions()
    g = choose_epilogues(graph_mod.from_module(module, name=name, roles=roles),
                         arch, options)
    solution = map_graph(g, arch, method, options)
    apply(module, g, solution)
    return g, solution


def map_graph(g: Graph, arch, method: str = "cpsat",
              options: MapperOptions | None = None) -> Solution:
    """The mapping of ``g``: each op's placement by ``method``, then the
    results kept on chip (:mod:`tessel.mapper.on_chip`), then where each
    rectangle lies (:mod:`tessel.mapper.corners`) and how its parts are
    laid onto it (:mod:`tessel.mapper.part_order`), and each op costed as
    the lowering runs its weights' first loads
    (:mod:`tessel.mapper.early_weights`)."""
    options = options or MapperOptions()
    solution = solve(g, arch, method, options)
    if options.on_chip:
        solution, weighed = realign_readers(g, solution, arch, options)
        solution = keep_on_chip(g, solution, arch, options.overlap_dma, weighed)
    solution = place_by_dram_channels(g, solution, arch, options.overlap_dma)
    solution = order_parts(g, solution, arch)
    return recost_early_weights(g, solution, arch, options.overlap_dma)


__all__ = ["Graph", "GraphError", "LEGALIZE", "MAPPERS", "MapperOptions",
           "Op", "Operand", "Problem", "Solution", "UnsupportedMapping",
           "apply", "choose_epilogues", "legalize", "map_graph", "map_module",
           "solve",
           "unsupported"]
