"""The schema of an architecture description: every field, its kind and its
allowed values, stated once.

Three things are derived from this table, so they cannot drift apart:
- the Python validation in :mod:`tessel.arch.model`;
- the C++ verifier and typed accessors of ``#tessel.arch`` (the build runs
  ``python schema.py --emit-cpp DIR``, which writes ``ArchSchema.inc`` and
  ``ArchAccessors.h.inc``);
- the field table of ``docs/arch.md`` (``--emit-markdown``).

This module uses the standard library only: the build runs it as a script
before the package exists.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

# Element types the MAC array can support; the vector unit also computes on
# wider integers (ids and index arithmetic).
DTYPES = ("f32", "f16", "bf16", "i8")
VECTOR_DTYPES = DTYPES + ("i32", "i64")

# Operations of the vector unit, each with a latency in the description.
# Unary: neg, abs, exp, log, tanh, erf, sin, cos, sqrt, rsqrt, recip, cast.
# Binary: add, sub, mul, div, max, min, cmp. Ternary: select.
# Reductions over an axis: reduce_add, reduce_max.
VECTOR_OPS = (
    "add", "sub", "mul", "div", "max", "min", "cmp", "select",
    "neg", "abs", "exp", "log", "tanh", "erf", "sin", "cos", "sqrt", "rsqrt", "recip",
    "cast", "reduce_add", "reduce_max",
)

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40


@dataclass(frozen=True)
class Field:
    """One leaf of the description, addressed by its dotted path."""

    path: str
    kind: str  # int | string | enum | int_map | enum_list | coords
    doc: str
    unit: str = ""
    min: int = 0
    max: int = 0
    power_of_two: bool = False
    # enum: allowed values; int_map: allowed keys; enum_list: allowed items.
    choices: tuple[str, ...] = ()
    # int_map: every key of `choices` must be present.
    all_keys: bool = False
    # int: the value of a description that leaves the field out (None: the
    # field is required). Only fields added after descriptions were written
    # have one, and it is what those descriptions meant.
    default: int | None = None


FIELDS: tuple[Field, ...] = (
    Field("name", "string", "Name of the architecture (a preset's name, or "
          "the user's); letters, digits, '.', '_' and '-'."),
    Field("clock_mhz", "int", "Clock frequency of tiles, NoC and DMA.", "MHz",
          1, 100_000),
    Field("grid.rows", "int", "Tile rows of the mesh; row 0 is the north edge.",
          "tiles", 1, 1024),
    Field("grid.cols", "int", "Tile columns of the mesh; column 0 is the west "
          "edge.", "tiles", 1, 1024),
    Field("tile.mac.rows", "int", "Rows of the MAC array.", "MACs", 1, 1024),
    Field("tile.mac.cols", "int", "Columns of the MAC array.", "MACs", 1, 1024),
    Field("tile.mac.dataflow", "enum", "What stays in the array during a "
          "matmul block: the weights (K x N block resident, rows = K) or the "
          "outputs (M x N block resident).",
          choices=("weight_stationary", "output_stationary")),
    Field("tile.mac.macs_per_cycle", "int_map", "Peak multiply-accumulates per "
          "cycle for each input dtype the array supports (absent = "
          "unsupported). Accumulation is in f32 for float inputs, i32 for i8.",
          "MACs/cycle", 1, 1 << 20, choices=DTYPES),
    Field("tile.mac.weight_buffers", "int", "Weight blocks a weight-stationary "
          "array holds: with 2 the next block's weights shift in while the "
          "current block streams, so back-to-back matmul blocks pay one fill "
          "and one drain; 1 idles the array while each block loads. Must be 1 "
          "for an output-stationary array.", "blocks", 1, 2,
          default=1),
    Field("tile.vector.lanes", "int", "Elements the vector unit processes per "
          "cycle.", "lanes", 1, 4096),
    Field("tile.vector.dtypes", "enum_list", "Element types the vector unit "
          "supports.", choices=VECTOR_DTYPES),
    Field("tile.vector.latency", "int_map", "Pipeline latency of each vector "
          "operation; throughput is `lanes` elements per cycle.", "cycles",
          1, 1000, choices=VECTOR_OPS, all_keys=True),
    Field("tile.sram.bytes", "int", "SRAM capacity of one tile.", "bytes",
          4 * KiB, 1 * GiB),
    Field("tile.sram.banks", "int", "Independently accessible SRAM banks.",
          "banks", 1, 64),
    Field("tile.sram.bytes_per_cycle", "int", "SRAM port bandwidth shared by "
          "the MAC array, the vector unit and the DMA engine.", "bytes/cycle",
          1, 4096),
    Field("tile.sram.alignment", "int", "Alignment of every SRAM buffer "
          "address.", "bytes", 1, 4096, power_of_two=True),
    Field("tile.dma.channels", "int", "Concurrent transfers one tile's DMA "
          "engine runs.", "channels", 1, 16),
    Field("tile.dma.bytes_per_cycle", "int", "Bandwidth of one DMA channel.",
          "bytes/cycle", 1, 4096),
    Field("tile.dma.setup_cycles", "int", "Fixed cost of starting a "
          "transfer.", "cycles", 0, 100_000),
    Field("noc.topology", "enum", "Shape of the network-on-chip.",
          choices=("mesh",)),
    Field("noc.routing", "enum", "Route of a packet: `xy` goes along the row "
          "first, then along the column.", choices=("xy",)),
    Field("noc.link_bytes_per_cycle", "int", "Bandwidth of one directed link "
          "between neighbouring tiles.", "bytes/cycle", 1, 4096),
    Field("noc.hop_cycles", "int", "Latency added per link traversed.",
          "cycles", 0, 1000),
    Field("dram.channels", "int", "Independent DRAM channels.", "channels",
          1, 64),
    Field("dram.bytes_per_cycle", "int", "Bandwidth of one DRAM channel, in "
          "tile clock cycles.", "bytes/cycle", 1, 4096),
    Field("dram.latency_cycles", "int", "Latency of a DRAM access.", "cycles",
          0, 100_000),
    Field("dram.capacity_bytes", "int", "Total DRAM capacity.", "bytes",
          1 * MiB, 1 * TiB),
    Field("dram.attach", "coords", "For each channel, the edge tile "
          "[row, col] whose router it connects to; one entry per channel."),
    # The energy model (docs/arch.md, *Energy*): what the simulator charges
    # per event. The defaults are Horowitz's 45 nm figures (ISSCC 2014).
    *(Field(f"energy.mac_fj.{dtype}", "int", f"Energy of one {dtype} "
            "multiply-accumulate, the accumulation included (f32 for float "
            "inputs, i32 for i8).", "fJ", 0, 1_000_000_000, default=default)
      for dtype, default in zip(DTYPES, (4600, 2000, 2000, 300))),
    Field("energy.sram_fj_per_byte", "int", "Energy of one byte read from or "
          "written to a tile's SRAM (by the MAC array, the vector unit or the "
          "DMA engine).", "fJ/byte", 0, 1_000_000_000, default=2500),
    Field("energy.noc_fj_per_byte_hop", "int", "Energy of one byte crossing one "
          "NoC link (wire and router).", "fJ/byte/hop", 0, 1_000_000_000,
          default=2000),
    Field("energy.dram_fj_per_byte", "int", "Energy of one byte read from or "
          "written to DRAM (the access and the I/O).", "fJ/byte", 0,
          1_000_000_000, default=162_500),
    Field("energy.tile_static_uw", "int", "Static (leakage) power of one tile, "
          "drawn for the whole run whether the tile computes or not.", "uW",
          0, 1_000_000_000, default=50_000),
)

BY_PATH = {f.path: f for f in FIELDS}

# Sections: every non-leaf path, so an unknown key can be reported where it
# appears ("tile.sram" has no field "bytez").
def _section_paths() -> tuple[str, ...]:
    sections = set()
    for f in FIELDS:
        parts = f.path.split(".")
        for i in range(1, len(parts)):
            sections.add(".".join(parts[:i]))
    return tuple(sorted(sections))


SECTIONS = _section_paths()


def _optional_sections() -> tuple[str, ...]:
    """Sections whose every field has a default: a description may leave the
    whole section out (descriptions written before it existed do)."""
    return tuple(s for s in SECTIONS
                 if all(f.default is not None for f in FIELDS
                        if f.path.startswith(s + ".")))


OPTIONAL_SECTIONS = _optional_sections()


def range_text(field: Field) -> str:
    """The allowed values of an integer field, as messages state them."""
    text = f"[{field.min}, {field.max}]"
    return text + " and a power of two" if field.power_of_two else text


# --------------------------------------------------------------------------
# Code generation for the C++ attribute.
# --------------------------------------------------------------------------

def _camel(path: str) -> str:
    return "".join(p[:1].upper() + p[1:] for part in path.split(".")
                   for p in part.split("_"))


def emit_cpp_schema() -> str:
    kinds = {"int": "Int", "string": "String", "enum": "Enum",
             "int_map": "IntMap", "enum_list": "EnumList", "coords": "Coords"}
    lines = [
        "// Generated from python/tessel/arch/schema.py; do not edit.",
        "// One entry per leaf field of #tessel.arch.",
        "static const ArchFieldSpec kArchFields[] = {",
    ]
    for f in FIELDS:
        has_default = f.default is not None
        lines.append(
            f'    {{"{f.path}", ArchFieldKind::{kinds[f.kind]}, {f.min}LL, '
            f'{f.max}LL, {str(f.power_of_two).lower()}, '
            f'"{",".join(f.choices)}", {str(f.all_keys).lower()}, '
            f'{str(has_default).lower()}, {f.default or 0}LL}},')
    lines.append("};")
    lines.append("static const char *const kArchSections[] = {")
    lines += [f'    "{s}",' for s in SECTIONS]
    lines.append("};")
    lines.append("// Sections whose every field has a default: they may be left out.")
    lines.append("static const char *const kArchOptionalSections[] = {")
    lines += [f'    "{s}",' for s in OPTIONAL_SECTIONS]
    lines.append("};")
    return "\n".join(lines) + "\n"


def emit_cpp_accessors() -> str:
    lines = ["// Generated from python/tessel/arch/schema.py; do not edit.",
             "// Typed accessors of #tessel.arch, one per scalar field."]
    for f in FIELDS:
        name = "get" + _camel(f.path)
        if f.kind == "int":
            lines.append(f"/// {f.doc} ({f.unit})")
            lines.append(f'int64_t {name}() const {{ return getIntField("{f.path}"); }}')
        elif f.kind in ("enum", "string"):
            lines.append(f"/// {f.doc}")
            lines.append(f'::llvm::StringRef {name}() const {{ return getStringField("{f.path}"); }}')
    return "\n".join(lines) + "\n"


def emit_markdown() -> str:
    rows = ["| field | kind | allowed | unit | meaning |",
            "| --- | --- | --- | --- | --- |"]
    for f in FIELDS:
        if f.kind == "int":
            allowed = range_text(f)
        elif f.kind == "enum":
            allowed = " \\| ".join(f"`{c}`" for c in f.choices)
        elif f.kind == "int_map":
            keys = ", ".join(f"`{c}`" for c in f.choices)
            need = "all of" if f.all_keys else "any of"
            allowed = f"keys: {need} {keys}; values in {range_text(f)}"
        elif f.kind == "enum_list":
            allowed = "non-empty, each one of " + ", ".join(
                f"`{c}`" for c in f.choices)
        elif f.kind == "coords":
            allowed = "`[row, col]` on the grid's edge, `dram.channels` entries"
        else:
            allowed = "`[A-Za-z0-9._-]+`"
        if f.default is not None:
            allowed += f"; optional, default {f.default}"
        rows.append(f"| `{f.path}` | {f.kind} | {allowed} | {f.unit} | {f.doc} |")
    return "\n".join(rows) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    # Unchanged output keeps its timestamp, so Ninja rebuilds nothing.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emit-cpp", type=Path, metavar="DIR",
                        help="write ArchSchema.inc and ArchAccessors.h.inc")
    parser.add_argument("--emit-markdown", action="store_true",
                        help="print the field table of docs/arch.md")
    args = parser.parse_args(argv)
    if args.emit_cpp:
        args.emit_cpp.mkdir(parents=True, exist_ok=True)
        _write_if_changed(args.emit_cpp / "ArchSchema.inc", emit_cpp_schema())
        _write_if_changed(args.emit_cpp / "ArchAccessors.h.inc",
                          emit_cpp_accessors())
    if args.emit_markdown:
        sys.stdout.write(emit_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
