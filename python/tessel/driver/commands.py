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
                            **{k: v for k, v in tolerance.items()},
                            **{k: getattr(args, k) for k in ("rtol", "atol", "scale_rtol")
                               if getattr(args, k) is not None})
        compiled = api.compile_source(src, opts)
    except StageError as e:
        return _error(str(e))
    except (ValueError, TypeError, KeyError) as e:
        return _error(e.args[0] if e.args else str(e))
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
        "rtol": opts.rtol, "atol": opts.atol, "scale_rtol": opts.scale_rtol},
        indent=1))
    if not args.quiet:
        print(f"{src.name}: {compiled.program.num_instructions} instructions on "
              f"{len(compiled.program.tiles)} tiles of {opts.arch.name}, compiled in "
              f"{compiled.stages.total:.1f} s")
        print(f"program: {out}  (tessel simulate {out}; tessel disasm {out})")
    return 0


class SideFileError(TesselError, ValueError):
    """A file ``tessel compile`` keeps beside the program (compile.json, the
    reference's arrays) that cannot be read; the message names it and the
    fix."""


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


# compile.json's entries a run reads: their types, as a message says them.
_NUMBER = ((int, float), "a number")
_INFO_TYPES = {"name": (str, "a string"), "reference": (str, "a string"),
               "rtol": _NUMBER, "atol": _NUMBER, "scale_rtol": _NUMBER,
               "timings": (dict, "an object")}


def _read_info(path: Path) -> dict:
    """compile.json, its entries checked; null entries are left out (the
    defaults apply)."""
    fix = "compile the program again (or delete the file)"
    try:
        info = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise SideFileError(f"{path}: cannot read it as JSON ({e}); {fix}") from None
    if not isinstance(info, dict):
        raise SideFileError(f"{path}: must be a JSON object; {fix}")
    for key, (kind, said) in _INFO_TYPES.items():
        value = info.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise SideFileError(f"{path}: {key!r} is {value!r}, not {said}; {fix}")
    return {k: v for k, v in info.items() if v is not None}


def reference_of(directory) -> tuple[dict | None, dict | None, dict]:
    """The reference inputs and outputs kept by ``tessel compile`` (or
    None) and its compile.json; SideFileError naming a file that cannot be
    read."""
    root = Path(directory)
    info = {}
    if (root / COMPILE_FILE).exists():
        info = _read_info(root / COMPILE_FILE)
    ref = root / REFERENCE_DIR
    if not (ref / "inputs.npz").exists():
        return None, None, info
    arrays = []
    for name in ("inputs.npz", "outputs.npz"):
        try:
            arrays.append(read_npz(ref / name))
        except ValueError as e:
            raise SideFileError(f"{ref / name}: {e}; compile the program again (or "
                                f"delete {ref})") from None
    return arrays[0], arrays[1], info


def record_run(directory, program, raw, *, reference_outputs=None, info=None,
               trace=None) -> tuple[Path, dict | None]:
    """Writes ``DIR/run/``: the report (with the check when the reference's
    outputs are known) and the outputs. Returns the run directory and the
    check (as in the report), or None."""
    from ..report import Report
    from .check import DEFAULT_SCALE_RTOL, compare

    info = info or {}
    check = None
    if reference_outputs is not None and raw.outputs:
        names = list(reference_outputs)
        check = compare(raw.outputs, [reference_outputs[n] for n in names], names,
                        rtol=info.get("rtol", 1e-4), atol=info.get("atol", 1e-4),
                        scale_rtol=info.get("scale_rtol", DEFAULT_SCALE_RTOL),
                        against=info.get("reference") or "the reference")
    report = Report.build(program, raw, name=info.get("name", Path(directory).name),
                          check=check, timings=info.get("timings"))
    run = Path(directory) / RUN_DIR
    run.mkdir(exist_ok=True)
    if trace:
        report.trace = str(Path(trace).resolve())
    (run / REPORT_FILE).write_text(json.dumps(report.to_dict(), indent=1))
    if raw.outputs:
        np.savez(run / OUTPUTS_FILE, **raw.outputs)
    return run, report.check


def report_command(args) -> int:
    from ..report import Report

    path = Path(args.program) / RUN_DIR / REPORT_FILE
    if not path.is_file():
        return _error(f"{args.program}: no simulation recorded ({path} is missing); run "
                      f"`tessel simulate {args.program}` first")
    try:
        report = Report.from_dict(json.loads(path.read_text()), where=str(path))
    except (ValueError, json.JSONDecodeError) as e:
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
        print(f"\nreport: {page}\nheatmap: {out / 'heatmap.png'}\n"
              f"roofline: {out / 'roofline.png'}")
        if trace:
            print(f"trace: {trace}  (open in ui.perfetto.dev)")
    return 0


def _default_trace(directory) -> str | None:
    path = Path(directory) / RUN_DIR / TRACE_FILE
    return str(path) if path.is_file() else None
