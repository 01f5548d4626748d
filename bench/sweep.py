"""Design sweeps on a local Ray: a sweep of the zoo MLP over two arch
fields, and how its wall time scales with the workers.

    python bench/sweep.py [--model mlp] [--arch tessel-4x4] [--out DIR]
                          [--points 16] [--scaling 8]
                          [--scaling-models mlp,small_cnn]

Runs `--points` points (the cross product of grid heights and NoC link
widths below, cut to that many) on every CPU, then, for each of
`--scaling-models`, `--scaling` points on 1 worker and on 2 (fresh
directories, nothing resumed), and prints each run's wall time after the
model's import (and of it the seconds Ray took to start), the points per
minute and the Pareto front of cycles against energy. The sweeps' directories (CSV, plots, page) stay
in --out.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROWS = [1, 2, 4, 8]
LINKS = [8, 16, 32, 64]


def _sets(points: int) -> dict:
    # Cross product of the two fields, as many grid heights as keep it
    # within `points`.
    rows = ROWS[:max(1, points // len(LINKS))]
    return {"grid.rows": rows, "noc.link_bytes_per_cycle": LINKS}


def _timed(model, arch, sets, out, workers):
    """The sweep's result, and the seconds of its call before the points
    started (the model's import and its reference run)."""
    import tessel

    start = time.perf_counter()
    result = tessel.sweep(model, set=sets, out=out, arch=arch, workers=workers,
                          progress=False)
    return result, time.perf_counter() - start - result.seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--arch", default="tessel-4x4")
    parser.add_argument("--out", default=None, help="where the sweeps go "
                        "(default: a fresh temporary directory)")
    parser.add_argument("--points", type=int, default=16,
                        help="points of the whole sweep (0: skip it)")
    parser.add_argument("--scaling", type=int, default=8,
                        help="points of the 1- vs 2-worker runs (0: skip them)")
    parser.add_argument("--scaling-models", default="mlp,small_cnn",
                        help="the models of the 1- vs 2-worker runs")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="tessel-sweep-bench-"))
    if args.points:
        _whole_sweep(args, out)
    models = [m for m in args.scaling_models.split(",") if m] if args.scaling else []
    for model in models:
        part = _sets(args.scaling)
        times = {}
        for workers in (1, 2):
            r, _ = _timed(model, args.arch, part, out / f"{model}-workers{workers}",
                          workers)
            times[workers] = r.seconds
            work = sum(x["compile_s"] + x["simulate_s"] for x in r.ok())
            print(f"{model}: {len(r.rows)} points ({len(r.ok())} ok) on {workers} "
                  f"worker(s): {times[workers]:.1f} s (Ray's start {r.startup_s:.1f} s; "
                  f"the points' compile and simulate {work:.1f} s in all)")
            for x in r.rows:
                if x["status"] != "ok":
                    print(f"  not ok: {x['status']}: {x['error'][:300]}")
                    break
        print(f"{model}: speed-up on 2 workers: {times[1] / times[2]:.2f}x")
    return 0


def _whole_sweep(args, out) -> None:
    from tessel.sweeps.plots import pareto_front

    sets = _sets(args.points)
    result, imported = _timed(args.model, args.arch, sets, out / "all", None)
    ok, seconds = result.ok(), result.seconds
    print(f"{args.model} on {args.arch}: {len(result.rows)} points ({len(ok)} ok) on "
          f"{os.cpu_count()} CPUs in {seconds:.1f} s after the model's import "
          f"({imported:.1f} s), of which Ray's start {result.startup_s:.1f} s "
          f"({60 * len(result.rows) / seconds:.1f} points/min)")
    print(f"  {result.csv}\n  {result.html}")
    print("Pareto front, cycles vs energy:")
    print("  " + "  ".join(f"{h:>12}" for h in
                           ("grid rows", "link B/cyc", "cycles", "energy uJ")))
    for r in pareto_front(result.rows, "cycles", "energy_uj"):
        print("  " + "  ".join(f"{v:>12}" for v in (
            r["grid.rows"], r["noc.link_bytes_per_cycle"], r["cycles"],
            f"{r['energy_uj']:.3f}")))


if __name__ == "__main__":
    sys.exit(main())
