"""One HTML page with the report: summary, tables, the heatmap and the
roofline (embedded, so the page can be mailed on its own), and where the
trace is."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from . import plots, tables
from .model import Report


def write(report: Report, directory: str | Path, *, trace: str | Path | None = None) -> Path:
    """Writes ``heatmap.png``, ``roofline.png`` and ``report.html`` into
    ``directory``; returns the page's path."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    heat = plots.heatmap(report, out / "heatmap.png")
    roof = plots.roofline(report, out / "roofline.png")

    def img(path: Path, alt: str) -> str:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'<img alt="{alt}" src="data:image/png;base64,{data}">'

    trace_note = (f"<p>Trace: <code>{html.escape(str(trace))}</code>, open it in "
                  f'<a href="https://ui.perfetto.dev">ui.perfetto.dev</a> '
                  f"(Open trace file).</p>" if trace else
                  "<p>No trace recorded: <code>tessel simulate DIR --trace FILE</code> "
                  "writes one.</p>")
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Tessel report: {html.escape(report.name)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:110em}}
pre{{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}}
img{{max-width:100%;margin:0.5em 0}}</style></head><body>
<h1>{html.escape(report.name)} on {html.escape(report.arch['name'])}</h1>
<pre>{html.escape(tables.summary(report).split(chr(10) + chr(10))[0])}</pre>
<h2>Per layer</h2><pre>{html.escape(tables.layer_table(report))}</pre>
<h2>Tile utilization over the grid</h2>{img(heat, "tile heatmap")}
<h2>Layers on the roofline</h2>{img(roof, "roofline")}
<h2>Per tile</h2><pre>{html.escape(tables.tile_table(report))}</pre>
<h2>Trace</h2>{trace_note}
</body></html>
"""
    page_path = out / "report.html"
    page_path.write_text(page)
    return page_path
