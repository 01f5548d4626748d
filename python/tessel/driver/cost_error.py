"""The mapper's prediction against the simulator, layer by layer.

The mapper's cost model restates what the passes will do
(`tessel-tile-for-sram`'s steps, `tessel-promote-to-sram`'s loads,
`tessel-lower-to-instructions`' instructions, docs/mapper.md). Nothing in
the code ties the two: a pass that changes its steps or its instructions
leaves the model predicting the old ones. ``layer_errors`` measures the gap
where it shows, per layer (per source line, the program's tag): the
cycles the CP-SAT mapping predicts for the ops of the layer, against the
span of the layer's instructions in a traced simulation of the program
compiled from that very mapping. ``tests/mapper/test_cost_model_error.py``
bounds it; ``bench/mapper.py`` prints it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import AbstractSet, Any, Sequence

from ..runtime.isa import SYNC_OPS


@dataclass(frozen=True)
class LayerError:
    """One layer: its tag, the simulated span and the predicted cycles."""

    tag: str
    simulated: float
    predicted: int

    @property
    def error(self) -> float:
        """(predicted - simulated) / simulated."""
        return (self.predicted - self.simulated) / self.simulated


def predicted_by_tag(graph, solution) -> dict[str, int]:
    """The mapping's predicted cycles summed over each tag's ops."""
    by_tag: dict[str, int] = {}
    for choice in solution.choices:
        tag = graph.ops[choice.op].tag
        by_tag[tag] = by_tag.get(tag, 0) + choice.cycles
    return by_tag


def layer_errors(model, arch: Any, options=None) -> list[LayerError]:
    """Each layer of ``model`` (an imported model) mapped by CP-SAT on
    ``arch`` with ``options`` (``MapperOptions``), compiled, simulated
    (timing only, traced): the layers whose span the simulation measured
    and the mapping predicted (cycles of their own), in the program's tag
    order; not those the model runs more than once (``repeated_tags``),
    nor those with an op run inside another line's (``inside_other_tags``)."""
    from .. import arch as arch_model
    from ..compiler.lower import lower_and_emit
    from ..mapper import map_module
    from ..runtime.simulator import simulate
    from .pipeline import argument_roles

    target = arch_model.load(arch)
    mapped = {}

    def mapping(module, target):
        roles = argument_roles(module) if model.signature else None
        mapped["graph"], mapped["solution"] = map_module(module, target, "cpsat", options,
                                                         roles=roles, legalized=True)

    program = lower_and_emit(model, target, mapping=mapping)
    result = simulate(program, numerics=False, trace=True)
    predicted = predicted_by_tag(mapped["graph"], mapped["solution"])
    inside = inside_other_tags(mapped["graph"])
    order = list(dict.fromkeys(op.tag for op in mapped["graph"].ops))
    spans = layer_spans(result.trace_events, target.clock_mhz, inside, order)
    unmeasured = repeated_tags(mapped["graph"]) | inside
    # A layer whose ops are all folded into another's (an epilogue of its
    # own source line) is predicted inside that one: it has no figure here;
    # one with an epilogue of another line's op is measured inside that
    # one (inside_other_tags).
    return [LayerError(tag, last - first, predicted[tag])
            for tag, (first, last) in spans.items()
            if last > first and predicted.get(tag, 0) > 0 and tag not in unmeasured]


def repeated_tags(graph) -> set[str]:
    """The tags whose ops other layers' ops come between in program order: a
    source line the model runs more than once (ResNet-18's basic block, once
    per block). Their span in the trace runs from the first run to the last,
    over the layers between, so no error is measured for them."""
    seen: set[str] = set()
    repeated: set[str] = set()
    last = None
    for op in graph.ops:
        if op.folded or op.tag == last:
            continue
        if op.tag in seen:
            repeated.add(op.tag)
        seen.add(op.tag)
        last = op.tag
    return repeated


def inside_other_tags(graph) -> set[str]:
    """The tags with an op run as the epilogue of another tag's op: its
    instructions, tagged with its own line, run in that op's steps, so the
    line's span in the trace reaches into the other layer (GPT-2's
    ``x = x + self.attn(self.ln1(x))``: the residual add on the attention's
    output projection, the span from the layer norm over the whole
    attention), while its predicted cycles are the other op's. No error is
    measured for them."""
    return {op.epilogue.tag for op in graph.ops
            if op.epilogue is not None and op.epilogue.tag != op.tag}


def layer_spans(trace_events, clock_mhz: float,
                inside: AbstractSet[str] = frozenset(),
                order: Sequence[str] = ()) -> dict[str, tuple[float, float]]:
    """Per tag, the first and last cycle of its instructions over the tiles
    (``simulate(..., trace=True)``'s events).

    On a tile where the layer computes, its span starts where the layer's
    inputs are ready there: after its first wait for other tiles that
    starts after the start of the last instruction of another layer ahead
    of its first instruction that computes (the dependence's wait; the
    waits after it, for the layer's own shared loads, are its time, which
    the cost model predicts), or where no wait follows that instruction,
    after its last wait before it computes; and not from a transfer issued
    before that last instruction: tessel-schedule issues weight loads
    during the ops before their own, and a tile the layers before do not
    use waits for them, neither of which the model predicts as the
    layer's time. On a tile where it only moves data or synchronizes, its
    span is its instructions'.

    It ends with the layer's last instruction that starts before a layer
    after it in ``order`` (the tags in program order; by time where not
    given) starts moving or computing data there: an op of the line fused
    into a later line's op (the attention's scaling of its scores, run in
    the softmax's passes) is costed with that op. The lines of ``inside``
    (:func:`inside_other_tags`) run as epilogues in other lines' ops and
    end no span."""
    per_tile: dict[int, list] = {}
    for e in trace_events:
        tag = e.get("args", {}).get("tag")
        if e.get("ph") == "X" and tag is not None:
            start = e["ts"] * clock_mhz
            issued = e["args"].get("issued", start)
            per_tile.setdefault(e["pid"], []).append(
                (tag, start, start + e["dur"] * clock_mhz, issued, e["name"]))
    rank = {tag: k for k, tag in enumerate(order)}
    spans: dict[str, tuple[float, float]] = {}
    for events in per_tile.values():
        events.sort(key=lambda ev: ev[1])
        control = [ev for ev in events if not ev[4].startswith("dma (")]
        body: dict[str, float] = {}
        for tag, start, _, _, name in events:
            if name not in SYNC_OPS and not name.startswith("dma"):
                body[tag] = min(body.get(tag, math.inf), start)
        # The last instruction of another layer ahead of the layer's first
        # that computes: its transfers issued before it do not count.
        cut = {tag: max((s for t, s, _, _, _ in events
                         if t != tag and s < first), default=-math.inf)
               for tag, first in body.items()}
        # After the dependence's wait: the first wait after the layer
        # before, or, where none follows it, the last before the layer
        # computes.
        ready: dict[str, float] = {}
        after_cut: dict[str, float] = {}
        for k, (tag, start, _, _, name) in enumerate(control):
            if (name == "wait_semaphore" and start < body.get(tag, -math.inf)
                    and k + 1 < len(control)):
                ready[tag] = control[k + 1][1]
                if start > cut[tag] and tag not in after_cut:
                    after_cut[tag] = control[k + 1][1]
        ready.update(after_cut)
        counted = [(tag, max(start, ready.get(tag, -math.inf)), end, name)
                   for tag, start, end, issued, name in events
                   if not (name.startswith("dma") and issued < cut.get(tag, -math.inf))]
        # Where each layer starts moving or computing data on this tile (its
        # waits and signals may run during the layer before), and where the
        # layers after it in program order do.
        starts: dict[str, float] = {}
        for tag, start, _, name in counted:
            if name not in SYNC_OPS and tag not in inside:
                starts[tag] = min(starts.get(tag, math.inf), start)

        def after(other: str, tag: str) -> bool:
            if other in rank and tag in rank:
                return rank[other] > rank[tag]
            return starts[other] > starts[tag]

        following = {tag: min((s for other, s in starts.items() if after(other, tag)),
                              default=math.inf)
                     for tag in starts}
        for tag, start, end, _ in counted:
            first, last = spans.get(tag, (math.inf, 0.0))
            if start < following.get(tag, math.inf):
                last = max(last, end, start)
            spans[tag] = (min(first, start), last)
    return spans
