"""Design-space sweeps: one model compiled and simulated on every point of
a cross product of arch field values, each point a Ray task
(docs/sweeps.md).

    result = tessel.sweep("mlp", arch="tessel-4x4",
                          set={"noc.link_bytes_per_cycle": [16, 32],
                               "tile.sram.bytes": [131072, 262144]},
                          out="sweeps/mlp")
    result.rows        # one dict per point; result.csv, result.html

``tessel sweep MODEL --arch BASE --set FIELD=v1,v2 ... -o DIR`` is the same
from the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, TextIO

from .. import arch as arch_model
from ..errors import InvalidArgumentError
from .point import METRICS, Job
from .runner import SweepError, SweepResult, run
from .space import Axis, SweepSpecError, parse_axes, point_arch, sweepable_paths

__all__ = ["sweep", "SweepResult", "SweepError", "SweepSpecError", "Axis",
           "parse_axes", "point_arch", "sweepable_paths", "METRICS"]

# The compile options a sweep passes on to every point (the others are the
# sweep's own: no trace, the check when there is a reference).
POINT_OPTIONS = ("mapper", "objective", "max_stages", "mapper_time_limit_s",
                 "rtol", "atol", "scale_rtol")


def sweep(model: Any, example_inputs: Any = None, *,
          set: Mapping[str, Iterable[Any]] | Iterable[str],
          out: str | Path, arch: Any = arch_model.DEFAULT_ARCH,
          workers: int | None = None, address: str | None = None,
          check: bool = True, progress: TextIO | bool = True,
          **options) -> SweepResult:
    """Compiles and simulates ``model`` on every point of the cross product
    of ``set`` (field -> values, or ``"FIELD=v1,v2"`` strings) over the base
    ``arch``, writing ``out/sweep.csv``, the Pareto plots and
    ``out/sweep.html``.

    ``model``: a zoo case name, ``FILE.py[:FUNC]`` or an ``.onnx`` path (as
    ``tessel compile`` takes), or a model object with ``example_inputs`` (as
    :func:`tessel.compile`). It is imported once, here; the points run as
    Ray tasks. ``workers``: tasks at once (default: every CPU Ray sees);
    ``address``: a Ray cluster to join (default ``RAY_ADDRESS``, else a
    local one). ``options``: ``mapper``, ``objective``, ``max_stages``,
    ``mapper_time_limit_s``, ``rtol``, ``atol``, ``scale_rtol``.

    ``progress``: where the progress lines go (a stream; True, the default:
    stderr; False: nowhere).

    Every ``set`` value is checked before anything runs (SweepSpecError
    names the field and its range). Points already in ``out/sweep.csv``
    with a final status are not run again.
    """
    unknown = sorted(k for k in options if k not in POINT_OPTIONS)
    if unknown:
        raise InvalidArgumentError(f"sweep: unknown option {unknown[0]!r}; the options a "
                                   f"sweep passes to its points: {', '.join(POINT_OPTIONS)}")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or workers < 1):
        raise InvalidArgumentError(f"sweep: workers must be an integer >= 1, got {workers!r}")
    try:
        base = arch_model.load(arch)
    except arch_model.ArchError as e:
        raise InvalidArgumentError(f"sweep: --arch: {e}") from None
    axes = parse_axes(set)
    stream = sys.stderr if progress is True else progress or None
    if Path(out).exists() and not Path(out).is_dir():
        raise SweepError(f"-o {out}: a file; name a directory (made if missing)")
    job = _job(model, example_inputs, check, options, stream)
    return run(job, base, axes, out, workers=workers, address=address, progress=stream)


def _job(model, example_inputs, check: bool, options: dict, progress) -> Job:
    """The model imported once, its inputs and its reference outputs."""
    from ..driver import source as source_mod
    from ..driver.options import Options

    if isinstance(model, (str, Path)) and example_inputs is None:
        src, tolerance = source_mod.from_spec(str(model))
    else:
        src, tolerance = source_mod.from_model(model, example_inputs), {}
    point_options = {**tolerance, **options}
    Options.make(**point_options)  # a bad option fails here, not in every task
    if progress is not None:
        print(f"sweep: importing {src.name}", file=progress, flush=True)
    imported = src.importer()
    inputs = src.inputs if src.inputs is not None else source_mod.random_inputs(imported)
    reference = None
    if check and src.reference is not None:
        reference = [a.copy() for a in src.reference(inputs)]
    return Job(src.name, imported, list(inputs), reference, src.against, point_options)
