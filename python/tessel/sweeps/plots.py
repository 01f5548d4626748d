"""A sweep's Pareto fronts, as PNGs and on one HTML page: cycles against
energy, and cycles against the SRAM the design has (its tiles' SRAM in all).
A point is on a front when no other point is at least as good on both axes
and better on one."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

# (x metric, y metric, axis labels, file): the fronts drawn.
FRONTS = (
    ("cycles", "energy_uj", "cycles", "energy (uJ)", "pareto_energy.png"),
    ("cycles", "sram_total_bytes", "cycles", "SRAM on chip (MiB)", "pareto_sram.png"),
)
_SCALE = {"sram_total_bytes": 1 / (1 << 20)}


def pareto_front(rows: list[dict[str, Any]], x: str, y: str) -> list[dict[str, Any]]:
    """The rows no other row dominates on (``x``, ``y``), both minimized,
    by increasing ``x``; rows equal on both are all kept."""
    ok = sorted((r for r in rows if r["status"] == "ok"), key=lambda r: (r[x], r[y]))
    front, best_y = [], None
    for r in ok:
        if best_y is None or r[y] < best_y or \
                (front and r[x] == front[-1][x] and r[y] == front[-1][y]):
            front.append(r)
            best_y = r[y] if best_y is None else min(best_y, r[y])
    return front


def _label(row: dict[str, Any], fields: list[str]) -> str:
    return ", ".join(f"{f.rsplit('.', 1)[-1]}={row[f]}" for f in fields)


def write_plots(rows: list[dict[str, Any]], fields: list[str], model: str, base: str,
                directory: Path) -> tuple[list[Path], Path | None]:
    """The fronts' PNGs and ``sweep.html``; nothing (and no error) without
    matplotlib, which the CSV does not need."""
    try:
        from ..report.plots import PlotsUnavailable, pyplot
        plt = pyplot()
    except PlotsUnavailable:
        return [], None
    pngs = []
    for x, y, xlabel, ylabel, name in FRONTS:
        scale = _SCALE.get(y, 1)
        ok = [r for r in rows if r["status"] == "ok"]
        front = pareto_front(rows, x, y)
        fig, ax = plt.subplots(figsize=(7.5, 4.8), constrained_layout=True)
        ax.scatter([r[x] for r in ok], [r[y] * scale for r in ok], s=22, color="#9bb",
                   label=f"{len(ok)} design points")
        ax.plot([r[x] for r in front], [r[y] * scale for r in front], "o-",
                color="#c33", ms=5, label="Pareto front")
        labels: dict[tuple, list[str]] = {}   # points that tie share a label
        for r in front:
            labels.setdefault((r[x], r[y] * scale), []).append(_label(r, fields))
        for xy, names in labels.items():
            ax.annotate("\n".join(names), xy, fontsize=6, textcoords="offset points",
                        xytext=(4, 4))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"{model} on {base}: {xlabel} vs {ylabel}", fontsize=10)
        path = directory / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        pngs.append(path)
    return pngs, _page(rows, fields, model, base, pngs, directory)


def _page(rows, fields, model, base, pngs, directory: Path) -> Path:
    from .point import METRICS

    def img(path: Path) -> str:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'

    columns = fields + [m for m in METRICS if m != "error"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for r in rows:
        cells = "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in columns)
        title = f' title="{html.escape(str(r["error"]))}"' if r.get("error") else ""
        body.append(f"<tr{title}>{cells}</tr>")
    failed = sum(r["status"] != "ok" for r in rows)
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Tessel sweep: {html.escape(model)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:110em}}
table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 6px;
text-align:right}}img{{max-width:100%;margin:0.5em 0}}</style></head><body>
<h1>{html.escape(model)} on {html.escape(base)}: {len(rows)} design points</h1>
<p>Swept: {html.escape(', '.join(fields))}. {failed} point(s) did not run or failed
(hover a row for its error). The data: <code>sweep.csv</code>.</p>
{''.join(f'<h2>{html.escape(p.stem.replace("_", " "))}</h2>{img(p)}' for p in pngs)}
<h2>Points</h2><table><tr>{head}</tr>
{chr(10).join(body)}
</table></body></html>
"""
    path = directory / "sweep.html"
    path.write_text(page)
    return path
