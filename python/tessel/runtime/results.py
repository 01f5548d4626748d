"""What a simulation returns: the outputs, the cycles and the statistics per
tile and per source op (tag), the trace; and the errors a run raises. The
simulator (``simulator.py``) fills them; the driver, the reports and the
emulators read them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import TesselError

# What a tile waits on when it stalls (TileStats.stalls); docs/simulator.md.
STALL_CAUSES = ("dram", "noc", "dma", "tile")


class SimulationError(TesselError, RuntimeError):
    """The program did something docs/isa.md forbids while running (a ``dma``
    on a pending token slot, a missing input ...). ``result`` holds the
    statistics up to that point, when there are any."""

    def __init__(self, message: str, result: "SimulationResult | None" = None):
        super().__init__(message)
        self.result = result


class DeadlockError(SimulationError):
    """No tile can progress and nothing is in flight. ``waiting`` lists, per
    blocked tile, what it waits on; the message is the readable report."""

    def __init__(self, message: str, waiting: list[dict],
                 result: "SimulationResult | None" = None):
        super().__init__(message, result)
        self.waiting = waiting


@dataclass
class TileStats:
    """Cycles of one tile. ``busy = mac + vector + control``; ``stalls`` by
    cause (``dram``, ``noc``, ``dma``: waiting on a token whose transfer is of
    that kind; ``tile``: waiting on a semaphore, i.e. on another tile);
    ``idle`` is the rest of the program's cycles (before the end, after the
    tile's last instruction)."""

    busy: float = 0
    mac: float = 0
    vector: float = 0
    control: float = 0
    stalls: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STALL_CAUSES, 0))
    idle: float = 0
    finished_at: float = 0
    instructions: int = 0
    macs: int = 0
    mac_peak_cycles: float = 0          # sum of MACs / macs_per_cycle
    # Joules by part (energy.PARTS, and "total"): the dynamic energy of the
    # tile's instructions (a transfer's, all of it, to the tile that issues
    # it) and its static power over the run.
    energy: dict[str, float] = field(default_factory=dict)

    def mac_utilization(self, cycles: float) -> float:
        return self.mac_peak_cycles / cycles if cycles else 0.0


@dataclass
class TagStats:
    """Per source op (tag): tile-cycles busy and stalled in its instructions,
    MACs, bytes its transfers moved, and the dynamic energy of its
    instructions in joules (static power belongs to the run, not an op)."""

    name: str
    instructions: int = 0
    busy: float = 0
    stall: float = 0
    macs: int = 0
    dram_bytes: int = 0
    noc_bytes: int = 0
    first: float = math.inf
    last: float = 0.0
    energy: float = 0.0


@dataclass
class SimulationResult:
    outputs: dict[str, np.ndarray]
    cycles: int
    seconds: float
    end_time: float
    instructions: int
    tiles: dict[tuple[int, int], TileStats]
    tags: dict[str, TagStats]
    bytes: dict[str, int]
    mac_utilization: float
    events: int
    trace_events: list[dict] | None = None
    # Joules by part (mac, sram, noc, dram, static) and their total
    # (runtime/energy.py, docs/simulator.md).
    energy: dict[str, float] = field(default_factory=dict)

    def save_trace(self, path: str | Path) -> Path:
        """Write the Chrome/Perfetto JSON trace (needs ``trace=True``)."""
        if self.trace_events is None:
            raise ValueError("no trace was recorded: run simulate(..., trace=True)")
        path = Path(path)
        path.write_text(json.dumps({"traceEvents": self.trace_events,
                                    "displayTimeUnit": "ns"}))
        return path

    def summary(self) -> str:
        lines = [f"{self.cycles} cycles ({self.seconds * 1e6:.3f} us), "
                 f"{self.instructions} instructions, MAC utilization "
                 f"{100 * self.mac_utilization:.1f}%"]
        lines.append("bytes: " + ", ".join(f"{k} {v}" for k, v in self.bytes.items()))
        if self.energy:
            lines.append(f"energy: {self.energy['total'] * 1e6:.3f} uJ ("
                         + ", ".join(f"{k} {v * 1e6:.3f}" for k, v in self.energy.items()
                                     if k != "total") + ")")
        lines.append("tile   busy     mac      vector   control  "
                     + "  ".join(f"{c:<8}" for c in STALL_CAUSES) + "  idle")
        for (r, c), s in sorted(self.tiles.items()):
            lines.append(f"({r},{c})  {s.busy:<8.0f} {s.mac:<8.0f} {s.vector:<8.0f} "
                         f"{s.control:<8.0f} "
                         + "  ".join(f"{s.stalls[k]:<8.0f}" for k in STALL_CAUSES)
                         + f"  {s.idle:.0f}")
        if self.tags:
            lines.append("tag              instrs   busy     stall    MACs")
            for name, t in self.tags.items():
                lines.append(f"{name:<16} {t.instructions:<8} {t.busy:<8.0f} "
                             f"{t.stall:<8.0f} {t.macs}")
        return "\n".join(lines)
