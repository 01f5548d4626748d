"""Import time per zoo model, through PyTorch and through ONNX.

    .venv/bin/python bench/frontend.py [--runs N] [--models a,b] [--variants torch,onnx]

"first" is the first import of the model in a fresh frontend process (it
includes starting that process and importing torch and torch-mlir there);
"warm" is the median of N further imports of the same model. An import is
the whole call: sending the model, torch.export (or ONNX loading), torch-mlir
lowering, and the contract check in this process. The ONNX export itself is
done once beforehand and not timed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="warm imports per model (default 5)")
    ap.add_argument("--models", default="", help="comma-separated zoo names (default: all)")
    ap.add_argument("--variants", default="torch,onnx")
    args = ap.parse_args(argv)

    from tessel import frontend as fe
    from tessel import zoo

    names = [n for n in args.models.split(",") if n] or zoo.names()
    variants = [v for v in args.variants.split(",") if v]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tessel-bench-") as tmp:
        for variant in variants:
            for name in names:
                if (name, variant) in zoo.XFAIL:
                    rows.append((name, variant, None, None, "xfail: " + zoo.XFAIL[(name, variant)][:40]))
                    continue
                case = zoo.get(name)
                built = case.build()
                if variant == "torch":
                    if case.training:
                        module, loss_fn, inputs, targets = built
                        run = lambda: fe.import_torch_training(module, loss_fn, inputs, targets,  # noqa: E731
                                                               name=name)
                    else:
                        module, inputs = built
                        run = lambda: fe.import_torch(module, inputs, name=name)  # noqa: E731
                else:
                    module, inputs = built
                    path = Path(tmp) / f"{name}.onnx"
                    fe.export_onnx(module, inputs, path)
                    run = lambda: fe.import_onnx(path, name=name)  # noqa: E731
                fe.shutdown()  # "first" starts from a fresh frontend process
                t0 = time.perf_counter()
                run()
                first = time.perf_counter() - t0
                warm = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    model = run()
                    warm.append(time.perf_counter() - t0)
                rows.append((name, variant, first, statistics.median(warm),
                             f"{len(model.mlir) / 1024:.0f} KiB IR, "
                             f"{sum(w.nbytes for w in model.weights.values()) / 2**20:.1f} MiB weights"))
                print(f"  {name}/{variant}: first {first:.2f} s, warm {statistics.median(warm):.2f} s",
                      file=sys.stderr, flush=True)
    fe.shutdown()
    print(f"\n| model | path | first call (s) | warm median of {args.runs} (s) | notes |")
    print("|---|---|---:|---:|---|")
    for name, variant, first, warm, note in rows:
        f = "-" if first is None else f"{first:.2f}"
        w = "-" if warm is None else f"{warm:.2f}"
        print(f"| {name} | {variant} | {f} | {w} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
