"""python -m tessel.coverage [--markdown PATH] [--run [NAME ...]]"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import CASES, XFAIL, get, markdown, names, run

BEGIN, END = "<!-- coverage table: begin -->", "<!-- coverage table: end -->"


def write_markdown(path: Path) -> None:
    """Replace the generated table in ``path`` (between its markers)."""
    text = path.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{markdown()}\n{END}{tail}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tessel.coverage")
    parser.add_argument("--markdown", type=Path,
                        help="rewrite the generated table in this file")
    parser.add_argument("--run", nargs="*", metavar="NAME",
                        help="run these cases (default: all) and compare with XFAIL")
    args = parser.parse_args(argv)
    if args.markdown:
        write_markdown(args.markdown)
    if args.run is not None:
        unexpected = 0
        for name in args.run or names():
            t = time.perf_counter()
            outcome = run(get(name))
            expected = name not in XFAIL
            mark = "ok" if outcome.passed == expected else "UNEXPECTED"
            unexpected += mark != "ok"
            print(f"{name:<32} {'pass' if outcome.passed else 'FAIL'} "
                  f"{time.perf_counter() - t:5.1f} s  {mark}  "
                  f"{outcome.message.splitlines()[0] if outcome.message else ''}",
                  flush=True)
        return 1 if unexpected else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
