"""Reports a person reads: per-layer and per-tile tables, a PNG heatmap of
tile utilization over the grid, a per-layer roofline plot and one HTML page
with all of them. Tables need only Python; plots need matplotlib (the
``report`` extra), imported on first use.

    report = Report.build(program, simulation_result, name="mlp")
    print(report)                            # summary + tables
    plots.heatmap(report, "heat.png"); plots.roofline(report, "roof.png")
    html.write(report, "out/report")         # report.html + the PNGs
"""

from .model import Layer, Report, ReportError, Tile
from .plots import PlotsUnavailable

__all__ = ["Layer", "PlotsUnavailable", "Report", "ReportError", "Tile"]
