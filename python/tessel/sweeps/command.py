"""``tessel sweep MODEL --arch BASE --set FIELD=v1,v2 [--set ...] -o DIR``."""

from __future__ import annotations

import sys

from ..driver.errors import StageError
from ..errors import InvalidArgumentError
from . import sweep


def run(args) -> int:
    options = {k: v for k, v in (("mapper", args.mapper),
                                 ("mapper_time_limit_s", args.time_limit))
               if v is not None}
    stream = False if args.quiet else sys.stderr
    try:
        result = sweep(args.model, set=args.set or [], out=args.output, arch=args.arch,
                       workers=args.workers, address=args.address,
                       check=not args.no_check, progress=stream, **options)
    except (StageError, InvalidArgumentError, ValueError, TypeError, KeyError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    ok = len(result.ok())
    print(f"{len(result.rows)} points ({result.ran} run now, {ok} ok, "
          f"{len(result.rows) - ok} failed or invalid) in {result.seconds:.1f} s")
    print(f"table: {result.csv}")
    if result.html is not None:
        print(f"Pareto plots: {', '.join(str(p) for p in result.plots)}; "
              f"page: {result.html}")
    else:
        print("no plots: they need matplotlib (pip install 'tessel[report]')")
    return 0
