"""The report as text: a summary, the per-layer and the per-tile table."""

from __future__ import annotations

from .model import Report


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


def joules(j: float) -> str:
    """Energy in the unit that keeps three to four digits."""
    for unit, scale in (("J", 1), ("mJ", 1e-3), ("uJ", 1e-6), ("nJ", 1e-9)):
        if abs(j) >= scale or unit == "nJ":
            return f"{j / scale:.3f} {unit}" if j else "0"
    raise AssertionError


def _table(header: tuple[str, ...], rows: list[tuple], right: set[int]) -> str:
    cells = [header] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for r in cells:
        lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def layer_table(r: Report) -> str:
    """One row per layer (source line): cycles, MAC utilization on its
    tiles, MACs, DRAM and NoC bytes, dynamic energy, the tiles it was mapped
    to."""
    peak = r.arch["macs_per_tile_cycle"]
    rows = [(l.short_name, f"{l.cycles:.0f}", f"{100 * l.utilization(peak):.1f}%",
             l.macs, _bytes(l.dram_bytes), _bytes(l.noc_bytes),
             "-" if l.energy is None else joules(l.energy), l.mapping,
             l.instructions, l.op.split(".")[-1]) for l in r.layers]
    header = ("layer", "cycles", "MAC util", "MACs", "DRAM", "NoC", "energy", "tiles",
              "instrs", "op")
    if not any(l.op for l in r.layers):       # tags without their op: no column
        header, rows = header[:-1], [row[:-1] for row in rows]
    return _table(header, rows, {1, 2, 3, 4, 5, 6, 8})


def tile_table(r: Report) -> str:
    """One row per tile: busy cycles by unit, stalls by cause, idle, energy
    (its instructions' and its static power's)."""
    causes = sorted({c for t in r.tiles for c in t.stalls})
    rows = [(f"({t.row},{t.col})", f"{100 * t.mac_utilization:.1f}%", f"{t.busy:.0f}",
             f"{t.mac:.0f}", f"{t.vector:.0f}", f"{t.control:.0f}",
             *(f"{t.stalls.get(c, 0):.0f}" for c in causes), f"{t.idle:.0f}",
             t.instructions, joules(t.energy["total"]) if t.energy else "-")
            for t in r.tiles]
    header = ("tile", "MAC util", "busy", "mac", "vector", "control",
              *(f"stall:{c}" for c in causes), "idle", "instrs", "energy")
    return _table(header, rows, set(range(1, len(header))))


def summary(r: Report) -> str:
    a = r.arch
    lines = [f"{r.name} on {a['name']} ({a['rows']}x{a['cols']} tiles, "
             f"{a['clock_mhz']} MHz): {r.cycles} cycles = {r.seconds * 1e6:.2f} us, "
             f"{r.instructions} instructions, MAC utilization "
             f"{100 * r.mac_utilization:.1f}%",
             "bytes moved: " + ", ".join(f"{k} {_bytes(v)}" for k, v in r.bytes.items())]
    if r.energy:
        e = r.energy
        power = f"; {e['total'] / r.seconds:.3g} W on average" if r.seconds else ""
        lines.append(f"energy: {joules(e['total'])} = " + ", ".join(
            f"{k} {joules(v)}" for k, v in e.items() if k != "total") + power)
    if r.timings:
        lines.append("stage times: " + ", ".join(f"{k} {v:.2f} s"
                                                 for k, v in r.timings.items()))
    if r.check is not None:
        c = r.check
        lines.append(f"check against {c['reference']}: "
                     f"{'PASS' if c['passed'] else 'FAIL'} (max |error| "
                     f"{c['max_abs_error']:.3g}, max relative {c['max_rel_error']:.3g}, "
                     f"of the output's scale {c.get('max_scaled_error', 0.0):.3g}; "
                     f"rtol {c['rtol']:g}, atol {c['atol']:g}, "
                     f"scale_rtol {c.get('scale_rtol', 1e-3):g})")
    lines += ["", "per layer:", layer_table(r), "", "per tile:", tile_table(r)]
    return "\n".join(lines)
