"""A sweep on a local Ray (tessel.sweep, `tessel sweep`): four points of the
zoo MLP, each row's cycles those of a single compile_and_simulate on its
point, a point whose fields contradict each other recorded as a row, a
rerun that runs nothing, and a bad --set refused before anything starts."""

import csv
import subprocess
import sys

import pytest

pytest.importorskip("ray")

import tessel  # noqa: E402
from tessel import arch as arch_model  # noqa: E402
from tessel.sweeps import METRICS, space  # noqa: E402

SETS = {"tile.mac.dataflow": ["weight_stationary", "output_stationary"],
        "noc.link_bytes_per_cycle": [16, 32]}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    return tessel.sweep("mlp", set=SETS, out=out, workers=2, progress=False), out


def test_every_point_is_a_row_of_the_csv(swept):
    result, out = swept
    with open(out / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 == len(result.rows)
    assert list(rows[0]) == ["tile.mac.dataflow", "noc.link_bytes_per_cycle", *METRICS]
    # In point order (the last field fastest), whatever order they finished in.
    assert [(r["tile.mac.dataflow"], r["noc.link_bytes_per_cycle"]) for r in rows] == [
        ("weight_stationary", "16"), ("weight_stationary", "32"),
        ("output_stationary", "16"), ("output_stationary", "32")]
    ok = result.ok()
    assert [(r["tile.mac.dataflow"], r["noc.link_bytes_per_cycle"]) for r in ok] == \
        [("weight_stationary", 16), ("weight_stationary", 32)]
    for r in ok:
        assert r["check"] == "pass" and r["cycles"] > 0 and r["energy_uj"] > 0
        assert 0 < r["sram_high_water_bytes"] <= 262144
        assert r["sram_total_bytes"] == 16 * 262144
    # tessel-4x4's two weight buffers need a weight-stationary array: the
    # output-stationary points are rows with the arch's error, not a
    # stopped sweep.
    other = [r for r in result.rows if r["tile.mac.dataflow"] == "output_stationary"]
    assert len(other) == 2
    assert all(r["status"] == "invalid" and "weight_buffers" in r["error"] for r in other)
    # Faster links: fewer cycles, the same DRAM traffic's energy.
    assert ok[1]["cycles"] < ok[0]["cycles"]
    assert result.html is not None and all(p.exists() for p in result.plots)


def test_each_rows_cycles_are_a_single_compile_and_simulate(swept):
    result, _ = swept
    base = arch_model.load("tessel-4x4")
    axes = space.parse_axes(SETS)
    from tessel import zoo
    module, inputs = zoo.get("mlp").build()
    for row in result.ok():
        values = tuple(row[a.path] for a in axes)
        one = tessel.compile_and_simulate(module, inputs,
                                          arch=space.point_arch(base, axes, values))
        assert one.cycles == row["cycles"]
        assert round(one.energy["total"] * 1e6, 6) == row["energy_uj"]


def test_a_rerun_skips_the_finished_points(swept):
    result, out = swept
    again = tessel.sweep("mlp", set=SETS, out=out, workers=2, progress=False)
    assert again.ran == 0
    assert [r["cycles"] for r in again.rows] == [r["cycles"] for r in result.rows]
    # Another sweep into the same directory is refused.
    with pytest.raises(tessel.sweeps.SweepError, match="holds a sweep of another"):
        tessel.sweep("mlp", set={"noc.hop_cycles": [1, 2]}, out=out, progress=False)


def test_a_bad_set_stops_the_command_before_it_starts(tmp_path):
    out = tmp_path / "never"
    got = subprocess.run(
        [sys.executable, "-m", "tessel.cli", "sweep", "mlp", "-o", str(out),
         "--set", "tile.sram.bytes=65536,1", "--set", "grid.rows=2,4"],
        capture_output=True, text=True)
    assert got.returncode == 1
    assert "tile.sram.bytes=1: out of range; tile.sram.bytes must be in " \
           "[4096, 1073741824], in bytes" in got.stderr
    assert not out.exists()
