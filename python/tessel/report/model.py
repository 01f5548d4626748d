"""The report's data: per layer (one source line of the model, the
program's tags) and per tile, built from a program and its simulation, and
stored as JSON beside a saved program so ``tessel report`` needs no rerun."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..arch.schema import FIELDS as ARCH_FIELDS
from ..errors import TesselError

FORMAT = "tessel-report"
VERSION = 1


class ReportError(TesselError, ValueError):
    """A report's data (``run/report.json``) that this Tessel did not write:
    the message names the file, the field and the fix."""


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
    # Joules, its instructions' dynamic energy (None in a report written
    # before energy was modelled).
    energy: float | None = None

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
    # Joules by part and "total" (empty in a report written before energy
    # was modelled).
    energy: dict[str, float] = field(default_factory=dict)


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
    # Joules by part (mac, sram, noc, dram, static) and "total"; empty in a
    # report written before energy was modelled.
    energy: dict[str, float] = field(default_factory=dict)

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
                macs=s.macs, dram_bytes=s.dram_bytes, noc_bytes=s.noc_bytes,
                energy=s.energy))
        if all(math.isfinite(s.first) for s in sim.tags.values()):
            order = {n: s.first for n, s in sim.tags.items()}
            layers.sort(key=lambda l: order[l.name])
        tiles = [Tile(r, c, s.busy, s.mac, s.vector, s.control, dict(s.stalls), s.idle,
                      s.instructions, s.macs, s.mac_utilization(sim.cycles),
                      dict(s.energy))
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
            timings=dict(timings or {}), energy=dict(sim.energy))

    # ---- JSON --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"], d["version"] = FORMAT, VERSION
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "report",
                  fix: str = "rerun `tessel simulate` to write it again") -> "Report":
        """The report ``d`` holds (``to_dict``'s form), every field checked
        for what the tables and plots read; ReportError names the first
        one that is wrong, with ``where`` (the file) and ``fix``."""
        def fail(problem: str) -> ReportError:
            return ReportError(f"{where}: {problem}; {fix}")

        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise fail(f"not a Tessel report (field 'format' should be {FORMAT!r})")
        if d.get("version") != VERSION:
            raise fail(f"report version {d.get('version')!r}, this Tessel reads {VERSION}")
        _Fields(d, "", fail).check(_REPORT)
        arch = d["arch"]
        rows, cols = arch["rows"], arch["cols"]
        for i, t in enumerate(d["tiles"]):
            if not (0 <= t["row"] < rows and 0 <= t["col"] < cols):
                raise fail(f"field 'tiles[{i}]' is tile ({t['row']}, {t['col']}), "
                           f"outside the {rows}x{cols} grid of field 'arch'")
        layers = [Layer(**{**_known(Layer, l), "tiles": [tuple(t) for t in l["tiles"]]})
                  for l in d["layers"]]
        tiles = [Tile(**_known(Tile, t)) for t in d["tiles"]]
        return cls(**{k: d[k] for k in ("name", "arch", "cycles", "seconds",
                                        "instructions", "mac_utilization", "bytes")},
                   layers=layers, tiles=tiles, check=d.get("check"),
                   timings=d.get("timings") or {}, trace=d.get("trace"),
                   energy=d.get("energy") or {})

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


# ---- what from_dict checks -----------------------------------------------
#
# A field's kind, as the message says it; "?" after it: may be null or left
# out. Nested objects are dicts of the same form, lists of them one-item
# lists.

def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _integer(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _positive(v) -> bool:
    return _number(v) and math.isfinite(v) and v > 0


# The arch schema's bound on a grid's rows and columns.
_GRID_MAX = next(f.max for f in ARCH_FIELDS if f.path == "grid.rows")
_GRID = f"an integer from 1 to {_GRID_MAX}"


def _coordinates(v) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_integer(x) for x in v)


# An object whose entries are numbers, each checked (and named) as one.
_NUMBERS = "an object of numbers"
# Energy by part: numbers, and their "total" where there are any (the
# tables print it).
_ENERGY = "an object of numbers with a 'total'"

_KINDS = {"a string": lambda v: isinstance(v, str), "a number": _number,
          "an integer": _integer, "a boolean": lambda v: isinstance(v, bool),
          "a number above 0": _positive,
          _GRID: lambda v: _integer(v) and 1 <= v <= _GRID_MAX,
          "a [row, col] pair": _coordinates, _NUMBERS: lambda v: isinstance(v, dict),
          _ENERGY: lambda v: isinstance(v, dict)}

_REPORT = {
    "name": "a string",
    "arch": {"name": "a string", "rows": _GRID, "cols": _GRID,
             "clock_mhz": "a number above 0", "macs_per_tile_cycle": "a number",
             "dram_bytes_per_cycle": "a number above 0"},
    "cycles": "a number", "seconds": "a number", "instructions": "a number",
    "mac_utilization": "a number", "bytes": "an object of numbers",
    "layers": [{"name": "a string", "op": "a string", "tiles": ["a [row, col] pair"],
                "instructions": "a number", "busy": "a number", "stall": "a number",
                "span": "a number?", "macs": "a number", "dram_bytes": "a number",
                "noc_bytes": "a number", "energy": "a number?"}],
    "tiles": [{"row": "an integer", "col": "an integer", "busy": "a number",
               "mac": "a number", "vector": "a number", "control": "a number",
               "stalls": "an object of numbers", "idle": "a number",
               "instructions": "a number", "macs": "a number",
               "mac_utilization": "a number", "energy": _ENERGY + "?"}],
    "check?": {"reference": "a string", "rtol": "a number", "atol": "a number",
               "scale_rtol": "a number?", "passed": "a boolean",
               "max_abs_error": "a number", "max_rel_error": "a number",
               "max_scaled_error": "a number?"},
    "timings": "an object of numbers?",
    "trace": "a string?",
    "energy": _ENERGY + "?",
}


class _Fields:
    """Checks one object of the report against its part of ``_REPORT``."""

    def __init__(self, obj, path: str, fail):
        self.obj, self.path, self.fail = obj, path, fail

    def check(self, spec: dict) -> None:
        for key, kind in spec.items():
            optional = key.endswith("?") or (isinstance(kind, str) and kind.endswith("?"))
            key = key.rstrip("?")
            self.value(self.obj.get(key), f"{self.path}{key}", kind, optional,
                       key in self.obj)

    def value(self, v, path: str, kind, optional: bool, present: bool = True) -> None:
        if v is None and optional:
            return
        if not present:
            raise self.fail(f"field '{path}' is missing")
        if isinstance(kind, dict):
            if not isinstance(v, dict):
                raise self.fail(f"field '{path}' is {_shown(v)}, not an object")
            _Fields(v, f"{path}.", self.fail).check(kind)
        elif isinstance(kind, list):
            if not isinstance(v, list):
                raise self.fail(f"field '{path}' is {_shown(v)}, not a list")
            for i, item in enumerate(v):
                self.value(item, f"{path}[{i}]", kind[0], False)
        elif kind.rstrip("?") in (_NUMBERS, _ENERGY) and isinstance(v, dict):
            for key, item in v.items():
                self.value(item, f"{path}.{key}", "a number", False)
            if kind.rstrip("?") == _ENERGY and v and "total" not in v:
                raise self.fail(f"field '{path}' has no 'total'")
        elif not _KINDS[kind.rstrip("?")](v):
            raise self.fail(f"field '{path}' is {_shown(v)}, not {kind.rstrip('?')}")


def _shown(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _known(kind, d: dict) -> dict:
    """The entries of ``d`` that are fields of the dataclass ``kind``."""
    names = {f.name for f in fields(kind)}
    return {k: v for k, v in d.items() if k in names}
