"""The report's plots (matplotlib, an optional dependency: ``pip install
tessel[report]``): tile utilization over the grid, and each layer on the
chip's roofline."""

from __future__ import annotations

from pathlib import Path

from ..errors import TesselError
from .model import Report


class PlotsUnavailable(TesselError, ImportError):
    """matplotlib is not installed."""


def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(
            "the report's plots need matplotlib, which is not installed; install it "
            "with `pip install 'tessel[report]'` (or `pip install matplotlib==3.10.9`), "
            "or leave the plots out (the tables need nothing)") from None
    # Files only, no display: works on a headless machine and in threads.
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def heatmap(report: Report, path: str | Path) -> Path:
    """A PNG with two grids: MAC utilization and busy fraction per tile."""
    import numpy as np

    plt = pyplot()
    rows, cols = report.arch["rows"], report.arch["cols"]
    mac = np.zeros((rows, cols))
    busy = np.zeros((rows, cols))
    for t in report.tiles:
        mac[t.row, t.col] = 100 * t.mac_utilization
        busy[t.row, t.col] = 100 * t.busy / report.cycles if report.cycles else 0
    fig, axes = plt.subplots(1, 2, figsize=(4 + 0.5 * cols * 2, 1.5 + 0.45 * rows),
                             constrained_layout=True)
    for ax, data, title in ((axes[0], mac, "MAC utilization (%)"),
                            (axes[1], busy, "busy (% of cycles)")):
        im = ax.imshow(data, cmap="viridis", vmin=0, vmax=max(1.0, data.max()))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("column")
        ax.set_ylabel("row")
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        if rows * cols <= 64:
            digits = 1 if data.max() < 10 else 0
            for (r, c), v in np.ndenumerate(data):
                ax.text(c, r, f"{v:.{digits}f}", ha="center", va="center", fontsize=7,
                        color="white" if v < 0.6 * max(1.0, data.max()) else "black")
        fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(f"{report.name} on {report.arch['name']}: {report.cycles} cycles",
                 fontsize=11)
    return _save(fig, plt, path)


def roofline(report: Report, path: str | Path) -> Path:
    """A PNG of every layer that does MACs at (operations per DRAM byte,
    achieved operations per second) under the chip's compute and DRAM
    roofs."""
    plt = pyplot()
    a = report.arch
    clock = a["clock_mhz"] * 1e6
    peak = 2 * a["macs_per_tile_cycle"] * a["rows"] * a["cols"] * clock
    bandwidth = a["dram_bytes_per_cycle"] * clock
    points = []
    for l in report.layers:
        if l.macs and l.cycles:
            achieved = 2 * l.macs / (l.cycles / clock)
            # A layer that reads nothing from DRAM sits right of the ridge.
            x = l.intensity() if l.dram_bytes else 4 * peak / bandwidth
            points.append((x, achieved, l.short_name))
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    ridge = peak / bandwidth
    xs = [x for x, _, _ in points] + [ridge]
    lo, hi = min(xs + [1.0]) / 4, max(xs + [ridge]) * 4
    ax.plot([lo, ridge, hi], [lo * bandwidth, peak, peak], color="black", lw=1.5,
            label=f"roof: {peak / 1e12:.3g} TOP/s, DRAM {bandwidth / 1e9:.3g} GB/s")
    for i, (x, y, name) in enumerate(points):
        ax.scatter([x], [y], s=30, zorder=3)
        ax.annotate(f"{i + 1}", (x, y), textcoords="offset points", xytext=(4, 4),
                    fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (operations / DRAM byte)")
    ax.set_ylabel("achieved operations / s")
    ax.set_title(f"{report.name} on {a['name']}: layers on the roofline", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    legend = "\n".join(f"{i + 1}: {name}" for i, (_, _, name) in enumerate(points[:20]))
    ax.legend(loc="lower right", fontsize=7, title=legend or None, title_fontsize=6)
    return _save(fig, plt, path)


def _save(fig, plt, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
