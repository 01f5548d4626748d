"""Architecture descriptions as Python objects.

An :class:`Arch` is built only from a validated description, so every field
of every ``Arch`` lies in the range :mod:`tessel.arch.schema` allows. The same
checks, with the same messages, run in C++ when a ``#tessel.arch`` attribute is
parsed or built, because both are derived from the schema.

Nothing here imports MLIR (the executors use these objects); YAML support
loads PyYAML only when asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ..errors import TesselError
from . import schema

PRESETS_DIR = Path(__file__).with_name("presets")
DEFAULT_ARCH = "tessel-4x4"

_NAME = re.compile(r"[A-Za-z0-9._-]+")


class ArchError(TesselError, ValueError):
    """An invalid architecture description; ``field`` is the dotted path."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


# --------------------------------------------------------------------------
# Validation of a plain description (nested dicts, as YAML gives them).
# --------------------------------------------------------------------------

def _lookup(desc: Mapping[str, Any], path: str) -> Any:
    node: Any = desc
    for part in path.split("."):
        node = node[part]
    return node


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(path: str, value: Any, field: schema.Field) -> None:
    if not _is_int(value):
        raise ArchError(f"arch field '{path}' must be an integer, got {value!r}",
                        path)
    pow2_ok = not field.power_of_two or (value & (value - 1)) == 0
    if not field.min <= value <= field.max or not pow2_ok:
        raise ArchError(f"arch field '{path}' = {value} is out of range: must be "
                        f"in {schema.range_text(field)}", path)


def _check_field(field: schema.Field, value: Any) -> None:
    path = field.path
    choices = ", ".join(field.choices)
    if field.kind == "int":
        _check_int(path, value, field)
    elif field.kind == "string":
        if not isinstance(value, str):
            raise ArchError(f"arch field '{path}' must be a string, got {value!r}",
                            path)
        if not _NAME.fullmatch(value):
            raise ArchError(f"arch field '{path}' = '{value}' is not allowed: must "
                            "be non-empty and use only letters, digits, '.', '_' "
                            "and '-'", path)
    elif field.kind == "enum":
        if not isinstance(value, str):
            raise ArchError(f"arch field '{path}' must be a string, got {value!r}",
                            path)
        if value not in field.choices:
            raise ArchError(f"arch field '{path}' = '{value}' is not allowed: must "
                            f"be one of {choices}", path)
    elif field.kind == "int_map":
        if not isinstance(value, Mapping):
            raise ArchError(f"arch field '{path}' must be a mapping, got {value!r}",
                            path)
        if not value:
            raise ArchError(f"arch field '{path}' must not be empty", path)
        for key in sorted(value):
            if key not in field.choices:
                raise ArchError(f"arch field '{path}' has key '{key}', which is "
                                f"not allowed: keys must be among {choices}", path)
        if field.all_keys:
            for key in field.choices:
                if key not in value:
                    raise ArchError(f"arch field '{path}' lacks key '{key}': every "
                                    f"one of {choices} is required", path)
        for key in sorted(value):
            _check_int(f"{path}.{key}", value[key], field)
    elif field.kind == "enum_list":
        if not isinstance(value, (list, tuple)):
            raise ArchError(f"arch field '{path}' must be a list, got {value!r}",
                            path)
        if not value:
            raise ArchError(f"arch field '{path}' must not be empty", path)
        seen = set()
        for item in value:
            if item not in field.choices:
                raise ArchError(f"arch field '{path}' has item '{item}', which is "
                                f"not allowed: items must be among {choices}", path)
            if item in seen:
                raise ArchError(f"arch field '{path}' has item '{item}' twice", path)
            seen.add(item)
    elif field.kind == "coords":
        if not isinstance(value, (list, tuple)):
            raise ArchError(f"arch field '{path}' must be a list, got {value!r}",
                            path)
        for i, entry in enumerate(value):
            if (not isinstance(entry, (list, tuple)) or len(entry) != 2
                    or not all(_is_int(x) for x in entry)):
                raise ArchError(f"arch field '{path}' entry {i} must be "
                                "[row, col]", path)
    else:  # pragma: no cover - the schema names only the kinds above
        raise AssertionError(field.kind)


def _check_no_unknown_fields(desc: Mapping[str, Any]) -> None:
    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for key in sorted(node):
            path = f"{prefix}{key}"
            if path in schema.BY_PATH:
                continue
            if path in schema.SECTIONS:
                walk(node[key], path + ".")
                continue
            section = prefix[:-1] or "the description"
            known = sorted(p[len(prefix):].split(".")[0]
                           for p in (*schema.BY_PATH, *schema.SECTIONS)
                           if p.startswith(prefix))
            raise ArchError(f"arch field '{path}' is not part of the schema: "
                            f"{section} has {', '.join(dict.fromkeys(known))}",
                            path)
    walk(desc, "")


def _check_dram_attach(desc: Mapping[str, Any]) -> None:
    attach = desc["dram"]["attach"]
    channels = desc["dram"]["channels"]
    rows, cols = desc["grid"]["rows"], desc["grid"]["cols"]
    if len(attach) != channels:
        raise ArchError(f"arch field 'dram.attach' has {len(attach)} entries but "
                        f"dram.channels = {channels}: give one [row, col] per "
                        "channel", "dram.attach")
    for i, (row, col) in enumerate(attach):
        where = f"arch field 'dram.attach' entry {i} = [{row}, {col}]"
        if not (0 <= row < rows and 0 <= col < cols):
            raise ArchError(f"{where} lies outside the {rows}x{cols} grid",
                            "dram.attach")
        if row not in (0, rows - 1) and col not in (0, cols - 1):
            raise ArchError(f"{where} is not on the edge of the {rows}x{cols} "
                            f"grid: row must be 0 or {rows - 1}, or col 0 or "
                            f"{cols - 1}", "dram.attach")


def _value(desc: Mapping[str, Any], path: str) -> Any:
    """A field of a checked description, its default where left out."""
    try:
        return _lookup(desc, path)
    except KeyError:
        return schema.BY_PATH[path].default


def _check_weight_buffers(desc: Mapping[str, Any]) -> None:
    buffers = _value(desc, "tile.mac.weight_buffers")
    dataflow = desc["tile"]["mac"]["dataflow"]
    if buffers != 1 and dataflow != "weight_stationary":
        raise ArchError(f"arch field 'tile.mac.weight_buffers' = {buffers} needs "
                        "tile.mac.dataflow = weight_stationary: an "
                        f"{dataflow} array holds no weight block, give 1",
                        "tile.mac.weight_buffers")


def validate(desc: Any) -> None:
    """Raises :class:`ArchError` for the first rule ``desc`` breaks.

    The order of the checks and the messages are those of the C++ verifier of
    ``#tessel.arch``.
    """
    if not isinstance(desc, Mapping):
        raise ArchError("an architecture description must be a mapping of "
                        f"fields, got {type(desc).__name__}")
    for section in schema.SECTIONS:
        try:
            node = _lookup(desc, section)
        except (KeyError, TypeError):
            if section in schema.OPTIONAL_SECTIONS:
                continue
            raise ArchError(f"arch field '{section}' is missing", section) from None
        if not isinstance(node, Mapping):
            raise ArchError(f"arch field '{section}' must be a mapping of fields",
                            section)
    for field in schema.FIELDS:
        try:
            value = _lookup(desc, field.path)
        except KeyError:
            if field.default is not None:
                continue
            raise ArchError(f"arch field '{field.path}' is missing",
                            field.path) from None
        _check_field(field, value)
    _check_no_unknown_fields(desc)
    _check_dram_attach(desc)
    _check_weight_buffers(desc)


# --------------------------------------------------------------------------
# The objects.
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Grid:
    rows: int
    cols: int


@dataclass(frozen=True)
class MacArray:
    rows: int
    cols: int
    dataflow: str
    macs_per_cycle: Mapping[str, int]
    weight_buffers: int = 1

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(self.macs_per_cycle)


@dataclass(frozen=True)
class VectorUnit:
    lanes: int
    dtypes: tuple[str, ...]
    latency: Mapping[str, int]


@dataclass(frozen=True)
class Sram:
    bytes: int
    banks: int
    bytes_per_cycle: int
    alignment: int


@dataclass(frozen=True)
class Dma:
    channels: int
    bytes_per_cycle: int
    setup_cycles: int


@dataclass(frozen=True)
class Tile:
    mac: MacArray
    vector: VectorUnit
    sram: Sram
    dma: Dma


@dataclass(frozen=True)
class Noc:
    topology: str
    routing: str
    link_bytes_per_cycle: int
    hop_cycles: int


@dataclass(frozen=True)
class Dram:
    channels: int
    bytes_per_cycle: int
    latency_cycles: int
    capacity_bytes: int
    attach: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Energy:
    """What the simulator charges per event (docs/arch.md, *Energy*): fJ per
    MAC by input dtype, per SRAM byte, per byte per NoC link, per DRAM byte,
    and each tile's static power in uW."""

    mac_fj: Mapping[str, int]
    sram_fj_per_byte: int
    noc_fj_per_byte_hop: int
    dram_fj_per_byte: int
    tile_static_uw: int

    @classmethod
    def from_desc(cls, desc: Mapping[str, Any]) -> "Energy":
        return cls(
            mac_fj=MappingProxyType({d: _value(desc, f"energy.mac_fj.{d}")
                                     for d in schema.DTYPES}),
            **{name: _value(desc, f"energy.{name}")
               for name in ("sram_fj_per_byte", "noc_fj_per_byte_hop",
                            "dram_fj_per_byte", "tile_static_uw")})


@dataclass(frozen=True)
class Arch:
    """A validated architecture description. Build with :meth:`from_dict`,
    :meth:`from_yaml` or :func:`load`; :meth:`to_dict` gives the plain form
    that YAML, the ``#tessel.arch`` attribute and program manifests hold."""

    name: str
    clock_mhz: int
    grid: Grid
    tile: Tile
    noc: Noc
    dram: Dram
    energy: Energy

    @classmethod
    def from_dict(cls, desc: Mapping[str, Any], *, source: str | None = None) -> "Arch":
        try:
            validate(desc)
        except ArchError as e:
            if source is None:
                raise
            raise ArchError(f"{source}: {e}", e.field) from None
        t, d = desc["tile"], desc["dram"]
        return cls(
            name=desc["name"],
            clock_mhz=desc["clock_mhz"],
            grid=Grid(**desc["grid"]),
            tile=Tile(
                mac=MacArray(
                    rows=t["mac"]["rows"], cols=t["mac"]["cols"],
                    dataflow=t["mac"]["dataflow"],
                    macs_per_cycle=_frozen_map(t["mac"]["macs_per_cycle"],
                                               schema.DTYPES),
                    weight_buffers=_value(desc, "tile.mac.weight_buffers")),
                vector=VectorUnit(
                    lanes=t["vector"]["lanes"],
                    dtypes=tuple(t["vector"]["dtypes"]),
                    latency=_frozen_map(t["vector"]["latency"], schema.VECTOR_OPS)),
                sram=Sram(**t["sram"]),
                dma=Dma(**t["dma"]),
            ),
            noc=Noc(**desc["noc"]),
            dram=Dram(
                channels=d["channels"], bytes_per_cycle=d["bytes_per_cycle"],
                latency_cycles=d["latency_cycles"],
                capacity_bytes=d["capacity_bytes"],
                attach=tuple((r, c) for r, c in d["attach"])),
            energy=Energy.from_desc(desc),
        )

    def to_dict(self) -> dict[str, Any]:
        """The plain description, fields in schema order (deterministic)."""
        flat = {
            "name": self.name,
            "clock_mhz": self.clock_mhz,
            "grid.rows": self.grid.rows,
            "grid.cols": self.grid.cols,
            "tile.mac.rows": self.tile.mac.rows,
            "tile.mac.cols": self.tile.mac.cols,
            "tile.mac.dataflow": self.tile.mac.dataflow,
            "tile.mac.macs_per_cycle": dict(self.tile.mac.macs_per_cycle),
            "tile.mac.weight_buffers": self.tile.mac.weight_buffers,
            "tile.vector.lanes": self.tile.vector.lanes,
            "tile.vector.dtypes": list(self.tile.vector.dtypes),
            "tile.vector.latency": dict(self.tile.vector.latency),
            "tile.sram.bytes": self.tile.sram.bytes,
            "tile.sram.banks": self.tile.sram.banks,
            "tile.sram.bytes_per_cycle": self.tile.sram.bytes_per_cycle,
            "tile.sram.alignment": self.tile.sram.alignment,
            "tile.dma.channels": self.tile.dma.channels,
            "tile.dma.bytes_per_cycle": self.tile.dma.bytes_per_cycle,
            "tile.dma.setup_cycles": self.tile.dma.setup_cycles,
            "noc.topology": self.noc.topology,
            "noc.routing": self.noc.routing,
            "noc.link_bytes_per_cycle": self.noc.link_bytes_per_cycle,
            "noc.hop_cycles": self.noc.hop_cycles,
            "dram.channels": self.dram.channels,
            "dram.bytes_per_cycle": self.dram.bytes_per_cycle,
            "dram.latency_cycles": self.dram.latency_cycles,
            "dram.capacity_bytes": self.dram.capacity_bytes,
            "dram.attach": [list(p) for p in self.dram.attach],
            **{f"energy.mac_fj.{d}": self.energy.mac_fj[d] for d in schema.DTYPES},
            "energy.sram_fj_per_byte": self.energy.sram_fj_per_byte,
            "energy.noc_fj_per_byte_hop": self.energy.noc_fj_per_byte_hop,
            "energy.dram_fj_per_byte": self.energy.dram_fj_per_byte,
            "energy.tile_static_uw": self.energy.tile_static_uw,
        }
        assert list(flat) == [f.path for f in schema.FIELDS], "to_dict lags the schema"
        nested: dict[str, Any] = {}
        for path, value in flat.items():
            *sections, leaf = path.split(".")
            node = nested
            for s in sections:
                node = node.setdefault(s, {})
            node[leaf] = value
        return nested

    # ---- YAML -------------------------------------------------------------

    @classmethod
    def from_yaml(cls, text: str, *, source: str = "<yaml>") -> "Arch":
        import yaml

        try:
            desc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ArchError(f"{source}: not valid YAML: {e}") from e
        return cls.from_dict(desc, source=source)

    def to_yaml(self) -> str:
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False,
                              default_flow_style=None)

    # ---- MLIR (loads the compiled bindings) --------------------------------

    def to_attribute(self, context=None):
        """This description as a ``#tessel.arch`` attribute."""
        from ..dialects.tessel import ArchAttr

        return ArchAttr.from_dict(self.to_dict(), context=context)

    @classmethod
    def from_attribute(cls, attr) -> "Arch":
        from ..dialects.tessel import ArchAttr

        return cls.from_dict(ArchAttr(attr).to_dict())

    # ---- Derived figures ----------------------------------------------------

    @property
    def num_tiles(self) -> int:
        return self.grid.rows * self.grid.cols

    @property
    def clock_hz(self) -> float:
        return self.clock_mhz * 1e6

    def peak_macs_per_cycle(self, dtype: str) -> int:
        """MACs per cycle of the whole chip for ``dtype`` (0 if unsupported)."""
        return self.num_tiles * self.tile.mac.macs_per_cycle.get(dtype, 0)

    @property
    def dram_bytes_per_cycle(self) -> int:
        return self.dram.channels * self.dram.bytes_per_cycle

    def nearest_dram_channels(self, row: int, col: int) -> tuple[int, ...]:
        """The DRAM channels attached nearest to tile (row, col) (Manhattan
        hops), in index order: a transfer on DMA channel ``c`` uses the
        ``c mod count``-th (docs/isa.md)."""
        hops = [abs(r - row) + abs(c - col) for r, c in self.dram.attach]
        nearest = min(hops)
        return tuple(i for i, h in enumerate(hops) if h == nearest)

    def split_channels(self, row: int, col: int) -> int:
        """How many DMA channels tile (row, col) spreads a large DRAM
        transfer over (tessel-split-transfers): one per DRAM channel it
        has to itself, nearest to it and to no other tile, at most its DMA
        channels; 1 (no split) where it has fewer than two."""
        own = self.nearest_dram_channels(row, col)
        for r in range(self.grid.rows):
            for c in range(self.grid.cols):
                if (r, c) != (row, col) and \
                        set(own) & set(self.nearest_dram_channels(r, c)):
                    return 1
        return max(1, min(len(own), self.tile.dma.channels))


def _frozen_map(values: Mapping[str, int], order: tuple[str, ...]) -> Mapping[str, int]:
    # Schema order, whatever order the YAML used: equal descriptions compare
    # and serialize equal.
    return MappingProxyType({k: values[k] for k in order if k in values})


# --------------------------------------------------------------------------
# Presets.
# --------------------------------------------------------------------------

def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))


def load(arch: "str | Path | Arch | None" = None) -> Arch:
    """An architecture by preset name, YAML path, or as given.

    ``None`` means the default, ``tessel-4x4``.
    """
    if isinstance(arch, Arch):
        return arch
    if arch is None:
        arch = DEFAULT_ARCH
    if isinstance(arch, str) and arch in preset_names():
        path = PRESETS_DIR / f"{arch}.yaml"
    else:
        path = Path(arch)
        if not path.is_file():
            raise ArchError(f"unknown architecture '{arch}': not a preset "
                            f"({', '.join(preset_names())}) and no such file")
    return Arch.from_yaml(path.read_text(), source=str(path))
