"""The ``tessel`` command.

Subcommands:
  archs            list the architecture presets
  archs NAME|PATH  print one description as YAML (validated)
  disasm DIR       print a compiled program as text
  simulate DIR     run a compiled program on the simulator (random inputs
                   unless --inputs names an .npz) and print its statistics;
                   --target gpu / cpu-emulation runs it on the emulation
                   target instead (outputs only, no timing)
  map MODEL        map a zoo model over the grid; --explain prints per op
                   the region, split, step sizes and predicted cycles

Imports nothing compiled: it runs where only Python is installed.
"""

from __future__ import annotations

import argparse
import sys

from . import arch as arch_model


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
    from .runtime.program import ProgramError, load_program

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


def _read_npz(path: str) -> dict:
    """The arrays of an .npz file; ValueError with the reason if it cannot be
    read."""
    import numpy as np

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
    if args.inputs:
        try:
            inputs = _read_npz(args.inputs)
        except ValueError as e:
            return _error(f"--inputs {args.inputs}: {e}")
    else:
        inputs = random_inputs(program)
    try:
        if device is None:
            result = simulate(program, inputs, numerics=not args.timing_only,
                              trace=bool(args.trace))
        else:
            result = program.emulate(inputs, device=device)
    except SimulationError as e:        # the emulator's errors are ones too
        return _error(str(e))
    if device is None:
        print(result.summary())
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
    sim.set_defaults(run=_simulate)
    mp = sub.add_parser("map", help="map a zoo model over the grid (needs the "
                        "compiler and the frontend)")
    mp.add_argument("model", help="a zoo case name, e.g. mlp")
    mp.add_argument("--arch", default=arch_model.DEFAULT_ARCH,
                    help="a preset name or a YAML path")
    mp.add_argument("--mapper", choices=("heuristic", "cpsat"), default="cpsat")
    mp.add_argument("--objective", choices=("latency", "throughput"),
                    default="latency")
    mp.add_argument("--stages", type=int, default=1,
                    help="most pipeline stages (throughput)")
    mp.add_argument("--time-limit", type=float, default=10.0,
                    help="CP-SAT limit, deterministic seconds")
    mp.add_argument("--explain", action="store_true",
                    help="print the mapping of every op")
    mp.set_defaults(run=lambda args: __import__(
        "tessel.mapper.command", fromlist=["run"]).run(args))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
