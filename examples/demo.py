"""`make demo`: compiles a small transformer block (tiny_transformer.py) for
the default architecture, simulates it, checks it against PyTorch and
prints the report and where the trace and plots were written.

    python examples/demo.py [--arch tessel-4x4] [--out DIR]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import tessel
from tessel.report import PlotsUnavailable
from tessel import arch

# A module of its own (not __main__): the frontend process unpickles it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tiny_transformer  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default=arch.DEFAULT_ARCH)
    parser.add_argument("--out", help="where to write (default: a fresh temporary "
                        "directory)")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="tessel-demo-"))

    start = time.perf_counter()
    model, inputs = tiny_transformer.build()
    result = tessel.compile_and_simulate(
        model, inputs, arch=args.arch, name="tiny_transformer", progress=True,
        rtol=tiny_transformer.RTOL, atol=tiny_transformer.ATOL)
    program_dir = result.save(out / "program")
    trace = program_dir / "run" / "trace.json"
    print()
    print(result.report)
    try:
        from tessel.report import html
        page = html.write(result.report, out / "report", trace=trace)
        plots = (f"report:   {page}\nheatmap:  {out / 'report' / 'heatmap.png'}\n"
                 f"roofline: {out / 'report' / 'roofline.png'}")
    except PlotsUnavailable as e:
        plots = f"plots:    not written: {e}"
    print()
    print(result.check)
    print(f"program:  {program_dir}  (tessel disasm / simulate / report {program_dir})")
    print(f"trace:    {trace}  (open in ui.perfetto.dev)")
    print(plots)
    print(f"demo finished in {time.perf_counter() - start:.1f} s")
    return 0 if result.check.passed else 1


if __name__ == "__main__":
    sys.exit(main())
