"""``tessel.compile`` and ``tessel.compile_and_simulate``: the stages
(import, legalize, precompute, map, lower, emit, simulate, check) run in order, each
timed, each failure raised as a :class:`StageError` that names the stage,
keeps the IR and says how to reproduce it."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError, MissingExtraError
from .. import arch as arch_model
from ..runtime.program import Program, stream_buffer_name
from . import source as source_mod
from .check import Check, compare
from .errors import StageError
from .options import Options
from .progress import Stages
from .result import SimulationResult


@dataclass
class Compiled:
    """A compile's products: the program, the imported model it came from,
    the source (inputs, reference) and the stage times."""

    program: Program
    imported: Any
    source: source_mod.Source
    options: Options
    stages: Stages


def compile(model: Any, example_inputs: Any = None, *,
            arch: Any = arch_model.DEFAULT_ARCH, mapper: str = "cpsat",
            objective: str = "latency", **options) -> Program:
    """The program for ``model`` (an ``nn.Module`` with ``example_inputs``,
    an ONNX path, or a ``tessel.frontend.ImportedModel``) on ``arch`` (a
    preset name, a YAML path or an ``Arch``). Further ``options`` are the
    fields of :class:`Options`. Raises :class:`StageError`."""
    opts = Options.make(arch=arch, mapper=mapper, objective=objective, **options)
    return compile_source(source_mod.from_model(model, example_inputs, opts.name),
                          opts).program


def compile_and_simulate(model: Any, example_inputs: Any = None, *,
                         arch: Any = arch_model.DEFAULT_ARCH,
                         **options) -> SimulationResult:
    """Compiles ``model`` (as :func:`compile`), simulates it on
    ``example_inputs`` (random ones for an ONNX or imported model when not
    given) and, unless ``check=False``, compares the outputs with the
    model's reference at ``rtol``/``atol``."""
    opts = Options.make(arch=arch, **options)
    src = source_mod.from_model(model, example_inputs, opts.name)
    return simulate_compiled(compile_source(src, opts))


def compile_source(src: source_mod.Source, opts: Options) -> Compiled:
    from .pipeline import compile_imported

    stages = Stages(opts.progress)
    failures = _FailureDir(opts.failure_dir, src.name)
    if opts.progress:
        print(f"tessel: {src.name} on {opts.arch.name} (mapper {opts.mapper})",
              file=stages.stream, flush=True)
    with _stage_errors("import", failures):
        with stages("import"):
            imported = src.load(opts.keep_f32)

    dump = _IrDump(opts.dump_ir)

    def stage(name, compilation):
        return _HookedStage(name, compilation, stages, failures, imported, opts, dump)

    with _stage_errors("lower", failures):
        program = compile_imported(
            imported, opts.arch, mapper=opts.mapper,
            mapper_options=None if opts.mapper == "default" else opts.mapper_options(),
            stage=stage, failure_dir=failures.path, stream=opts.stream)
    return Compiled(program, imported, src, opts, stages)


def simulate_compiled(c: Compiled) -> SimulationResult:
    from ..runtime.simulator import SimulationError

    inputs = c.source.inputs
    if inputs is None:
        inputs = source_mod.random_inputs(c.imported)
    specs = c.imported.signature.inputs
    if len(inputs) != len(specs):
        raise InvalidArgumentError(f"{c.source.name}: {len(inputs)} example inputs, the model takes "
                         f"{len(specs)} ({', '.join(s.name for s in specs)})")
    stream = c.options.stream
    sets = stream_inputs(c, inputs)
    # Inputs the program never reads have no DRAM buffer.
    feeds = {name: x for name, x in per_input(specs, sets, stream).items()
             if name in c.program.inputs}
    failures = _FailureDir(c.options.failure_dir, c.source.name)
    try:
        with c.stages("simulate"):
            raw = c.program.simulate(feeds, trace=c.options.trace)
    except SimulationError as e:
        where = failures.make() / "program"
        c.program.save(where)
        raise StageError("simulate", str(e), ir_path=where,
                         repro=f"tessel simulate {where}") from e
    check = None
    if c.options.check and c.source.reference is not None:
        with c.stages("check"):
            checks = [_check(c, raw.outputs, xs, n) for n, xs in enumerate(sets)]
            check = dataclasses.replace(
                checks[0], outputs=tuple(o for ch in checks for o in ch.outputs))
    if stream > 1:
        # The first input's outputs under the model's own names.
        names = [o.name for o in c.imported.signature.outputs]
        raw = dataclasses.replace(raw, outputs={
            **{n: raw.outputs[stream_buffer_name(n, 0, stream)] for n in names},
            **raw.outputs})
    return SimulationResult.of(raw, program=c.program, name=c.source.name, check=check,
                               timings=dict(c.stages.seconds))


def stream_inputs(c: Compiled, inputs) -> list:
    """One set of model inputs per input of the program's stream:
    ``inputs`` first, then random ones (seed = the set's index)."""
    return [inputs] + [source_mod.random_inputs(c.imported, seed=n)
                       for n in range(1, c.options.stream)]


def per_input(specs, sets, stream: int) -> dict[str, np.ndarray]:
    """The arrays of every input of a stream (``sets[n]`` holds input n's,
    one per spec) under their DRAM buffers' names."""
    return {stream_buffer_name(s.name, n, stream): np.asarray(x)
            for n, xs in enumerate(sets) for s, x in zip(specs, xs)}


def _check(c: Compiled, outputs, inputs, index: int = 0) -> Check:
    golden = c.source.reference(inputs)
    names = [stream_buffer_name(o.name, index, c.options.stream)
             for o in c.imported.signature.outputs]
    return compare(outputs, golden, names, rtol=c.options.rtol, atol=c.options.atol,
                   scale_rtol=c.options.scale_rtol, against=c.source.against,
                   dtypes=[o.dtype for o in c.imported.signature.outputs])


# ---- failures ------------------------------------------------------------

class _FailureDir:
    """Where a failed stage keeps its IR: ``failure_dir`` when given, else a
    fresh directory under the temporary directory, made only on a failure."""

    def __init__(self, given: str | None, name: str):
        self.path = Path(given) if given else Path(tempfile.gettempdir()) / (
            f"tessel-failure-{name}-{uuid.uuid4().hex[:8]}")

    def make(self) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return self.path


class _stage_errors:
    """Turns a failure inside into a StageError for ``stage`` (the
    frontend's errors name the import stage; the lowering's carry their IR
    and repro)."""

    def __init__(self, stage: str, failures: _FailureDir):
        self.stage, self.failures = stage, failures

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        # A missing optional package is no stage's failure: its message
        # says what to install, as the command line says it.
        if error is None or isinstance(error, (StageError, MissingExtraError,
                                               KeyboardInterrupt)):
            return False
        if not isinstance(error, Exception):
            return False
        from ..compiler import LoweringError
        if isinstance(error, LoweringError):
            raise StageError(error.stage, str(error), ir_path=error.ir_path,
                             repro=error.repro) from error
        raise StageError(self.stage, f"{type(error).__name__}: {error}") from error


class _IrDump:
    """The ``dump_ir`` option: the module written, with locations, before
    the first stage (``00-imported.mlir``) and after map and lower
    (``01-mapped.mlir``, ``02-lowered.mlir``), and after lower the bytes of
    each weight buffer (``weights/<name>.bin``, the model's weights and
    those the compile computed from them), which
    ``tessel-translate --tessel-to-program --weights DIR/weights`` reads."""

    FILES = {"imported": "00-imported.mlir", "map": "01-mapped.mlir",
             "lower": "02-lowered.mlir"}
    WEIGHTS = "weights"

    def __init__(self, directory: str | None):
        self.directory = Path(directory) if directory else None
        self.started = False
        if self.directory is not None:
            # A directory used before holds no file of another compile.
            for name in self.FILES.values():
                (self.directory / name).unlink(missing_ok=True)
            shutil.rmtree(self.directory / self.WEIGHTS, ignore_errors=True)

    def write(self, what: str, module, weights=None) -> None:
        if self.directory is None or what not in self.FILES:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        text = module.operation.get_asm(enable_debug_info=True)
        # Ended with a newline, as tessel-opt prints it.
        (self.directory / self.FILES[what]).write_text(text.rstrip("\n") + "\n")
        if what == "lower" and weights is not None:
            from ..compiler import weight_data, weight_file_name

            data = weight_data(module, weights, unused_ok=True)
            folder = self.directory / self.WEIGHTS
            folder.mkdir()
            for name, raw in data.items():
                (folder / weight_file_name(name)).write_bytes(raw)

    def before_first_stage(self, module) -> None:
        if not self.started:
            self.started = True
            self.write("imported", module)


class _HookedStage:
    """The stage hook compile_imported calls around each stage of
    ``tessel.compiler.lower.STAGES``: times it, writes the IR after it where
    ``dump_ir`` asks, and on a failure of map or emit keeps the IR and the
    imported model with the commands that reproduce it (legalize and lower
    keep their own, in lower.py)."""

    def __init__(self, name, compilation, stages, failures, imported, opts, dump: _IrDump):
        self.name, self.compilation, self.stages = name, compilation, stages
        self.module = compilation.module
        self.failures, self.imported, self.opts = failures, imported, opts
        self.dump = dump
        self.timer = stages(name)

    def __enter__(self):
        self.dump.before_first_stage(self.module)
        self.timer.__enter__()
        # The mapper's input, cloned before it runs: a failed mapping can
        # leave some ops mapped. The emitter only reads the module, so its
        # input is printed if it fails (the lowered IR of a BERT layer is
        # 39 MB of text, 2.3 s to print). Legalize and lower keep their own
        # (lower.py).
        self.before = self.module.operation.clone() if self.name == "map" else None
        return self

    def __exit__(self, kind, error, tb):
        self.timer.__exit__(kind, error, tb)
        try:
            return self._after(error)
        finally:
            if self.before is not None:
                self.before.erase()

    def _after(self, error) -> bool:
        if error is None:
            self.dump.write(self.name, self.module, self.compilation.weights)
            return False
        # Lower's result failing to verify in emit (lower.emit) is lower's
        # failure, with lower's input and repro.
        from ..compiler import LoweringError
        if (self.name in ("legalize", "lower") or not isinstance(error, Exception)
                or isinstance(error, LoweringError)):
            return False
        where = self.failures.make()
        ir = where / f"{self.name}-input.mlir"
        failed_on = self.before if self.before is not None else self.module
        ir.write_text(failed_on.operation.get_asm(enable_debug_info=True))
        model_dir = self.imported.save(where / "model", overwrite=True)
        again = (f"tessel compile {model_dir} -a {self.opts.arch.name} "
                 f"--mapper {self.opts.mapper}")
        if self.name == "map":
            repro = (f"tessel-opt {ir} (parses and verifies the legalized IR the "
                     f"mapper read); the mapper itself: {again}")
        else:
            repro = (f"tessel-opt {ir} (parses and verifies the device IR the emitter "
                     f"read); the emitter itself: {again}")
        raise StageError(self.name, f"{type(error).__name__}: {error}", ir_path=ir,
                         repro=repro) from error
