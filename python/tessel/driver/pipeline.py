"""An imported model to a program: parse, map, lower, emit. Where the mapper
(``tessel.mapper``) and the compiler (``tessel.compiler``) meet: neither
imports the other, and the driver hands the compiler the mapping the
options name."""

from __future__ import annotations

from typing import Any

from ..runtime.program import Program


def compile_imported(model, arch: Any = None, *, mapper: str = "default",
                     mapper_options=None, stage=None, failure_dir=None,
                     stream: int = 1) -> Program:
    """The program for an imported model (``tessel.frontend.ImportedModel``)
    on ``arch`` (a preset name, a YAML path or an ``Arch``; default
    ``tessel-4x4``). ``mapper`` chooses the mapping: ``default``
    (tessel-default-mapping, in the lowering), ``heuristic`` or ``cpsat``
    (``tessel.mapper``, with ``mapper_options``, a ``MapperOptions``).
    ``stage`` (default: none), ``failure_dir`` and ``stream`` are
    ``tessel.compiler.lower_and_emit``'s."""
    from ..compiler.lower import lower_and_emit, no_stage

    mapping = None if mapper == "default" else _mapping(model, mapper, mapper_options)
    return lower_and_emit(model, arch, mapping=mapping, stage=stage or no_stage,
                          failure_dir=failure_dir, stream=stream)


def _mapping(model, mapper: str, mapper_options):
    """The mapping function ``lower_and_emit`` calls: ``tessel.mapper``'s
    ``mapper`` with its options, the arguments' roles from the model's
    signature."""
    from .. import mapper as mapper_mod

    roles = [a.kind for a in model.signature.args] if model.signature else None

    def mapping(module, target):
        # The compiler's legalize stage ran just before.
        mapper_mod.map_module(module, target, mapper, mapper_options, roles=roles,
                              legalized=True)

    return mapping
