"""Wall time of ``tessel.compile_and_simulate`` per model, split by stage
(import, map, lower, emit, simulate, check): the median of ``--repeat``
warm runs (the frontend process already started), with the cold first run
shown apart.

    python bench/end_to_end.py                          # the demo block and the zoo's MLP, CNN
    python bench/end_to_end.py --models tiny_transformer bert_layer --repeat 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import tessel  # noqa: E402
from tessel import frontend, zoo  # noqa: E402

STAGES = ("import", "legalize", "map", "lower", "emit", "simulate", "check")
DEFAULT_MODELS = ("tiny_transformer", "mlp", "small_cnn")


def build(name: str):
    """(module, inputs, rtol, atol) of the demo's block or a zoo case."""
    if name == "tiny_transformer":
        import tiny_transformer
        module, inputs = tiny_transformer.build()
        return module, inputs, tiny_transformer.RTOL, tiny_transformer.ATOL
    case = zoo.get(name)
    module, inputs = case.build()
    return module, inputs, case.rtol, case.atol


def run(name: str, arch: str, mapper: str) -> tuple[dict, float, bool]:
    module, inputs, rtol, atol = build(name)
    start = time.perf_counter()
    result = tessel.compile_and_simulate(module, inputs, arch=arch, mapper=mapper,
                                         rtol=rtol, atol=atol, name=name)
    return result.timings, time.perf_counter() - start, result.check.passed


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=list(DEFAULT_MODELS))
    p.add_argument("--arch", default="tessel-4x4")
    p.add_argument("--mapper", default="cpsat")
    p.add_argument("--repeat", type=int, default=3, help="warm runs per model")
    args = p.parse_args()

    t0 = time.perf_counter()
    frontend.warm_up()
    print(f"frontend process start (once per Python process): "
          f"{time.perf_counter() - t0:.2f} s")
    header = f"{'model':<18} {'run':<6}" + "".join(f"{s:>9}" for s in STAGES) + \
        f"{'total':>9}  check"
    print(header)
    print("-" * len(header))
    for name in args.models:
        try:
            runs = [run(name, args.arch, args.mapper) for _ in range(1 + args.repeat)]
        except tessel.StageError as e:
            print(f"{name:<18} stage '{e.stage}' failed; the IR: {e.ir_path}")
            continue
        rows = [("first", runs[0])]
        if args.repeat:
            warm = runs[1:]
            median = {s: statistics.median(r[0].get(s, 0.0) for r in warm) for s in STAGES}
            total = statistics.median(r[1] for r in warm)
            rows.append(("median", (median, total, all(r[2] for r in warm))))
        for label, (timings, total, passed) in rows:
            print(f"{name:<18} {label:<6}"
                  + "".join(f"{timings.get(s, 0.0):>9.2f}" for s in STAGES)
                  + f"{total:>9.2f}  {'PASS' if passed else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
