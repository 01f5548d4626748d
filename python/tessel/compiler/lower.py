"""Compiling an imported model: the lowering pipeline and the emitter, from
Python.

``lower_to_device`` runs ``tessel-lowering-pipeline`` (the same passes
``tessel-opt -tessel-lowering-pipeline`` runs) on an imported model's
linalg-on-tensors; ``compile_imported`` also emits the program.
"""

from __future__ import annotations

from typing import Any

from .. import arch as arch_model
from ..runtime.program import Program
from .emit import emit_program

PIPELINE = "builtin.module(tessel-lowering-pipeline)"


class LoweringError(RuntimeError):
    """A stage of the lowering failed; the message has MLIR's diagnostics."""


def _set_names(func, signature) -> None:
    """Names and roles of the arguments and results, for the manifest."""
    from ..ir import ArrayAttr, DictAttr, StringAttr

    op = func.operation
    for key, specs in (("arg_attrs", signature.args),
                       ("res_attrs", signature.outputs)):
        existing = ([dict((n.name, n.attr) for n in DictAttr(d))
                     for d in ArrayAttr(op.attributes[key])]
                    if key in op.attributes else [{} for _ in specs])
        op.attributes[key] = ArrayAttr.get([
            DictAttr.get({**attrs, "tessel.name": StringAttr.get(spec.name),
                          "tessel.kind": StringAttr.get(spec.kind)})
            for attrs, spec in zip(existing, specs)])


def _lower(mlir: str, target: arch_model.Arch, signature, mapper: str = "default",
           mapper_options=None):
    """The lowered module, in the current Context. ``mapper`` other than
    ``default`` maps the ops first (tessel.mapper); tessel-default-mapping
    then leaves them as mapped."""
    from ..dialects import func as func_d
    from ..ir import Module
    from ..passmanager import PassManager

    module = Module.parse(mlir)
    module.operation.attributes["tessel.arch"] = target.to_attribute()
    if signature is not None:
        funcs = [op for op in module.body.operations
                 if isinstance(op, func_d.FuncOp)]
        if len(funcs) != 1:
            raise LoweringError(f"expected one function, found {len(funcs)}")
        _set_names(funcs[0], signature)
    if mapper != "default":
        from .. import mapper as mapper_mod

        roles = [a.kind for a in signature.args] if signature else None
        mapper_mod.map_module(module, target, mapper, mapper_options, roles=roles)
    try:
        PassManager.parse(PIPELINE).run(module.operation)
    except Exception as e:  # MLIRError carries the diagnostics
        raise LoweringError(
            f"lowering for {target.name} failed:\n{e}\nreproduce with: "
            f"tessel-opt <model.mlir> -tessel-lowering-pipeline "
            f"(the module needs tessel.arch)") from e
    return module


def lower_to_device(mlir: str, arch: Any = None, *, signature=None) -> str:
    """The ``tessel.device`` for ``mlir`` (one function of linalg on tensors)
    on ``arch`` (a preset name, a YAML path or an ``Arch``; default
    ``tessel-4x4``), as MLIR text. With the frontend's ``signature``, DRAM
    buffers take the model's argument and output names and weights are
    marked as such."""
    from ..ir import Context

    with Context():
        return str(_lower(mlir, arch_model.load(arch), signature))


def compile_imported(model, arch: Any = None, *, mapper: str = "default",
                     mapper_options=None) -> Program:
    """The program for an imported model (``tessel.frontend.ImportedModel``)
    on ``arch``: lowered, emitted with the model's weights in DRAM. The
    instructions keep the model's source locations, which become the
    program's tags (per-layer reports). ``mapper`` chooses the mapping:
    ``default`` (tessel-default-mapping), ``heuristic`` or ``cpsat``
    (tessel.mapper, with ``mapper_options``, a ``MapperOptions``)."""
    from ..ir import Context, StringAttr

    with Context():
        module = _lower(model.mlir, arch_model.load(arch), model.signature,
                        mapper, mapper_options)
        # Weights the program never reads have no DRAM buffer.
        placed = {StringAttr(op.attributes["sym_name"]).value
                  for device in module.body.operations
                  for op in device.regions[0].blocks[0].operations
                  if op.operation.name == "tessel.dram_buffer"}
        weights = {k: v for k, v in model.weights.items() if k in placed}
        return emit_program(module, weights=weights)
