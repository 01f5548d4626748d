"""The report's data: per layer (one source line of the model, the
program's tags) and per tile, built from a program and its simulation, and
stored as JSON beside a saved program so ``tessel report`` needs no rerun."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

FORMAT = "tessel-report"
VERSION = 1


@dataclass
class Layer:
    """One tag: a source line of the model and the instructions compiled
    from it. ``span`` is wall-clock cycles from its first instruction's start
    to its last one's end (needs a traced simulation, else None); ``busy``
    and ``stall`` are tile-cycles summed over its tiles."""

    name: str
    op: str
    tiles: list[tuple[int, int]]
    instructions: int
    busy: float
    stall: float
    span: float | None
    macs: int
    dram_bytes: int
    noc_bytes: int

    @property
    def short_name(self) -> str:
        """``file.py:line`` of a tag that names a source location."""
        path, sep, rest = self.name.rpartition(".py:")
        if not sep:
            return self.name
        line = rest.split(":")[0]
        return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}.py:{line}"

    @property
    def cycles(self) -> float:
        """The span, or without a trace the tile-cycles spread over its
        tiles (a lower bound of the span)."""
        if self.span is not None:
            return self.span
        return (self.busy + self.stall) / max(1, len(self.tiles))

    @property
    def mapping(self) -> str:
        """The rectangle of tiles it ran on: ``(r,c) RxC`` and how many of
        them ran code."""
        if not self.tiles:
            return "-"
        rows = [r for r, _ in self.tiles]
        cols = [c for _, c in self.tiles]
        h, w = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        used = "" if h * w == len(self.tiles) else f" ({len(self.tiles)} used)"
        return f"({min(rows)},{min(cols)}) {h}x{w}{used}"

    def utilization(self, macs_per_tile_cycle: int) -> float:
        """MACs over what its tiles could do in its cycles."""
        peak = self.cycles * len(self.tiles) * macs_per_tile_cycle
        return self.macs / peak if peak else 0.0

    def intensity(self) -> float:
        """Operations (2 per MAC) per DRAM byte; inf when it reads none."""
        return 2 * self.macs / self.dram_bytes if self.dram_bytes else math.inf


@dataclass
class Tile:
    row: int
    col: int
    busy: float
    mac: float
    vector: float
    control: float
    stalls: dict[str, float]
    idle: float
    instructions: int
    macs: int
    mac_utilization: float


@dataclass
class Report:
    """Everything the tables, plots and the HTML page show. ``arch`` holds
    the few figures they need: name, rows, cols, clock_mhz,
    macs_per_tile_cycle (f32), dram_bytes_per_cycle."""

    name: str
    arch: dict[str, Any]
    cycles: int
    seconds: float
    instructions: int
    mac_utilization: float
    bytes: dict[str, int]
    layers: list[Layer]
    tiles: list[Tile]
    check: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    trace: str | None = None     # where the Perfetto trace was written

    @classmethod
    def build(cls, program, sim, *, name: str = "model", check=None,
              timings=None) -> "Report":
        """From a program and its simulator result (the runtime's or the
        driver's ``SimulationResult``)."""
        a = program.arch
        tag_of = {t.name: t for t in program.tags}
        tiles_of: dict[int, set] = {}
        for rc, instrs in program.decoded().items():
            for ins in instrs:
                if ins.tag is not None:
                    tiles_of.setdefault(ins.tag, set()).add(rc)
        layers = []
        for tag_name, s in sim.tags.items():
            tag = tag_of.get(tag_name)
            span = s.last - s.first if math.isfinite(s.first) else None
            layers.append(Layer(
                name=tag_name, op=tag.op if tag else "",
                tiles=sorted(tiles_of.get(tag.id, ())) if tag else [],
                instructions=s.instructions, busy=s.busy, stall=s.stall, span=span,
                macs=s.macs, dram_bytes=s.dram_bytes, noc_bytes=s.noc_bytes))
        if all(math.isfinite(s.first) for s in sim.tags.values()):
            order = {n: s.first for n, s in sim.tags.items()}
            layers.sort(key=lambda l: order[l.name])
        tiles = [Tile(r, c, s.busy, s.mac, s.vector, s.control, dict(s.stalls), s.idle,
                      s.instructions, s.macs, s.mac_utilization(sim.cycles))
                 for (r, c), s in sorted(sim.tiles.items())]
        return cls(
            name=name,
            arch={"name": a.name, "rows": a.grid.rows, "cols": a.grid.cols,
                  "clock_mhz": a.clock_mhz,
                  "macs_per_tile_cycle": a.tile.mac.macs_per_cycle.get("f32", 0),
                  "dram_bytes_per_cycle": a.dram_bytes_per_cycle},
            cycles=sim.cycles, seconds=sim.seconds, instructions=sim.instructions,
            mac_utilization=sim.mac_utilization, bytes=dict(sim.bytes),
            layers=layers, tiles=tiles,
            check=check.to_dict() if check is not None else None,
            timings=dict(timings or {}))

    # ---- JSON --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"], d["version"] = FORMAT, VERSION
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "report") -> "Report":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"{where}: not a Tessel report (field 'format' should be "
                             f"{FORMAT!r}); rerun `tessel simulate` to write it")
        if d.get("version") != VERSION:
            raise ValueError(f"{where}: report version {d.get('version')}, this Tessel "
                             f"reads {VERSION}; rerun `tessel simulate`")
        try:
            layers = [Layer(**{**l, "tiles": [tuple(t) for t in l["tiles"]]})
                      for l in d["layers"]]
            tiles = [Tile(**t) for t in d["tiles"]]
            fields = {k: d[k] for k in ("name", "arch", "cycles", "seconds",
                                        "instructions", "mac_utilization", "bytes")}
        except (KeyError, TypeError) as e:
            raise ValueError(f"{where}: malformed report ({type(e).__name__}: {e}); "
                             f"rerun `tessel simulate`") from None
        return cls(**fields, layers=layers, tiles=tiles, check=d.get("check"),
                   timings=d.get("timings") or {}, trace=d.get("trace"))

    # ---- text --------------------------------------------------------------

    def __str__(self) -> str:
        from .tables import summary
        return summary(self)

    def layer_table(self) -> str:
        from .tables import layer_table
        return layer_table(self)

    def tile_table(self) -> str:
        from .tables import tile_table
        return tile_table(self)
