"""What ``compile_and_simulate`` returns: the simulator's result with the
program, the check against the reference, the per-stage times and the
report."""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..runtime import results
from ..runtime.program import Program
from .check import Check

RUN_DIR = "run"            # beside a saved program: what a simulation produced
REPORT_FILE = "report.json"
OUTPUTS_FILE = "outputs.npz"
TRACE_FILE = "trace.json"


@dataclass
class SimulationResult(results.SimulationResult):
    """The simulator's result (``outputs``, ``cycles``, ``seconds``, per-tile
    and per-tag statistics, ``save_trace``) plus:

    - ``program``: what ran; ``name``: the model's name;
    - ``check``: the comparison with the reference (None when not checked);
    - ``timings``: seconds per stage (import, legalize, precompute, map,
      lower, emit, simulate, check);
    - ``utilization``: MAC utilization over the whole grid;
    - ``report``: the per-layer and per-tile tables (``tessel.report``).
    """

    program: Program | None = None
    name: str = "model"
    check: Check | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, raw: results.SimulationResult, **extra) -> "SimulationResult":
        own = {f.name: getattr(raw, f.name)
               for f in dataclasses.fields(results.SimulationResult)}
        return cls(**own, **extra)

    @property
    def utilization(self) -> float:
        return self.mac_utilization

    @functools.cached_property
    def report(self):
        from ..report import Report
        return Report.build(self.program, self, name=self.name, check=self.check,
                            timings=self.timings)

    def save(self, directory) -> Path:
        """Writes the program to ``directory`` and, in its ``run/``, the
        report's data, the outputs and the trace (when recorded), which
        ``tessel report DIR`` reads."""
        root = self.program.save(directory)
        run = root / RUN_DIR
        run.mkdir(exist_ok=True)
        (run / REPORT_FILE).write_text(json.dumps(self.report.to_dict(), indent=1))
        np.savez(run / OUTPUTS_FILE, **self.outputs)
        if self.trace_events is not None:
            self.save_trace(run / TRACE_FILE)
        return root
