"""The ``tessel`` command.

Subcommands:
  compile MODEL    compile a model (zoo name, FILE.py[:FUNC], .onnx, imported
                   model directory) for -a ARCH into the program directory -o DIR,
                   with the reference's inputs and outputs beside it
  report DIR       the per-layer and per-tile tables of the last simulation;
                   --html also writes a page with a heatmap and a roofline
  archs            list the architecture presets
  archs NAME|PATH  print one description as YAML (validated)
  disasm DIR       print a compiled program as text
  simulate DIR     run a compiled program on the simulator (the reference
                   inputs `tessel compile` kept, else random ones, unless --inputs
                   names an .npz), print its statistics and the check against
                   the reference, and keep them in DIR/run for `tessel report`;
                   --target gpu / cpu-emulation runs it on the emulation
                   target instead (outputs only, no timing)
  map MODEL        map a model over the grid; --explain prints per op
                   the region, split, step sizes and predicted cycles
  sweep MODEL      compile and simulate MODEL on every point of --set
                   FIELD=v1,v2 ... over --arch, on Ray: DIR/sweep.csv (cycles,
                   energy, ...), Pareto plots, sweep.html

Progress lines go to stderr; --quiet leaves them out, for scripts.
Imports nothing compiled until a subcommand needs it: archs, disasm, simulate
and report run where only Python and NumPy are installed.
"""

from __future__ import annotations

import argparse
import sys

from . import arch as arch_model
from .errors import MissingExtraError, missing_extra


def _human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}" if unit == "B" else f"{n:.4g} {unit}"
        n /= 1024
    raise AssertionError


def _archs(args: argparse.Namespace) -> int:
    if args.arch:
        try:
            described = arch_model.load(args.arch)
        except arch_model.ArchError as e:
            return _error(str(e))
        sys.stdout.write(described.to_yaml())
        return 0
    header = ("name", "grid", "MAC array / tile", "SRAM / tile", "DRAM",
              "peak f32 TMAC/s")
    rows = [header]
    for name in arch_model.preset_names():
        a = arch_model.load(name)
        mac = a.tile.mac
        dataflow = "WS" if mac.dataflow == "weight_stationary" else "OS"
        peak = a.peak_macs_per_cycle("f32") * a.clock_hz / 1e12
        rows.append((
            name + (" (default)" if name == arch_model.DEFAULT_ARCH else ""),
            f"{a.grid.rows}x{a.grid.cols}",
            f"{mac.rows}x{mac.cols} {dataflow}",
            _human_bytes(a.tile.sram.bytes),
            f"{a.dram.channels} ch x {a.dram.bytes_per_cycle} B/cycle",
            f"{peak:.3g}",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def _load(args: argparse.Namespace):
    """The program of ``args.program``, or None after printing the error."""
    from .runtime.program import ProgramError
    from .runtime.loader import load_program

    try:
        return load_program(args.program)
    except ProgramError as e:
        _error(f"{args.program}: {e}")
        return None


def _disasm(args: argparse.Namespace) -> int:
    from .runtime.disasm import disassemble

    program = _load(args)
    if program is None:
        return 1
    sys.stdout.write(disassemble(program))
    return 0


def random_inputs(program, seed: int = 0) -> dict:
    """An array per input of ``program``, of the buffer's shape and dtype:
    standard normal values for floats (float32 for f32 and bf16, float16 for
    f16), uniform over the whole range for i8 and i32."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = {}
    for name in program.inputs:
        b = program.buffer(name)
        if b.dtype in ("i8", "i32"):
            dt = np.int8 if b.dtype == "i8" else np.int32
            info = np.iinfo(dt)
            out[name] = rng.integers(info.min, info.max, b.shape, dtype=dt,
                                     endpoint=True)
        else:
            dt = np.float16 if b.dtype == "f16" else np.float32
            out[name] = rng.standard_normal(b.shape).astype(dt)
    return out


# `tessel simulate --target`: the executor, and the emulator's device.
TARGETS = {"simulator": None, "gpu": "cuda", "cpu-emulation": "cpu"}


def _simulate(args: argparse.Namespace) -> int:
    from .runtime.simulator import SimulationError, simulate

    device = TARGETS[args.target]
    if device is not None and (args.trace or args.timing_only):
        return _error(f"--target {args.target} computes outputs only; --trace and "
                      "--timing-only need the simulator")
    program = _load(args)
    if program is None:
        return 1
    from .driver.commands import (SideFileError, arrays_mismatch, read_npz, record_run,
                                  reference_of)

    try:
        ref_inputs, ref_outputs, info = reference_of(args.program, program)
    except SideFileError as e:
        return _error(str(e))
    if args.inputs:
        try:
            inputs = read_npz(args.inputs)
        except ValueError as e:
            return _error(f"--inputs {args.inputs}: {e}")
        problem = arrays_mismatch(program, inputs, "inputs")
        if problem:
            return _error(f"--inputs {args.inputs}: {problem}; pass an .npz with one "
                          f"array per input of the program, by name")
        ref_outputs = None          # the reference answered other inputs
    elif ref_inputs is not None:
        inputs = ref_inputs
    else:
        inputs = random_inputs(program)
    if not args.quiet:
        print(f"  simulating {args.program} ...", file=sys.stderr, flush=True)
    try:
        if device is None:
            result = simulate(program, inputs, numerics=not args.timing_only,
                              trace=bool(args.trace))
        else:
            result = program.emulate(inputs, device=device)
    except SimulationError as e:        # the emulator's errors are ones too
        return _error(f"stage 'simulate' failed: {e}\nreproduce with: tessel simulate "
                      f"{args.program}")
    if device is None:
        print(result.summary())
        try:
            run, check = record_run(args.program, program, result,
                                    reference_outputs=ref_outputs, info=info,
                                    trace=args.trace)
        except SideFileError as e:
            return _error(str(e))
        if check is not None:
            print(f"check against {check['reference']}: "
                  f"{'PASS' if check['passed'] else 'FAIL'} (max |error| "
                  f"{check['max_abs_error']:.3g}, of the output's scale "
                  f"{check['max_scaled_error']:.3g}; rtol {check['rtol']:g}, atol "
                  f"{check['atol']:g}, scale_rtol {check['scale_rtol']:g})")
        if not args.quiet:
            print(f"run recorded in {run} (tessel report {args.program})",
                  file=sys.stderr)
    else:
        print(f"emulated on {result.device}: {result.instructions} instructions "
              f"in {result.seconds:.3g} s")
    try:
        if args.trace:
            result.save_trace(args.trace)
            print(f"trace written to {args.trace} (open in ui.perfetto.dev)")
        if args.outputs:
            import numpy as np
            np.savez(args.outputs, **result.outputs)
    except OSError as e:
        return _error(f"{e.filename or ''}: {e.strerror or e}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tessel", description="Tessel: an MLIR compiler for spatial ML "
        "accelerators.")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="compile a model into a program directory")
    comp.add_argument("model", help="a zoo case name, FILE.py[:FUNC] (FUNC, default "
                      "build, returns (module, example_inputs)), an .onnx file or a "
                      "saved imported model directory")
    comp.add_argument("-a", "--arch", default=arch_model.DEFAULT_ARCH,
                      help="a preset name or a YAML path (default %(default)s)")
    comp.add_argument("-o", "--output", required=True, help="the program directory")
    comp.add_argument("--mapper", choices=("cpsat", "heuristic", "exhaustive",
                                           "default"), default="cpsat")
    comp.add_argument("--objective", choices=("latency", "throughput"),
                      default="latency")
    comp.add_argument("--max-stages", type=int, default=1,
                      help="most pipeline stages (throughput; default 1)")
    comp.add_argument("--resident-weights", action="store_true",
                      help="let the mapper keep weights in SRAM over the "
                      "stream (throughput)")
    comp.add_argument("--stream", type=int, default=1,
                      help="inputs the program computes one after another, "
                      "the pipeline stages overlapping (default 1)")
    comp.add_argument("--time-limit", type=float, default=10.0,
                      help="CP-SAT limit, deterministic seconds")
    comp.add_argument("--rtol", type=float, help="tolerance of the check "
                      "(default: the zoo case's or the file's RTOL, else 1e-4)")
    comp.add_argument("--atol", type=float, help="likewise")
    comp.add_argument("--scale-rtol", type=float, dest="scale_rtol",
                      help="the largest error allowed, relative to the output's "
                      "largest magnitude (default: the zoo case's or the file's "
                      "SCALE_RTOL, else 1e-3)")
    comp.add_argument("--failure-dir", help="where a failed stage keeps its IR "
                      "(default: a fresh temporary directory)")
    comp.add_argument("--keep-f32", metavar="OPS", dest="keep_f32", default="",
                      help="comma-separated ATen ops (e.g. gelu) a bf16 or f16 "
                      "PyTorch model computes in f32, rounding their results back")
    comp.add_argument("--dump-ir", metavar="DIR",
                      help="write the IR after each stage: DIR/00-imported.mlir, "
                      "01-mapped.mlir, 02-lowered.mlir (tessel-opt "
                      "-tessel-lowering-pipeline reproduces the last from the mapped IR), "
                      "and each weight buffer's bytes, DIR/weights/<name>.bin "
                      "(tessel-translate --tessel-to-program --weights DIR/weights "
                      "writes the program from the lowered IR)")
    comp.add_argument("-q", "--quiet", action="store_true",
                      help="no progress lines")
    comp.set_defaults(run=lambda args: __import__(
        "tessel.driver.commands", fromlist=["compile_command"]).compile_command(args))
    rep = sub.add_parser("report", help="per-layer and per-tile tables of the last "
                         "simulation of a program directory")
    rep.add_argument("program", help="a program directory `tessel simulate` ran")
    rep.add_argument("--html", nargs="?", const="", default=None, metavar="OUT",
                     help="also write report.html, heatmap.png and roofline.png "
                     "(into OUT, default DIR/report; needs matplotlib)")
    rep.set_defaults(run=lambda args: __import__(
        "tessel.driver.commands", fromlist=["report_command"]).report_command(args))
    archs = sub.add_parser("archs", help="list architecture presets, or "
                           "print one as YAML")
    archs.add_argument("arch", nargs="?", help="a preset name or a YAML path")
    archs.set_defaults(run=_archs)
    dis = sub.add_parser("disasm", help="print a compiled program as text")
    dis.add_argument("program", help="a program directory")
    dis.set_defaults(run=_disasm)
    sim = sub.add_parser("simulate", help="run a compiled program on the "
                         "cycle-approximate simulator")
    sim.add_argument("program", help="a program directory")
    sim.add_argument("--inputs", help=".npz with one array per input")
    sim.add_argument("--outputs", help="write the outputs to this .npz")
    sim.add_argument("--trace", help="write a Chrome/Perfetto trace here")
    sim.add_argument("--target", choices=tuple(TARGETS), default="simulator",
                     help="simulator (default; cycles and outputs), gpu or "
                     "cpu-emulation (the emulation target: outputs, bit for "
                     "bit the simulator's)")
    sim.add_argument("--timing-only", action="store_true",
                     help="model time only, skip the arithmetic")
    sim.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    sim.set_defaults(run=_simulate)
    mp = sub.add_parser("map", help="map a model over the grid (needs the "
                        "compiler and the frontend)")
    mp.add_argument("model", help="a zoo case name (e.g. mlp), FILE.py[:FUNC] "
                    "(FUNC, default build, returns (module, example_inputs)), "
                    "an .onnx file or a saved imported model directory")
    mp.add_argument("--arch", default=arch_model.DEFAULT_ARCH,
                    help="a preset name or a YAML path")
    mp.add_argument("--mapper", choices=("heuristic", "cpsat"), default="cpsat")
    mp.add_argument("--objective", choices=("latency", "throughput"),
                    default="latency")
    mp.add_argument("--stages", type=int, default=1,
                    help="most pipeline stages (throughput)")
    mp.add_argument("--resident-weights", action="store_true",
                    help="let weights stay in SRAM over a stream (throughput)")
    mp.add_argument("--time-limit", type=float, default=10.0,
                    help="CP-SAT limit, deterministic seconds")
    mp.add_argument("--explain", action="store_true",
                    help="print the mapping of every op")
    mp.set_defaults(run=lambda args: __import__(
        "tessel.driver.map_command", fromlist=["run"]).run(args))
    sw = sub.add_parser("sweep", help="compile and simulate a model on every point "
                        "of a cross product of arch field values, on Ray")
    sw.add_argument("model", help="a zoo case name, FILE.py[:FUNC] or an .onnx file "
                    "(as tessel compile)")
    sw.add_argument("-a", "--arch", default=arch_model.DEFAULT_ARCH,
                    help="the base: a preset name or a YAML path (default %(default)s)")
    sw.add_argument("--set", action="append", metavar="FIELD=V1,V2,...",
                    help="a swept arch field (dotted, as in the YAML: "
                    "noc.link_bytes_per_cycle, tile.sram.bytes, grid.rows, "
                    "tile.mac.macs_per_cycle.f32, energy.dram_fj_per_byte ...) and "
                    "its values; repeat for more fields (their cross product)")
    sw.add_argument("-o", "--output", required=True, help="the sweep's directory: "
                    "sweep.csv, the Pareto plots, sweep.html; a rerun there skips "
                    "the points it holds")
    sw.add_argument("--workers", type=int, help="points at once (default: every CPU "
                    "Ray sees)")
    sw.add_argument("--address", help="a Ray cluster to join (default: RAY_ADDRESS, "
                    "else a local one on this machine)")
    sw.add_argument("--mapper", choices=("cpsat", "heuristic", "exhaustive",
                                         "default"))
    sw.add_argument("--time-limit", type=float, help="CP-SAT limit per point, "
                    "deterministic seconds (default 10)")
    sw.add_argument("--no-check", action="store_true",
                    help="do not check each point's outputs against the model's "
                    "reference")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    sw.set_defaults(run=lambda args: __import__(
        "tessel.sweeps.command", fromlist=["run"]).run(args))
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ModuleNotFoundError as e:
        named = missing_extra(e, f"tessel {args.command}")
        if not isinstance(named, MissingExtraError):
            raise
        print(named, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
