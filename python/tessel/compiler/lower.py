"""Compiling an imported model: the stages after import, in one table.

``STAGES`` lists them in order, each a function over one in-memory module:
legalize (``tessel-legalize-pipeline``, once), map (the caller's mapping;
without one ``tessel-default-mapping`` maps in the lowering), lower
(``tessel-lowering-pipeline`` on the legalized module) and emit.
``lower_and_emit`` runs the table for an imported model; ``lower_to_device``
only lowers. A failed legalize or lower keeps a copy of its input (cloned
in memory, printed only then) and names the ``tessel-opt`` command that
reproduces it.
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import TesselError
from .. import arch as arch_model
from ..runtime.program import Program
from . import diagnostics
from .emit import DeviceVerificationError, emit_program


def _pipeline_options(stream: int, legalize: bool) -> list[str]:
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < 1:
        raise ValueError(f"stream must be a positive number of inputs, got {stream!r}")
    return [f"stream={stream}"] * (stream > 1) + ["legalize=false"] * (not legalize)


def pipeline(stream: int = 1, legalize: bool = True) -> str:
    """The pass pipeline string; ``stream`` inputs computed one after
    another (``tessel-convert-to-device``'s option); ``legalize=False`` for
    a module already legalized."""
    options = _pipeline_options(stream, legalize)
    return ("builtin.module(tessel-lowering-pipeline"
            + (f"{{{' '.join(options)}}}" if options else "") + ")")


LEGALIZE = "builtin.module(tessel-legalize-pipeline)"
# A batch norm's per-channel scale and shift first, so that they are among
# what the weights alone give.
OUTLINE_WEIGHT_COMPUTATIONS = ("builtin.module(func.func(tessel-fold-affine-chains),"
                               "tessel-outline-weight-computations)")


class LoweringError(TesselError, RuntimeError):
    """A pass pipeline failed; the message has MLIR's diagnostics.
    ``stage`` is the stage that ran it (``legalize`` or ``lower``),
    ``ir_path`` the file holding the IR it failed on and ``repro`` the
    ``tessel-opt`` command that reproduces the failure."""

    def __init__(self, message: str, *, ir_path: Path | None = None,
                 repro: str | None = None, stage: str = "lower"):
        super().__init__(message)
        self.ir_path = ir_path
        self.repro = repro
        self.stage = stage


# ``stage(name, compilation)``: a context manager around each stage of a
# compile (the names in ``STAGES``; the ``Compilation`` holds the module and
# the weights), so a driver can time it, show progress, write the IR and say
# which stage failed. The default does nothing.
Stage = Callable[[str, "Compilation"], contextlib.AbstractContextManager]


def no_stage(name: str, c: "Compilation") -> contextlib.AbstractContextManager:
    return contextlib.nullcontext()


def _keep_failed_ir(text: str, failure_dir: str | Path | None, stage: str) -> Path:
    """Writes the IR a pipeline failed on where a person can find it."""
    directory = Path(failure_dir) if failure_dir else Path(
        tempfile.mkdtemp(prefix="tessel-failure-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / ("lowering-input.mlir" if stage == "lower"
                        else f"{stage}-input.mlir")
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


@dataclass
class Compilation:
    """What the stages of one compile share: the imported model, the
    target, the one module they transform in turn, and the program at the
    end."""

    model: Any
    target: arch_model.Arch
    module: Any
    mapping: Mapping | None = None
    stream: int = 1
    failure_dir: str | Path | None = None
    program: Program | None = field(default=None, repr=False)
    # The program's weights by name: the model's, and those computed from
    # them (precompute). None where there are none to compute with.
    weights: dict | None = None
    # Whether emit verifies the lowered module, alongside encoding it (on a
    # second thread), instead of lower after its passes: where emit follows.
    verify_in_emit: bool = False
    # Lower's input, its stage and repro flag, kept until emit has verified
    # lower's result: a failure is lower's, reproduced from its input.
    lowering_input: tuple | None = field(default=None, repr=False)


_DOING = {"legalize": "legalizing", "precompute": "computing what the weights give",
          "lower": "lowering"}


def _run_pipeline(c: Compilation, passes: str, stage: str, repro_flag: str,
                  verify: bool = True) -> None:
    """Runs ``passes`` on the module and verifies the result; without
    ``verify`` emit verifies it, and the input is kept for its failure
    (``Compilation.lowering_input``). The pass manager leaves a failed
    module half-transformed, so the input is kept as a clone (printed only
    if the pipeline fails) to reproduce the failure."""
    from ..passmanager import PassManager

    before = c.module.operation.clone()
    try:
        # Verifying after every pass is half of BERT's pass time; the
        # result is verified once (here, or by emit), and tessel-opt (the
        # repro command) verifies after each pass to find the one at fault.
        pm = PassManager.parse(passes)
        pm.enable_verifier(False)
        pm.run(c.module.operation)
        if verify:
            c.module.operation.verify()
        else:
            c.lowering_input, before = (before, stage, repro_flag), None
    except Exception as e:  # MLIRError carries the diagnostics
        raise _failure(c, before, stage, repro_flag, e) from e
    finally:
        if before is not None:
            before.erase()


def _failure(c: Compilation, before, stage: str, repro_flag: str,
             error: Exception) -> LoweringError:
    """The failure of ``stage`` on its input ``before``, which is written
    where the failures are kept, with the command that reproduces it."""
    path = _keep_failed_ir(before.operation.get_asm(enable_debug_info=True),
                           c.failure_dir, stage)
    repro = f"tessel-opt {path} {repro_flag}"
    failure = diagnostics.parse(str(error))
    headline = f"{failure.headline()}\n{diagnostics.ADVICE}\n" if failure else ""
    return LoweringError(
        f"{headline}{_DOING[stage]} for {c.target.name} failed:\n{error}\nthe IR it "
        f"failed on: {path}\nreproduce with: {repro}", ir_path=path,
        repro=repro, stage=stage)


def legalize(c: Compilation) -> None:
    """``tessel-legalize-pipeline``: the form the mapper reads and the
    lowering starts from."""
    _run_pipeline(c, LEGALIZE, "legalize", "-tessel-legalize-pipeline")


def precompute(c: Compilation) -> None:
    """What the weights alone give (a batch norm's scale and shift, which
    ``tessel-fold-affine-chains`` applies as ``x * s + t``; an int8 matmul's
    column sums), computed here once instead of by the chip on every run:
    ``tessel-outline-weight-computations`` moves it into functions of their
    own, which run on MLIR 22's CPU JIT with the model's weights, and each
    value they give becomes a weight of the program. Without weights (a
    module lowered alone) the chip computes them."""
    if c.weights is None:
        return
    _run_pipeline(c, OUTLINE_WEIGHT_COMPUTATIONS, "precompute",
                  "-pass-pipeline='" + OUTLINE_WEIGHT_COMPUTATIONS + "'")
    outlined = [func for func in c.module.body.operations
                if "tessel.weights_of" in func.attributes]
    if not outlined:
        return
    c.weights.update(_evaluate(outlined, c.weights))
    for func in outlined:
        func.operation.erase()


def _evaluate(funcs, weights: dict) -> dict:
    """The values the outlined ``@<f>.weights.<n>`` functions return, by
    the names their results carry, run on ``weights``: all of them compiled
    by one JIT, and functions that differ only in their symbol and their
    argument and result attributes (names, and permutations, which are
    applied to the inputs before the call) compiled once and run for each:
    ResNet-18's 20 batch norms are 4 functions, one per channel count."""
    from ..frontend.model import Signature, TensorSpec
    from ..frontend.reference import ReferenceRunner
    from ..ir import (ArrayAttr, DenseI64ArrayAttr, DictAttr, FunctionType,
                      InsertionPoint, Module, RankedTensorType, StringAttr)

    def specs(types, attrs, kind):
        return [TensorSpec(StringAttr(DictAttr(a)["tessel.name"]).value,
                           tuple(RankedTensorType(t).shape),
                           _HOST_DTYPES[str(RankedTensorType(t).element_type)], kind)
                for t, a in zip(types, attrs)]

    # Alone in a module, public and unmarked, as the JIT calls them.
    module = Module.parse("module {}")
    compiled: dict[str, Signature] = {}  # by the function's text without its names
    runs = []  # (the compiled function's signature, its weights, the names of its results)
    for func in funcs:
        op = func.operation
        ftype = FunctionType(op.attributes["function_type"].value)
        args = specs(ftype.inputs, ArrayAttr(op.attributes["arg_attrs"]), "weight")
        results = specs(ftype.results, ArrayAttr(op.attributes["res_attrs"]), "output")
        # A weight stored transposed (tessel-fold-weight-transposes) is read so.
        given = []
        for spec, attrs in zip(args, ArrayAttr(op.attributes["arg_attrs"])):
            value = np.asarray(weights[spec.name])
            if "tessel.permutation" in DictAttr(attrs):
                value = np.transpose(value, list(DenseI64ArrayAttr(
                    DictAttr(attrs)["tessel.permutation"])))
            given.append(np.ascontiguousarray(value))
        alone = op.clone(InsertionPoint(module.body))
        for attribute in ("sym_visibility", "tessel.weights_of"):
            del alone.attributes[attribute]
        # The function without what only names it: its symbol, and its
        # argument and result attributes (names, and permutations applied
        # to the inputs above).
        name = alone.attributes["sym_name"]
        alone.attributes["sym_name"] = StringAttr.get("f")
        arg_attrs, res_attrs = alone.attributes["arg_attrs"], alone.attributes["res_attrs"]
        del alone.attributes["arg_attrs"], alone.attributes["res_attrs"]
        text = str(alone)
        signature = compiled.get(text)
        if signature is None:
            alone.attributes["sym_name"] = name
            alone.attributes["arg_attrs"], alone.attributes["res_attrs"] = arg_attrs, res_attrs
            signature = compiled[text] = Signature(StringAttr(name).value, args, results)
        else:
            alone.erase()
        runs.append((signature, given, [spec.name for spec in results]))
    # Run once on a few small tensors: the JIT's code generation is the
    # cost, and without LLVM's optimizations it takes half the time
    # (ResNet-18: 0.56 -> 0.18 s) for the same values (MLIR's arith ops
    # carry no fast-math flags to optimize by).
    runner = ReferenceRunner(str(module), list(compiled.values()), opt_level=0)
    values = {}
    for signature, given, names in runs:
        outputs = runner.run({spec.name: value for spec, value in zip(signature.args, given)},
                             function=signature.func_name)
        values.update(zip(names, outputs))
    return values


# The NumPy type names of the frontend's signatures, by MLIR element type.
_HOST_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
                "bf16": "bfloat16", "i64": "int64", "i32": "int32", "i8": "int8",
                "i1": "bool"}


def map_ops(c: Compilation) -> None:
    """The caller's mapping, written into the legalized module as
    ``#tessel.mapping``s."""
    c.mapping(c.module, c.target)


def lower(c: Compilation) -> None:
    """``tessel-lowering-pipeline`` on the legalized (and mapped) module,
    down to a ``tessel.device`` with every decision of the program in it.

    After a mapping the pipeline legalizes again, first: legalize is not a
    fixpoint in the order of ops (a second run moves some, and with them
    the order of the DRAM buffers), and the programs are those of the
    mapped module legalized again. Without one the module is as the
    legalize stage left it. The result is verified here, or by emit where
    it follows (``Compilation.verify_in_emit``)."""
    again = c.mapping is not None
    options = _pipeline_options(c.stream, legalize=again)
    _run_pipeline(c, pipeline(c.stream, legalize=again), "lower",
                  "-tessel-lowering-pipeline"
                  + (f"='{' '.join(options)}'" if options else ""),
                  verify=not c.verify_in_emit)


def emit(c: Compilation) -> None:
    """The program: the device encoded, the model's weights in DRAM; the
    device verified alongside where lower left it to emit, a failure to
    verify reported as lower's."""
    kept, c.lowering_input = c.lowering_input, None
    try:
        # Weights the program never reads have no DRAM buffer.
        c.program = emit_program(c.module, weights=c.weights, unused_weights_ok=True,
                                 verify="alongside" if kept else False)
    except DeviceVerificationError as e:
        if kept is None:
            raise
        raise _failure(c, *kept, e) from e
    finally:
        if kept is not None:
            kept[0].erase()


# The stages after import, in order. "map" runs only with a mapping; without
# one tessel-default-mapping maps each op at the start of "lower".
STAGES: tuple[tuple[str, Callable[[Compilation], None]], ...] = (
    ("legalize", legalize),
    ("precompute", precompute),
    ("map", map_ops),
    ("lower", lower),
    ("emit", emit),
)


def run_stages(c: Compilation, stage: Stage = no_stage, *,
               until: str = "emit") -> None:
    """Runs ``STAGES`` on ``c`` in order, up to and including ``until``,
    each inside ``stage(name, c)``."""
    # Emit verifies the lowered module while it encodes it (ResNet-18's
    # device: 0.3 s on the second core).
    c.verify_in_emit = until == "emit"
    for name, run in STAGES:
        if name == "map" and c.mapping is None:
            continue
        with stage(name, c):
            run(c)
        if name == until:
            return


def lower_to_device(mlir: str, arch: Any = None, *, signature=None,
                    stream: int = 1) -> str:
    """The ``tessel.device`` for ``mlir`` (one function of linalg on tensors)
    on ``arch`` (a preset name, a YAML path or an ``Arch``; default
    ``tessel-4x4``), as MLIR text. With the frontend's ``signature``, DRAM
    buffers take the model's argument and output names and weights are
    marked as such."""
    from ..ir import Context

    target = arch_model.load(arch)
    with Context():
        c = Compilation(None, target, parse_imported(mlir, target, signature),
                        stream=stream)
        run_stages(c, until="lower")
        return str(c.module)


def lower_and_emit(model, arch: Any = None, *, mapping: Mapping | None = None,
                   stage: Stage = no_stage, failure_dir=None, stream: int = 1) -> Program:
    """The program for an imported model (``tessel.frontend.ImportedModel``)
    on ``arch``: ``STAGES`` run on it (legalized, mapped by ``mapping``,
    else tessel-default-mapping, lowered, emitted with the model's weights
    in DRAM). The instructions keep the model's source locations, which
    become the program's tags (per-layer reports). ``stream`` > 1 compiles a
    program that computes that many inputs one after another, overlapping
    the mapping's pipeline stages: input ``x`` becomes ``x[0]`` ..
    ``x[stream-1]``, and likewise each output. ``stage`` wraps each stage
    (see ``Stage``); a failed legalize or lower keeps its input IR in
    ``failure_dir`` (default: a fresh temporary directory) and names it in
    the ``LoweringError``. ``tessel.driver.compile_imported`` chooses the
    mapping by the mapper's name."""
    from ..ir import Context

    target = arch_model.load(arch)
    with Context():
        _pipeline_options(stream, True)  # a bad stream fails before any work
        c = Compilation(model, target, parse_imported(model.mlir, target, model.signature),
                        mapping, stream, failure_dir, weights=dict(model.weights))
        run_stages(c, stage)
        return c.program
