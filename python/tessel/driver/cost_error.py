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

from dataclasses import dataclass
from typing import Any


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
    order."""
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
    # A layer whose ops are all folded into another's (an epilogue of its
    # own source line) is predicted inside that one: it has no figure here.
    return [LayerError(tag, stats.last - stats.first, predicted[tag])
            for tag, stats in result.tags.items()
            if stats.last > stats.first and predicted.get(tag, 0) > 0]
