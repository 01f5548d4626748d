"""One design point: compile the model for the point's arch, simulate it,
check it, and return its row. This runs as a Ray task, in a worker process:
everything it needs travels in a :class:`Job` (the imported model, the
inputs, the reference outputs, the options), so a worker imports nothing
from the user's script and runs no framework."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..frontend.model import ImportedModel

# What a finished point's row says, beside the swept fields.
METRICS = ("cycles", "energy_uj", "mac_utilization", "dram_bytes",
           "sram_high_water_bytes", "sram_total_bytes", "compile_s", "simulate_s",
           "check", "status", "error")

# A point's status: it ran ("ok"); its arch is invalid ("invalid"); its
# compile or simulation failed ("failed"). These are deterministic, so a
# rerun keeps them. "error": the task itself died (a worker lost, out of
# memory): a rerun tries it again.
FINAL_STATUSES = ("ok", "invalid", "failed")


@dataclass
class Job:
    """What every point of one sweep shares."""

    name: str
    imported: ImportedModel
    inputs: list[np.ndarray]
    reference: list[np.ndarray] | None
    against: str
    options: dict[str, Any] = field(default_factory=dict)

    def __getstate__(self):
        # The imported model's weights may be a read-only mapping proxy,
        # which pickle refuses: ship a plain dict.
        state = dict(self.__dict__)
        m = self.imported
        state["imported"] = (m.mlir, dict(m.weights), m.signature)
        return state

    def __setstate__(self, state):
        mlir, weights, signature = state["imported"]
        state["imported"] = ImportedModel(mlir, weights, signature)
        self.__dict__.update(state)


def evaluate(job: Job, arch_desc: dict[str, Any]) -> dict[str, Any]:
    """The row of the point whose arch is ``arch_desc`` (a description:
    ``Arch.to_dict()``'s form). Never raises for a point that fails: its
    status and error say why."""
    from ..arch import Arch
    from ..driver import api
    from ..driver.options import Options
    from ..driver.source import Source
    from ..errors import TesselError
    from ..runtime.footprint import sram_high_water

    row: dict[str, Any] = dict.fromkeys(METRICS, "")
    arch = Arch.from_dict(arch_desc)
    row["sram_total_bytes"] = arch.num_tiles * arch.tile.sram.bytes
    reference = job.reference
    src = Source(job.name, lambda: job.imported, job.inputs,
                 None if reference is None else (lambda _inputs: reference), job.against)
    try:
        opts = Options.make(arch=arch, name=job.name, trace=False,
                            check=reference is not None, **job.options)
        compiled = api.compile_source(src, opts)
        result = api.simulate_compiled(compiled)
    except (TesselError, ValueError) as e:   # a stage's error, an option's
        row.update(status="failed", error=_one_line(str(e)))
        return row
    except Exception as e:  # a bug: keep the sweep going, keep the trace
        row.update(status="failed",
                   error=_one_line(f"{type(e).__name__}: {e} "
                                   f"({traceback.format_exc(limit=3)})"))
        return row
    # The driver's stage times: the compile is every stage before the
    # simulation (the import is the job's, done once).
    stages = result.timings
    row.update(
        compile_s=round(sum(t for s, t in stages.items()
                            if s not in ("import", "simulate", "check")), 3),
        simulate_s=round(stages["simulate"], 3),
        cycles=result.cycles,
        energy_uj=round(result.energy["total"] * 1e6, 6),
        mac_utilization=round(result.mac_utilization, 6),
        dram_bytes=result.bytes["dram"],
        sram_high_water_bytes=max(sram_high_water(compiled.program).values(), default=0),
        check="" if result.check is None else
        ("pass" if result.check.passed else "FAIL"),
        status="ok")
    return row


def _one_line(text: str) -> str:
    return " ".join(text.split())
