"""Running a sweep: the model imported once, then one Ray task per design
point, rows written to ``sweep.csv`` as points finish (so an interrupted
sweep resumes where it stopped), a progress line, and the plots at the end.

Ray is an optional extra (``pip install 'tessel[sweep]'``). ``ray.init()``
starts a local cluster on this machine unless an address is given (or
``RAY_ADDRESS`` is set), then the sweep joins that cluster instead; each
node needs Tessel installed in the same version (docs/sweeps.md)."""

from __future__ import annotations

import csv
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..arch import Arch, ArchError
from ..errors import InvalidArgumentError, missing_extra
from . import space
from .point import FINAL_STATUSES, METRICS, Job, evaluate

CSV_FILE = "sweep.csv"
SPEC_FILE = "sweep.json"


class SweepError(InvalidArgumentError):
    """An output directory a sweep cannot use: a file, or one holding
    another sweep."""


@dataclass
class SweepResult:
    """A finished sweep: its rows (one per point, in point order: the
    swept fields, then :data:`~tessel.sweep.point.METRICS`), where they were
    written, and the paths of the plots and the page (None when matplotlib
    is missing)."""

    rows: list[dict[str, Any]]
    fields: list[str]
    directory: Path
    csv: Path
    plots: list[Path]
    html: Path | None
    ran: int            # points run now (the others came from an earlier run)
    seconds: float      # in all, from the call to the plots
    startup_s: float = 0.0   # of which starting (or joining) Ray

    def ok(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["status"] == "ok"]


def _ray():
    try:
        import ray
    except ModuleNotFoundError as e:
        raise missing_extra(e, "tessel sweep (its points run on Ray)") from None
    return ray


def _spec(job: Job, base: Arch, axes: list[space.Axis]) -> dict[str, Any]:
    """What identifies a sweep, kept in ``sweep.json``: a rerun into the same
    directory must sweep the same model, base arch, fields and options."""
    return {"model": job.name, "base_arch": base.to_dict(),
            "fields": [a.path for a in axes], "options": job.options,
            "signature": job.imported.signature.to_json()}


def _read_done(csv_path: Path, fields: list[str]) -> dict[tuple[str, ...], dict]:
    """Rows of an earlier run with a final status, keyed by their field
    values as text."""
    if not csv_path.exists():
        return {}
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != fields + list(METRICS):
            raise SweepError(f"{csv_path}: its columns are not this sweep's "
                             f"({', '.join(fields + list(METRICS))}); pass a new -o")
        return {tuple(r[p] for p in fields): r for r in reader
                if r["status"] in FINAL_STATUSES}


def _typed(row: dict[str, str]) -> dict[str, Any]:
    """A row read back from the CSV with its numbers as numbers."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if k in ("status", "error", "check"):
            out[k] = v
            continue
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


class _Progress:
    """``points done / failed / left, ETA`` on one line of stderr (redrawn in
    place on a terminal, a line per point otherwise)."""

    def __init__(self, total: int, stream: TextIO | None):
        self.total, self.stream = total, stream
        self.done = self.failed = 0
        self.start = time.monotonic()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())

    def update(self, row: dict[str, Any]) -> None:
        self.done += 1
        if row["status"] != "ok":
            self.failed += 1
        if self.stream is None:
            return
        elapsed = time.monotonic() - self.start
        left = self.total - self.done
        eta = elapsed / self.done * left if self.done else 0.0
        text = (f"sweep: {self.done}/{self.total} points done, {self.failed} failed, "
                f"{elapsed:.0f} s, ETA {eta:.0f} s")
        if self.tty:
            self.stream.write("\r" + text + ("\n" if not left else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def run(job: Job, base: Arch, axes: list[space.Axis], out: str | Path, *,
        workers: int | None = None, address: str | None = None,
        progress: TextIO | None = None) -> SweepResult:
    """Every point of ``axes`` over ``base``, each a Ray task; rows of an
    earlier run in ``out`` with a final status are kept, not run again.
    Progress lines go to ``progress`` (none when None)."""
    start = time.monotonic()
    directory = Path(out)
    if directory.exists() and not directory.is_dir():
        raise SweepError(f"-o {directory}: a file; name a directory (made if missing)")
    directory.mkdir(parents=True, exist_ok=True)
    fields = [a.path for a in axes]
    spec = _spec(job, base, axes)
    spec_path, csv_path = directory / SPEC_FILE, directory / CSV_FILE
    if spec_path.exists():
        if json.loads(spec_path.read_text()) != json.loads(json.dumps(spec)):
            raise SweepError(f"-o {directory} holds a sweep of another model, base arch, "
                             f"fields or options ({spec_path}); pass a new directory, "
                             f"or remove it to start over")
    else:
        spec_path.write_text(json.dumps(spec, indent=1))
    done = _read_done(csv_path, fields)

    all_points = space.points(axes)
    key = lambda values: tuple(str(v) for v in values)   # noqa: E731
    todo = [v for v in all_points if key(v) not in done]
    rows: dict[tuple, dict] = {key(v): _typed(r) for v, r in
                               ((v, done[key(v)]) for v in all_points if key(v) in done)}
    bar = _Progress(len(todo), progress if todo else None)

    new_file = not csv_path.exists()
    with open(csv_path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields + list(METRICS))
        if new_file:
            writer.writeheader()

        def record(values, row):
            row = {**dict(zip(fields, values)), **row}
            rows[key(values)] = row
            if row["status"] in FINAL_STATUSES:
                writer.writerow(row)
                f.flush()
            bar.update(row)

        # Each point's arch, once; a combination the arch rejects is a row.
        runnable: dict[tuple, dict] = {}
        for values in todo:
            try:
                runnable[values] = space.point_arch(base, axes, values).to_dict()
            except ArchError as e:
                record(values, {**dict.fromkeys(METRICS, ""), "status": "invalid",
                                "error": str(e)})
        startup = 0.0
        if runnable:
            startup = _run_on_ray(job, runnable, workers, address, record)

    ordered = [rows[key(v)] for v in all_points]
    _rewrite_in_point_order(csv_path, fields, ordered)
    from .plots import write_plots
    plots, html = write_plots(ordered, fields, job.name, base.name, directory)
    return SweepResult(ordered, fields, directory, csv_path, plots, html,
                       ran=len(todo), seconds=time.monotonic() - start,
                       startup_s=startup)


def _rewrite_in_point_order(csv_path: Path, fields: list[str], rows: list[dict]) -> None:
    """The CSV again, its rows in point order rather than the order the
    points finished in (atomically: a reader sees the old file or the new)."""
    tmp = csv_path.with_name(csv_path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields + list(METRICS))
        writer.writeheader()
        writer.writerows(r for r in rows if r["status"] in FINAL_STATUSES)
    os.replace(tmp, csv_path)


def _run_on_ray(job, runnable, workers, address, record) -> float:
    """Runs the points (values -> arch description); returns the seconds it
    took to start or join Ray."""
    ray = _ray()
    start = time.monotonic()
    address = address or os.environ.get("RAY_ADDRESS") or None
    started_here = not ray.is_initialized()
    if started_here:
        init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                "configure_logging": False}
        if address is None and workers is not None:
            init["num_cpus"] = workers
        ray.init(address=address, **init)
    startup = time.monotonic() - start
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(evaluate)
        job_ref = ray.put(job)
        limit = workers or max(1, int(ray.available_resources().get("CPU", 1)))
        pending: dict = {}
        queue = list(runnable.items())
        while queue or pending:
            while queue and len(pending) < limit:
                values, desc = queue.pop(0)
                pending[task.remote(job_ref, desc)] = values
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                values = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except Exception as e:   # the task died, not the point
                    row = {**dict.fromkeys(METRICS, ""), "status": "error",
                           "error": " ".join(f"{type(e).__name__}: {e}".split())[:500]}
                record(values, row)
    finally:
        if started_here:
            ray.shutdown()
    return startup
