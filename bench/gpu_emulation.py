"""The emulation target against the simulator's functional mode.

Runs programs on the simulator with numerics and on the emulator, checks that
the outputs are the same bytes, and prints wall times (medians) and the
speed-up. Two kinds of program:

- ``conv`` and ``bert``: the hand-scheduled layers of bench/simulator.py (a
  ResNet-18 3x3 conv on systolic-32x32, a BERT-base layer's matmuls on
  tessel-4x4);
- any zoo model by name (``resnet18``, ``bert_layer``, ..): the model
  compiled for ``--arch`` (tessel-4x4 by default) with the default mapping,
  fed ``tessel.cli.random_inputs`` with seed 7 (the generator of
  ``tessel simulate --random-inputs``, which uses seed 0).

The emulator's first run of a program is reported apart: it includes decoding
the program, compiling the kernel (NVRTC, cached on disk by CuPy) and moving
the program to the GPU; later runs move only the inputs and outputs.

    python bench/gpu_emulation.py [--programs conv bert resnet18 bert_layer]
                                  [--arch ARCH] [--device cuda|cpu]
                                  [--repeat N] [--group G]
    python bench/gpu_emulation.py --save DIR      # write programs and inputs
    python bench/gpu_emulation.py --load DIR      # use them (no compiler needed)

Compiling a zoo model needs the compiler (MLIR, torch-mlir); ``--save`` on a
machine that has it and ``--load`` on one with a GPU split the work.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# The runtime alone (no compiler) where tessel is not on the path already.
sys.path.append(str(ROOT / "python"))

from tessel.runtime.emulator import cuda, emulate  # noqa: E402
from tessel.runtime.loader import load_program  # noqa: E402
from tessel.runtime.simulator import simulate  # noqa: E402

LAYERS = {"conv": "ResNet-18 conv3x3 56x56x64->64 (systolic-32x32)",
          "bert": "BERT-base layer matmuls, seq 128 (tessel-4x4)"}
DEFAULT_PROGRAMS = ("conv", "bert", "resnet18", "bert_layer")
ZOO_SEED = 7


def _bench_simulator():
    spec = importlib.util.spec_from_file_location("bench_simulator",
                                                  ROOT / "bench" / "simulator.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(name: str, arch: str):
    """The program called ``name`` and its inputs; a zoo model is compiled
    for ``arch``."""
    if name in LAYERS:
        b = _bench_simulator()
        program = b.conv_program()[0] if name == "conv" else b.bert_program()[0]
        return program, layer_inputs(name)
    # Compiled from the zoo: needs the compiler, imported only here.
    from tessel import zoo
    from tessel.cli import random_inputs
    from tessel.driver import compile_imported
    program = compile_imported(zoo.run_case(name, "torch", jit=False).model, arch)
    return program, random_inputs(program, seed=ZOO_SEED)


def layer_inputs(name: str) -> dict:
    if name == "conv":
        rng = np.random.default_rng(1)
        xp = np.zeros((58, 58, 64), np.float32)
        xp[1:57, 1:57] = rng.standard_normal((56, 56, 64))
        return {"x_padded": xp}
    return {"x": np.float32(np.random.default_rng(3).standard_normal((128, 768)))}


def save(directory: Path, name: str, program, inputs: dict) -> None:
    program.save(directory / name / "program")
    np.savez(directory / name / "inputs.npz", **inputs)


def load(directory: Path, name: str):
    with np.load(directory / name / "inputs.npz") as f:
        inputs = {k: f[k] for k in f.files}
    return load_program(directory / name / "program"), inputs


def saved_names(directory: Path) -> list[str]:
    return sorted(p.parent.name for p in directory.glob("*/inputs.npz"))


def title(name: str, program) -> str:
    return LAYERS.get(name, f"{name} ({program.arch.name})")


def timed(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def same_bytes(a: dict, b: dict) -> bool:
    return sorted(a) == sorted(b) and all(
        np.ascontiguousarray(a[k]).tobytes() == np.ascontiguousarray(b[k]).tobytes()
        for k in a)


def device_name(device: str) -> str:
    if device == "cpu":
        return "CPU (NumPy interpreter)"
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return props["name"].decode() if isinstance(props["name"], bytes) else props["name"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", nargs="+", metavar="NAME",
                        help="conv, bert or zoo model names (default: "
                        f"{' '.join(DEFAULT_PROGRAMS)}; with --load, every "
                        "saved program)")
    parser.add_argument("--arch", default="tessel-4x4",
                        help="architecture the zoo models are compiled for")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--repeat", type=int, default=5,
                        help="emulator runs per program (the simulator runs "
                        "max(1, repeat // 3) times)")
    parser.add_argument("--threads", type=int, default=cuda.THREADS,
                        help="CUDA threads per block")
    parser.add_argument("--group", type=int, default=None,
                        help="CUDA thread blocks per tile (default: the blocks "
                        f"the GPU holds shared among the tiles, at most {cuda.GROUP_MAX})")
    parser.add_argument("--save", metavar="DIR", type=Path,
                        help="write the programs and their inputs and exit")
    parser.add_argument("--load", metavar="DIR", type=Path,
                        help="read the programs and inputs from DIR")
    args = parser.parse_args(argv)

    if args.load and not args.programs:
        names = saved_names(args.load)
        if not names:
            print(f"error: no saved programs in {args.load} (write them with "
                  "--save)", file=sys.stderr)
            return 1
    else:
        names = args.programs or list(DEFAULT_PROGRAMS)
    if args.save:
        for name in names:
            save(args.save, name, *build(name, args.arch))
            print(f"{name} written to {args.save / name}", flush=True)
        return 0
    if args.device == "cuda" and not cuda.available():
        print("error: no CUDA device with CuPy here; try --device cpu", file=sys.stderr)
        return 1
    cuda.THREADS, cuda.GROUP = args.threads, args.group
    print(f"device: {device_name(args.device)}"
          + (f", {args.threads} threads per block" if args.device == "cuda" else ""))
    print(f"{'program':<66} {'instrs':>7} {'simulator':>10} {'first run':>10} "
          f"{'emulator':>10} {'speed-up':>9}  bit-exact", flush=True)
    ok = True
    for name in names:
        program, inputs = load(args.load, name) if args.load else build(name, args.arch)
        sim_s, sim = timed(lambda: simulate(program, inputs),
                           max(1, args.repeat // 3))
        first_s, _ = timed(lambda: emulate(program, inputs, device=args.device), 1)
        emu_s, emu = timed(lambda: emulate(program, inputs, device=args.device),
                           args.repeat)
        exact = same_bytes(emu.outputs, sim.outputs)
        ok = ok and exact
        label = title(name, program)
        if args.device == "cuda":
            label += f" [{cuda.prepared(program, None).group} blocks/tile]"
        print(f"{label:<66} {emu.instructions:>7} {sim_s:>9.3f}s "
              f"{first_s:>9.3f}s {emu_s * 1e3:>8.2f}ms {sim_s / emu_s:>8.0f}x  "
              f"{'yes' if exact else 'NO'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
