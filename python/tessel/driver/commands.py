"""The driver's subcommands of ``tessel``: ``compile``, and what
``simulate`` and ``report`` keep beside a program directory::

    DIR/                 the program (manifest.json, dram.bin, tiles/)
    DIR/compile.json     model, arch, mapper, stage times, reference and tolerance
    DIR/reference/       inputs.npz and the reference's outputs.npz (when known)
    DIR/run/             report.json, outputs.npz, trace.json of the last simulation
    DIR/report/          report.html, heatmap.png, roofline.png (tessel report --html)
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from ..errors import TesselError
from .errors import StageError
from .options import Options
from .result import OUTPUTS_FILE, REPORT_FILE, RUN_DIR, TRACE_FILE

COMPILE_FILE = "compile.json"
REFERENCE_DIR = "reference"


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def compile_command(args) -> int:
    from . import api, source

    try:
        src, tolerance = source.from_spec(args.model)
        opts = Options.make(arch=args.arch, mapper=args.mapper, objective=args.objective,
                            max_stages=args.max_stages,
                            resident_weights=args.resident_weights, stream=args.stream,
                            mapper_time_limit_s=args.time_limit, progress=not args.quiet,
                            name=src.name, failure_dir=args.failure_dir,
                            dump_ir=args.dump_ir,
                            keep_f32=tuple(o for o in args.keep_f32.split(",") if o),
                            **{k: v for k, v in tolerance.items()},
                            **{k: getattr(args, k) for k in ("rtol", "atol", "scale_rtol")
                               if getattr(args, k) is not None})
        compiled = api.compile_source(src, opts)
    except StageError as e:
        return _error(str(e))
    except (ValueError, TypeError, KeyError) as e:
        return _error(e.args[0] if e.args else str(e))
    try:
        out = _save(args, src, opts, compiled)
    except OSError as e:
        where = f"{e.filename}: {e.strerror}" if e.filename else str(e)
        return _error(f"-o {args.output}: cannot write the program there ({where}); pass "
                      f"a new directory, or an earlier program's to replace it")
    if not args.quiet:
        print(f"{src.name}: {compiled.program.num_instructions} instructions on "
              f"{len(compiled.program.tiles)} tiles of {opts.arch.name}, compiled in "
              f"{compiled.stages.total:.1f} s")
        print(f"program: {out}  (tessel simulate {out}; tessel disasm {out})")
    return 0


def _save(args, src, opts, compiled) -> Path:
    """Writes the program into ``-o``, with the reference's inputs and
    outputs and compile.json beside it."""
    from . import api

    out = compiled.program.save(args.output)
    reference = None
    if src.inputs is not None and src.reference is not None:
        specs = compiled.imported.signature
        sets = api.stream_inputs(compiled, src.inputs)
        with compiled.stages("check"):
            golden = [src.reference(xs) for xs in sets]
        inputs = api.per_input(specs.inputs, sets, opts.stream)
        outputs = api.per_input(specs.outputs, golden, opts.stream)
        ref = out / REFERENCE_DIR
        ref.mkdir(exist_ok=True)
        np.savez(ref / "inputs.npz", **{k: x for k, x in inputs.items()
                                        if k in compiled.program.inputs})
        np.savez(ref / "outputs.npz", **outputs)
        reference = src.against
    (out / COMPILE_FILE).write_text(json.dumps({
        "model": args.model, "name": src.name, "arch": opts.arch.name,
        "mapper": opts.mapper, "objective": opts.objective,
        "max_stages": opts.max_stages,
        "resident_weights": opts.resident_weights, "stream": opts.stream,
        "timings": compiled.stages.seconds, "reference": reference,
        "rtol": opts.rtol, "atol": opts.atol, "scale_rtol": opts.scale_rtol,
        "keep_f32": list(opts.keep_f32)},
        indent=1))
    return out


class SideFileError(TesselError, ValueError):
    """A file ``tessel compile`` or ``tessel simulate`` keeps beside the
    program (compile.json, the reference's arrays, run/) that cannot be
    read or written, or that does not match the program; the message names
    it and the fix."""


def read_npz(path) -> dict:
    """The arrays of an .npz file; ValueError with the reason if it cannot be
    read."""
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ValueError("no such file") from None
    except Exception as e:     # OSError, a bad zip, a bad header ...
        raise ValueError(f"cannot read it as .npz: {e}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError("a single .npy array, not an .npz archive with one "
                         "array per input")
    try:
        with data:
            return {k: data[k] for k in data.files}
    except Exception as e:
        raise ValueError(f"cannot read it as .npz: {e}") from None


# compile.json's entries a run reads: whether a value is one, and the
# message's word for it.
def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tolerance(v) -> bool:
    return _number(v) and math.isfinite(v) and v >= 0


_INFO_TYPES = {
    "name": (lambda v: isinstance(v, str), "a string"),
    "reference": (lambda v: isinstance(v, str), "a string"),
    "rtol": (_tolerance, "a number >= 0"),
    "atol": (_tolerance, "a number >= 0"),
    "scale_rtol": (_tolerance, "a number >= 0"),
    "timings": (lambda v: isinstance(v, dict), "an object of seconds per stage")}


def _read_info(path: Path) -> dict:
    """compile.json, its entries checked; null entries are left out (the
    defaults apply)."""
    fix = "compile the program again (or delete the file)"
    try:
        info = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise SideFileError(f"{path}: cannot read it as JSON ({_reason(e)}); "
                            f"{fix}") from None
    if not isinstance(info, dict):
        raise SideFileError(f"{path}: must be a JSON object; {fix}")
    for key, (valid, said) in _INFO_TYPES.items():
        value = info.get(key)
        if value is not None and not valid(value):
            raise SideFileError(f"{path}: {key!r} is {_shown(value)}, not {said}; {fix}")
    for stage, seconds in (info.get("timings") or {}).items():
        if not _number(seconds):
            raise SideFileError(f"{path}: 'timings' of stage {stage!r} is "
                                f"{_shown(seconds)}, not a number of seconds; {fix}")
    return {k: v for k, v in info.items() if v is not None}


def _reason(e: Exception) -> str:
    """An OSError as its reason alone (its path is in the message already)."""
    return (e.strerror or str(e)) if isinstance(e, OSError) else str(e)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def reference_of(directory, program=None) -> tuple[dict | None, dict | None, dict]:
    """The reference inputs and outputs kept by ``tessel compile`` (or
    None) and its compile.json; SideFileError naming a file that cannot be
    read, or (given the ``program``) whose arrays are not the program's
    inputs and outputs."""
    root = Path(directory)
    info = {}
    if (root / COMPILE_FILE).exists():
        info = _read_info(root / COMPILE_FILE)
    ref = root / REFERENCE_DIR
    fix = f"compile the program again (or delete {ref})"
    if ref.exists() and not ref.is_dir():
        raise SideFileError(f"{ref}: is not a directory, as the reference `tessel "
                            f"compile` keeps is; {fix}")
    kept = [(ref / name).exists() for name in ("inputs.npz", "outputs.npz")]
    if not any(kept):
        return None, None, info
    if not all(kept):
        missing = ref / ("outputs.npz" if kept[0] else "inputs.npz")
        raise SideFileError(f"{missing}: is missing, so the reference is incomplete; "
                            f"{fix}")
    arrays = []
    for name in ("inputs.npz", "outputs.npz"):
        try:
            arrays.append(read_npz(ref / name))
        except ValueError as e:
            raise SideFileError(f"{ref / name}: {e}; {fix}") from None
    if program is not None:
        for name, found, role in (("inputs.npz", arrays[0], "inputs"),
                                  ("outputs.npz", arrays[1], "outputs")):
            problem = arrays_mismatch(program, found, role)
            if problem:
                raise SideFileError(f"{ref / name}: {problem}, so it was not written for "
                                    f"this program; {fix}")
    return arrays[0], arrays[1], info


def arrays_mismatch(program, arrays: dict, role: str) -> str | None:
    """What keeps ``arrays`` from being the ``role`` (``inputs`` or
    ``outputs``) of ``program``: one array per buffer, of its shape, and
    of a dtype the simulator takes (an input) or of the buffer's kind of
    numbers, floating-point or integer (an output); None when they are."""
    from ..runtime.inputs import input_dtypes

    names = getattr(program, role)
    if set(arrays) != set(names):
        return (f"it holds {', '.join(sorted(arrays)) or 'no arrays'}, the program's "
                f"{role} are {', '.join(names) or 'none'}")
    for name in names:
        buf, x = program.buffer(name), arrays[name]
        if tuple(x.shape) != buf.shape:
            return (f"{name!r} has shape {list(x.shape)}, the program's buffer "
                    f"{list(buf.shape)}")
        taken = (x.dtype in input_dtypes(buf.dtype) if role == "inputs"
                 else x.dtype.kind in ("f" if buf.dtype[0] in "bf" else "biu"))
        if not taken:
            return f"{name!r} has dtype {x.dtype}, the program's buffer {buf.dtype}"
    return None


def record_run(directory, program, raw, *, reference_outputs=None, info=None,
               trace=None) -> tuple[Path, dict | None]:
    """Writes ``DIR/run/``: the report (with the check when the reference's
    outputs are known) and the outputs. Returns the run directory and the
    check (as in the report), or None; SideFileError when ``run/`` cannot
    be written."""
    from ..report import Report
    from .check import DEFAULT_SCALE_RTOL, compare

    info = info or {}
    check = None
    if reference_outputs is not None and raw.outputs:
        names = list(reference_outputs)
        # The program's bf16 outputs are checked at bf16's tolerance, as at
        # compile time.
        stored = {b.name: b.dtype for b in program.buffers}
        check = compare(raw.outputs, [reference_outputs[n] for n in names], names,
                        rtol=info.get("rtol", 1e-4), atol=info.get("atol", 1e-4),
                        scale_rtol=info.get("scale_rtol", DEFAULT_SCALE_RTOL),
                        against=info.get("reference") or "the reference",
                        dtypes=["bfloat16" if stored.get(n) == "bf16" else "float32"
                                for n in names])
    report = Report.build(program, raw, name=info.get("name", Path(directory).name),
                          check=check, timings=info.get("timings"))
    if trace:
        report.trace = str(Path(trace).resolve())
    run = Path(directory) / RUN_DIR
    target = run
    try:
        run.mkdir(exist_ok=True)
        target = run / REPORT_FILE
        target.write_text(json.dumps(report.to_dict(), indent=1))
        if raw.outputs:
            target = run / OUTPUTS_FILE
            np.savez(target, **raw.outputs)
    except OSError as e:
        again = f"simulate again: tessel simulate {directory}"
        if not run.is_dir():
            raise SideFileError(f"{run}: is not a directory, so the run cannot be "
                                f"recorded there; remove it and {again}") from None
        if target.is_dir():
            raise SideFileError(f"{target}: is a directory, so the run cannot be "
                                f"recorded; remove it and {again}") from None
        raise SideFileError(f"{target}: cannot be written ({_reason(e)}); make {run} "
                            f"writable and {again}") from None
    return run, report.check


def report_command(args) -> int:
    from ..report import Report, ReportError

    run = Path(args.program) / RUN_DIR
    path = run / REPORT_FILE
    again = f"run `tessel simulate {args.program}` to write it again"
    if run.exists() and not run.is_dir():
        return _error(f"{run}: is not a directory, as a simulation's record is; remove "
                      f"it and {again}")
    if path.is_dir():
        return _error(f"{path}: is a directory, not a simulation's report; remove it "
                      f"and {again}")
    if not path.exists():
        return _error(f"{args.program}: no simulation recorded ({path} is missing); run "
                      f"`tessel simulate {args.program}` first")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        return _error(f"{path}: cannot read it as JSON ({_reason(e)}); {again}")
    try:
        report = Report.from_dict(data, where=str(path), fix=again)
    except ReportError as e:
        return _error(str(e))
    print(report)
    if args.html is not None:
        from ..report import PlotsUnavailable, html

        out = Path(args.html) if args.html else Path(args.program) / "report"
        trace = report.trace or _default_trace(args.program)
        try:
            page = html.write(report, out, trace=trace)
        except PlotsUnavailable as e:
            return _error(str(e))
        except OSError as e:
            return _error(f"{e.filename or out}: cannot write the page there "
                          f"({_reason(e)}); pass another directory: --html OUT")
        print(f"\nreport: {page}\nheatmap: {out / 'heatmap.png'}\n"
              f"roofline: {out / 'roofline.png'}")
        if trace:
            print(f"trace: {trace}  (open in ui.perfetto.dev)")
    return 0


def _default_trace(directory) -> str | None:
    path = Path(directory) / RUN_DIR / TRACE_FILE
    return str(path) if path.is_file() else None
