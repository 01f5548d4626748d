"""A sweep's design space (tessel.sweeps.space): --set parsed and every
value checked before anything runs, the cross product, and each point's
arch (DRAM channels following a resized grid)."""

import pytest

from tessel import arch as arch_model
from tessel.sweeps import space
from tessel.sweeps.space import SweepSpecError


def test_sets_parse_into_axes_in_order():
    axes = space.parse_axes(["noc.link_bytes_per_cycle=16,32",
                             "tile.mac.dataflow=weight_stationary",
                             "tile.mac.macs_per_cycle.f32=128, 256"])
    assert [(a.path, a.values) for a in axes] == [
        ("noc.link_bytes_per_cycle", (16, 32)),
        ("tile.mac.dataflow", ("weight_stationary",)),
        ("tile.mac.macs_per_cycle.f32", (128, 256))]
    assert space.points(axes) == [(16, "weight_stationary", 128),
                                  (16, "weight_stationary", 256),
                                  (32, "weight_stationary", 128),
                                  (32, "weight_stationary", 256)]
    # From Python, a mapping of values (a single value is one).
    assert space.parse_axes({"grid.rows": [4, 8], "noc.hop_cycles": 1}) == [
        space.Axis("grid.rows", (4, 8)), space.Axis("noc.hop_cycles", (1,))]


@pytest.mark.parametrize("sets, message", [
    (["tile.sram.byte=1"], "--set tile.sram.byte: no such arch field; did you mean "
                           "tile.sram.bytes"),
    (["tile.sram.bytes=1"], r"--set tile.sram.bytes=1: out of range; tile.sram.bytes "
                            r"must be in \[4096, 1073741824\], in bytes"),
    (["tile.sram.alignment=48"], "must be in .* and a power of two"),
    (["grid.rows=4,x"], "--set grid.rows=x: not an integer; grid.rows takes integers "
                        r"in \[1, 1024\]"),
    (["tile.mac.dataflow=diagonal"], "not allowed; tile.mac.dataflow is one of "
                                     "weight_stationary, output_stationary"),
    (["tile.mac.macs_per_cycle=256"], "an int map is swept one key at a time: "
                                      "tile.mac.macs_per_cycle.f32"),
    (["dram.attach=1"], "a coords field cannot be swept"),
    (["grid.rows"], "write FIELD=VALUE"),
    (["grid.rows=4", "grid.rows=8"], "--set grid.rows is given twice"),
    (["grid.rows=4,4"], "a value is given twice"),
    ([], "a sweep needs at least one --set"),
])
def test_a_bad_set_names_the_field_and_what_it_allows(sets, message):
    with pytest.raises(SweepSpecError, match=message):
        space.parse_axes(sets)


def test_each_point_is_the_base_with_its_values():
    base = arch_model.load("tessel-4x4")
    axes = space.parse_axes(["tile.sram.bytes=131072", "energy.mac_fj.f32=1000"])
    a = space.point_arch(base, axes, (131072, 1000))
    assert a.tile.sram.bytes == 131072 and a.energy.mac_fj["f32"] == 1000
    assert a.name == "tessel-4x4_bytes-131072_f32-1000"
    assert a.noc == base.noc and a.dram == base.dram


def test_dram_channels_follow_a_resized_grid():
    base = arch_model.load("tessel-4x4")           # channels at the 4 corners
    axes = space.parse_axes(["grid.rows=8", "grid.cols=2"])
    a = space.point_arch(base, axes, (8, 2))
    assert a.dram.attach == ((0, 0), (0, 1), (7, 0), (7, 1))
    # tessel-16x16: columns 0, 2, .., 14 on the north edge, 1, 3, .., 15 on
    # the south; on 8 columns each keeps its edge and its place along it.
    wide = arch_model.load("tessel-16x16")
    a = space.point_arch(wide, space.parse_axes(["grid.cols=8"]), (8,))
    assert a.dram.attach == tuple((0, c) for c in range(8)) + \
        tuple((15, c) for c in range(8))


def test_a_combination_the_arch_rejects_is_a_point_not_a_stop():
    base = arch_model.load("tessel-4x4")         # two weight buffers
    axes = space.parse_axes(["tile.mac.dataflow=weight_stationary,output_stationary"])
    assert space.point_arch(base, axes, ("weight_stationary",)).tile.mac.weight_buffers == 2
    with pytest.raises(arch_model.ArchError, match="tile.mac.weight_buffers' = 2 needs "
                       "tile.mac.dataflow = weight_stationary"):
        space.point_arch(base, axes, ("output_stationary",))
