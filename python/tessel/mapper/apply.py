"""Writing a mapping into the IR as ``#tessel.mapping`` attributes, the form
``tessel-partition`` reads, so every later pass runs unchanged.

Only what the lowering consumes is written: a rectangle, parts over loops,
the pipeline stage, the step sizes the cost model chose and whether the
op's weights stay resident in SRAM. A solution the lowering would reject
(a split reduction together with a loop its parts do not divide) is
refused with the reason, rather than written into attributes the passes
would reject.
"""

from __future__ import annotations

from ..errors import TesselError
from .graph import Graph, _linalg_ops
from .space import (MAX_REDUCE_RANK, Solution, partials_fit_the_isa,
                    uneven_reduction_split)


class UnsupportedMapping(TesselError, ValueError):
    """The solution uses something the lowering cannot take yet."""


def unsupported(graph: Graph, solution: Solution) -> list[str]:
    """What in ``solution`` the lowering cannot take today, one line each."""
    out = []
    for c in solution.choices:
        op = graph.ops[c.op]
        uneven = uneven_reduction_split(op, c.placement.parts)
        if uneven:
            out.append(f"op {op.label()} splits a reduction loop and loop(s) "
                       f"{', '.join(f'#{l}' for l in uneven)} into parts that "
                       "do not divide them (tessel-partition needs even parts "
                       "when it splits a reduction)")
        if any(c.placement.parts[l] > 1 for l in op.reduction_loops) \
                and not partials_fit_the_isa(op):
            out.append(f"op {op.label()} splits a reduction: its partials "
                       "would need a reduce of rank above "
                       f"{MAX_REDUCE_RANK}, which the ISA lacks (or it has "
                       "several outputs, or an output dimension indexed by "
                       "a constant)")
    return out


def mapping_text(choice, on_chip: bool = False) -> str:
    """The ``#tessel.mapping`` of ``choice``: its rectangle, its parts, its
    pipeline stage, the step sizes it was costed with
    (``tessel-tile-for-sram`` keeps them where they fit), the order its
    parts are laid onto the tiles in where it is not the loops' own
    (:mod:`tessel.mapper.part_order`), ``resident``
    when its weights stay in SRAM (the cost model counted them so only
    for an op that has weights), ``shared`` when tiles share the loads
    of the slices they read alike (tessel-share-loads) and ``on_chip``
    when its result stays in its tiles' SRAM (tessel-keep-on-chip)."""
    p = choice.placement
    estimate = choice.candidate.estimate
    stage = f", stage = {choice.stage}" if choice.stage else ""
    resident = ", resident" if estimate.resident_bytes else ""
    shared = ", shared" if p.shared else ""
    kept = ", on_chip" if on_chip else ""
    order = f", order = [{', '.join(map(str, p.order))}]" if p.order else ""
    return (f"#tessel.mapping<row = {p.row}, col = {p.col}, rows = {p.rows}, "
            f"cols = {p.cols}, parts = [{', '.join(map(str, p.parts))}]{stage}, "
            f"steps = [{', '.join(map(str, estimate.steps))}]{order}"
            f"{resident}{shared}"
            f"{kept}>")


def apply(module, graph: Graph, solution: Solution) -> None:
    """Sets ``tessel.mapping`` on every linalg op of ``module`` (the module
    ``graph`` was read from, after the legalize passes)."""
    from ..ir import Attribute, UnitAttr

    problems = unsupported(graph, solution)
    if problems:
        raise UnsupportedMapping(
            "the mapping uses what the lowering cannot take yet:\n  "
            + "\n  ".join(problems)
            + "\nthe mappers never choose these: correct the solution")
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    ops = _linalg_ops(funcs[0])
    if len(ops) != len(graph.ops):
        raise UnsupportedMapping(f"the module has {len(ops)} linalg ops, the "
                                 f"mapping {len(graph.ops)}: map the module it "
                                 "was solved for")
    # Elementwise ops that run on their producers' results, in SRAM
    # (tessel-fuse-epilogues).
    epilogues = {op.epilogue.index for op in graph.ops if op.epilogue}
    for op, choice in zip(ops, sorted(solution.choices, key=lambda c: c.op)):
        op.operation.attributes["tessel.mapping"] = Attribute.parse(
            mapping_text(choice, choice.op in solution.on_chip))
        if choice.op in epilogues:
            op.operation.attributes["tessel.epilogue"] = UnitAttr.get()
