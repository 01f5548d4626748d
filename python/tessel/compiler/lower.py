"""Compiling an imported model: the lowering pipeline and the emitter, from
Python.

``lower_to_device`` runs ``tessel-lowering-pipeline`` (the same passes
``tessel-opt -tessel-lowering-pipeline`` runs) on an imported model's
linalg-on-tensors; ``lower_and_emit`` also maps it first, with a mapping
the caller gives, and emits the program.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any, Callable

from ..errors import TesselError
from .. import arch as arch_model
from ..runtime.program import Program
from . import diagnostics
from .emit import emit_program


def pipeline(stream: int = 1) -> str:
    """The pass pipeline string; ``stream`` inputs computed one after
    another (``tessel-convert-to-device``'s option)."""
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < 1:
        raise ValueError(f"stream must be a positive number of inputs, got {stream!r}")
    return ("builtin.module(tessel-lowering-pipeline)" if stream == 1 else
            f"builtin.module(tessel-lowering-pipeline{{stream={stream}}})")


class LoweringError(TesselError, RuntimeError):
    """A stage of the lowering failed; the message has MLIR's diagnostics.
    ``ir_path`` is the file holding the IR the pipeline failed on and
    ``repro`` the ``tessel-opt`` command that reproduces the failure."""

    def __init__(self, message: str, *, ir_path: Path | None = None,
                 repro: str | None = None):
        super().__init__(message)
        self.ir_path = ir_path
        self.repro = repro


# ``stage(name, module)``: a context manager around each step of a compile
# ("map", "lower", "emit"), so a driver can time it, show progress and say
# which step failed. The default does nothing.
Stage = Callable[[str, Any], contextlib.AbstractContextManager]


def no_stage(name: str, module: Any) -> contextlib.AbstractContextManager:
    return contextlib.nullcontext()


def _keep_failed_ir(text: str, failure_dir: str | Path | None) -> Path:
    """Writes the IR a pipeline failed on where a person can find it."""
    directory = Path(failure_dir) if failure_dir else Path(
        tempfile.mkdtemp(prefix="tessel-failure-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "lowering-input.mlir"
    path.write_text(text)
    return path


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


def parse_imported(mlir: str, target: arch_model.Arch, signature=None):
    """An imported model's module, in the current Context, as the lowering
    starts from it: ``target``'s ``tessel.arch`` on it and, given the
    frontend's ``signature``, the names and kinds of its arguments and
    results (weights are stored transposed only if marked as weights)."""
    from ..dialects import func as func_d
    from ..ir import Module

    module = Module.parse(mlir)
    module.operation.attributes["tessel.arch"] = target.to_attribute()
    if signature is not None:
        funcs = [op for op in module.body.operations
                 if isinstance(op, func_d.FuncOp)]
        if len(funcs) != 1:
            raise LoweringError(f"expected one function, found {len(funcs)}")
        _set_names(funcs[0], signature)
    return module


# ``mapping(module, target)``: maps the parsed module's ops in place (the
# driver passes tessel.mapper's, bound to its method and options).
Mapping = Callable[[Any, arch_model.Arch], None]


def _lower(mlir: str, target: arch_model.Arch, signature, mapping: Mapping | None = None,
           stage: Stage = no_stage, failure_dir=None, stream: int = 1):
    """The lowered module, in the current Context. ``mapping`` maps the ops
    first; tessel-default-mapping then leaves them as mapped (without one
    it maps them itself)."""
    passes = pipeline(stream)
    from ..passmanager import PassManager

    module = parse_imported(mlir, target, signature)
    if mapping is not None:
        with stage("map", module):
            mapping(module, target)
    with stage("lower", module):
        # The pass manager leaves a failed module half-transformed: keep the
        # input (with tessel.arch and any mapping) to reproduce the failure.
        before = module.operation.get_asm(enable_debug_info=True)
        try:
            # Verifying after every pass is half of BERT's pass time; the
            # result is verified once, and tessel-opt (the repro command)
            # verifies after each pass to find the one at fault.
            pm = PassManager.parse(passes)
            pm.enable_verifier(False)
            pm.run(module.operation)
            module.operation.verify()
        except Exception as e:  # MLIRError carries the diagnostics
            path = _keep_failed_ir(before, failure_dir)
            repro = f"tessel-opt {path} -tessel-lowering-pipeline" + (
                f"=stream={stream}" if stream > 1 else "")
            failure = diagnostics.parse(str(e))
            headline = (f"{failure.headline()}\n{diagnostics.ADVICE}\n"
                        if failure else "")
            raise LoweringError(
                f"{headline}lowering for {target.name} failed:\n{e}\nthe IR it "
                f"failed on: {path}\nreproduce with: {repro}", ir_path=path,
                repro=repro) from e
    return module


def lower_to_device(mlir: str, arch: Any = None, *, signature=None,
                    stream: int = 1) -> str:
    """The ``tessel.device`` for ``mlir`` (one function of linalg on tensors)
    on ``arch`` (a preset name, a YAML path or an ``Arch``; default
    ``tessel-4x4``), as MLIR text. With the frontend's ``signature``, DRAM
    buffers take the model's argument and output names and weights are
    marked as such."""
    from ..ir import Context

    with Context():
        return str(_lower(mlir, arch_model.load(arch), signature, stream=stream))


def lower_and_emit(model, arch: Any = None, *, mapping: Mapping | None = None,
                   stage: Stage = no_stage, failure_dir=None, stream: int = 1) -> Program:
    """The program for an imported model (``tessel.frontend.ImportedModel``)
    on ``arch``: mapped by ``mapping`` (else tessel-default-mapping),
    lowered, emitted with the model's weights in DRAM. The instructions
    keep the model's source locations, which become the program's tags
    (per-layer reports). ``stream`` > 1 compiles a program that computes
    that many inputs one after another, overlapping the mapping's pipeline
    stages: input ``x`` becomes ``x[0]`` .. ``x[stream-1]``, and likewise
    each output. ``stage`` wraps the steps "map", "lower" and "emit" (see
    ``Stage``); a failed lowering keeps its input IR in ``failure_dir``
    (default: a fresh temporary directory) and names it in the
    ``LoweringError``. ``tessel.driver.compile_imported`` chooses the
    mapping by the mapper's name."""
    from ..ir import Context, StringAttr

    with Context():
        module = _lower(model.mlir, arch_model.load(arch), model.signature,
                        mapping, stage, failure_dir, stream)
        # Weights the program never reads have no DRAM buffer.
        placed = {StringAttr(op.attributes["sym_name"]).value
                  for device in module.body.operations
                  for op in device.regions[0].blocks[0].operations
                  if op.operation.name == "tessel.dram_buffer"}
        weights = {k: v for k, v in model.weights.items() if k in placed}
        with stage("emit", module):
            # _lower verified the module.
            return emit_program(module, weights=weights, verify=False)
