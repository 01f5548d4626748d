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
    ``mapper`` with its options, the arguments' roles as the module marks
    them (the model's signature's, and the weights the compile computed from
    them)."""
    from .. import mapper as mapper_mod

    def mapping(module, target):
        # The compiler's legalize and precompute stages ran just before.
        mapper_mod.map_module(module, target, mapper, mapper_options,
                              roles=argument_roles(module) if model.signature else None,
                              legalized=True)

    return mapping


def argument_roles(module) -> list[str]:
    """The ``tessel.kind`` of each argument of the module's function."""
    from ..ir import ArrayAttr, DictAttr, StringAttr

    (func,) = [op for op in module.body.operations if op.operation.name == "func.func"]
    return [StringAttr(DictAttr(attrs)["tessel.kind"]).value
            for attrs in ArrayAttr(func.operation.attributes["arg_attrs"])]
