"""The ``tessel`` command.

Subcommands:
  archs            list the architecture presets
  archs NAME|PATH  print one description as YAML (validated)

Imports nothing compiled: it runs where only Python is installed.
"""

from __future__ import annotations

import argparse
import sys

from . import arch as arch_model


def _human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}" if unit == "B" else f"{n:.4g} {unit}"
        n /= 1024
    raise AssertionError


def _archs(args: argparse.Namespace) -> int:
    if args.arch:
        try:
            described = arch_model.load(args.arch)
        except arch_model.ArchError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        sys.stdout.write(described.to_yaml())
        return 0
    header = ("name", "grid", "MAC array / tile", "SRAM / tile", "DRAM",
              "peak f32 TMAC/s")
    rows = [header]
    for name in arch_model.preset_names():
        a = arch_model.load(name)
        mac = a.tile.mac
        dataflow = "WS" if mac.dataflow == "weight_stationary" else "OS"
        peak = a.peak_macs_per_cycle("f32") * a.clock_hz / 1e12
        rows.append((
            name + (" (default)" if name == arch_model.DEFAULT_ARCH else ""),
            f"{a.grid.rows}x{a.grid.cols}",
            f"{mac.rows}x{mac.cols} {dataflow}",
            _human_bytes(a.tile.sram.bytes),
            f"{a.dram.channels} ch x {a.dram.bytes_per_cycle} B/cycle",
            f"{peak:.3g}",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tessel", description="Tessel: an MLIR compiler for spatial ML "
        "accelerators.")
    sub = parser.add_subparsers(dest="command", required=True)
    archs = sub.add_parser("archs", help="list architecture presets, or "
                           "print one as YAML")
    archs.add_argument("arch", nargs="?", help="a preset name or a YAML path")
    archs.set_defaults(run=_archs)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
