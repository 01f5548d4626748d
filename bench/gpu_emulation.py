"""The emulation target against the simulator's functional mode.

Runs the two hand-scheduled layers of bench/simulator.py (a ResNet-18 3x3
conv on systolic-32x32, a BERT-base layer's matmuls on tessel-4x4) on the
simulator with numerics and on the emulator, checks that the outputs are the
same bytes, and prints wall times (medians) and the speed-up. The emulator's
first run of a program is reported apart: it includes decoding the program,
compiling the kernel (NVRTC, cached on disk by CuPy) and moving the program
to the GPU; later runs move only the inputs and outputs.

    python bench/gpu_emulation.py [--device cuda|cpu] [--repeat N] [--group G]
    python bench/gpu_emulation.py --save DIR      # write the two programs
    python bench/gpu_emulation.py --load DIR      # use saved programs (no PyYAML needed)
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
sys.path.insert(0, str(ROOT / "python"))

from tessel.runtime.emulator import cuda, emulate  # noqa: E402
from tessel.runtime.program import load_program  # noqa: E402
from tessel.runtime.simulator import simulate  # noqa: E402

LAYERS = ("conv", "bert")
TITLES = {"conv": "ResNet-18 conv3x3 56x56x64->64 (systolic-32x32)",
          "bert": "BERT-base layer matmuls, seq 128 (tessel-4x4)"}


def _bench_simulator():
    spec = importlib.util.spec_from_file_location("bench_simulator",
                                                  ROOT / "bench" / "simulator.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(name: str):
    b = _bench_simulator()
    return b.conv_program()[0] if name == "conv" else b.bert_program()[0]


def inputs_for(name: str, program) -> dict:
    if name == "conv":
        rng = np.random.default_rng(1)
        xp = np.zeros((58, 58, 64), np.float32)
        xp[1:57, 1:57] = rng.standard_normal((56, 56, 64))
        return {"x_padded": xp}
    return {"x": np.float32(np.random.default_rng(3).standard_normal((128, 768)))}


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
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--repeat", type=int, default=5,
                        help="emulator runs per program (the simulator runs "
                        "max(1, repeat // 3) times)")
    parser.add_argument("--layers", nargs="+", choices=LAYERS, default=list(LAYERS))
    parser.add_argument("--threads", type=int, default=cuda.THREADS,
                        help="CUDA threads per block (one block runs tiles)")
    parser.add_argument("--group", type=int, default=None,
                        help="CUDA thread blocks per tile (default: the blocks "
                        f"the GPU holds shared among the tiles, at most {cuda.GROUP_MAX})")
    parser.add_argument("--save", metavar="DIR", help="write the programs and exit")
    parser.add_argument("--load", metavar="DIR", help="read the programs from DIR")
    args = parser.parse_args(argv)

    if args.save:
        for name in args.layers:
            build(name).save(Path(args.save) / name)
        print(f"programs written to {args.save}")
        return 0
    if args.device == "cuda" and not cuda.available():
        print("error: no CUDA device with CuPy here; try --device cpu", file=sys.stderr)
        return 1
    cuda.THREADS, cuda.GROUP = args.threads, args.group
    print(f"device: {device_name(args.device)}"
          + (f", {args.threads} threads per block" if args.device == "cuda" else ""))
    print(f"{'program':<66} {'instrs':>7} {'simulator':>10} {'first run':>10} "
          f"{'emulator':>10} {'speed-up':>9}  bit-exact")
    ok = True
    for name in args.layers:
        program = load_program(Path(args.load) / name) if args.load else build(name)
        inputs = inputs_for(name, program)
        sim_s, sim = timed(lambda: simulate(program, inputs),
                           max(1, args.repeat // 3))
        first_s, _ = timed(lambda: emulate(program, inputs, device=args.device), 1)
        emu_s, emu = timed(lambda: emulate(program, inputs, device=args.device),
                           args.repeat)
        exact = same_bytes(emu.outputs, sim.outputs)
        ok = ok and exact
        title = TITLES[name]
        if args.device == "cuda":
            state = cuda.prepared(program, None)
            title += f" [{state.group} blocks/tile]"
        print(f"{title:<66} {emu.instructions:>7} {sim_s:>9.3f}s "
              f"{first_s:>9.3f}s {emu_s * 1e3:>8.2f}ms {sim_s / emu_s:>8.0f}x  "
              f"{'yes' if exact else 'NO'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
