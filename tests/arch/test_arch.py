"""Architecture descriptions: presets, validation, and agreement between the
Python objects and the #tessel.arch attribute."""

import copy
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tessel import arch
from tessel.arch import schema

from .cases import CASES

PRESETS = arch.preset_names()


def test_presets_are_the_documented_three():
    assert PRESETS == ["systolic-32x32", "tessel-16x16", "tessel-4x4"]
    assert arch.load().name == "tessel-4x4" == arch.DEFAULT_ARCH
    systolic = arch.load("systolic-32x32")
    assert (systolic.grid.rows, systolic.grid.cols) == (1, 1)
    assert (systolic.tile.mac.rows, systolic.tile.mac.cols) == (32, 32)
    assert arch.load("tessel-16x16").num_tiles == 256


@pytest.mark.parametrize("name", PRESETS)
def test_yaml_round_trip(name):
    described = arch.load(name)
    again = arch.Arch.from_yaml(described.to_yaml())
    assert again == described
    assert again.to_yaml() == described.to_yaml()


def test_key_order_does_not_matter():
    desc = arch.load().to_dict()
    shuffled = copy.deepcopy(desc)
    latency = list(shuffled["tile"]["vector"]["latency"].items())
    random.Random(0).shuffle(latency)
    shuffled["tile"]["vector"]["latency"] = dict(latency)
    shuffled = dict(reversed(list(shuffled.items())))
    assert arch.Arch.from_dict(shuffled).to_yaml() == arch.load().to_yaml()


def test_load_names_what_is_wrong(tmp_path):
    with pytest.raises(arch.ArchError, match="unknown architecture 'tessel-9x9': "
                       "not a preset .* and no such file"):
        arch.load("tessel-9x9")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(arch.ArchError, match="bad.yaml: not valid YAML"):
        arch.load(bad)
    wrong = tmp_path / "wrong.yaml"
    desc = arch.load().to_dict()
    desc["noc"]["hop_cycles"] = -1
    import yaml
    wrong.write_text(yaml.safe_dump(desc))
    with pytest.raises(arch.ArchError) as info:
        arch.load(wrong)
    assert str(info.value) == (f"{wrong}: arch field 'noc.hop_cycles' = -1 is out "
                               "of range: must be in [0, 1000]")
    assert info.value.field == "noc.hop_cycles"


@pytest.mark.parametrize("case_id,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_python_rejects_with_the_schema_message(case_id, mutate, message):
    desc = arch.load().to_dict()
    mutate(desc)
    with pytest.raises(arch.ArchError) as info:
        arch.Arch.from_dict(desc)
    assert str(info.value).startswith(message) if message.endswith("got") \
        else str(info.value) == message


# ---------------------------------------------------------------------------
# Against the C++ attribute (loads the bindings).
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ctx():
    from tessel.ir import Context

    with Context() as context:
        yield context


def _attr_error(desc, ctx) -> str:
    from tessel.dialects import tessel

    with pytest.raises(ValueError) as info:
        tessel.ArchAttr.from_dict(desc, context=ctx)
    return str(info.value)


@pytest.mark.parametrize("case_id,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_attribute_rejects_with_the_same_message(case_id, mutate, message, ctx):
    desc = arch.load().to_dict()
    mutate(desc)
    got = _attr_error(desc, ctx)
    if message.endswith("got"):
        assert got.startswith(message)
    else:
        assert got == message


INT_FIELDS = [f for f in schema.FIELDS if f.kind == "int"]


@pytest.mark.parametrize("field", INT_FIELDS, ids=[f.path for f in INT_FIELDS])
def test_every_integer_field_is_range_checked_on_both_sides(field, ctx):
    from tessel.dialects import tessel

    def with_value(v):
        desc = arch.load().to_dict()
        *sections, leaf = field.path.split(".")
        node = desc
        for s in sections:
            node = node[s]
        node[leaf] = v
        return desc

    for bad in (field.min - 1, field.max + 1):
        expected = (f"arch field '{field.path}' = {bad} is out of range: must be "
                    f"in {schema.range_text(field)}")
        with pytest.raises(arch.ArchError) as info:
            arch.Arch.from_dict(with_value(bad))
        assert str(info.value) == expected
        assert _attr_error(with_value(bad), ctx) == expected
    # The bounds themselves are allowed (unless another rule objects).
    if field.path not in ("dram.channels", "grid.rows", "grid.cols"):
        for good in (field.min, field.max):
            arch.Arch.from_dict(with_value(good))
            tessel.ArchAttr.from_dict(with_value(good), context=ctx)


@pytest.mark.parametrize("name", PRESETS)
def test_yaml_attribute_yaml_is_lossless(name, ctx):
    from tessel.ir import Attribute

    described = arch.load(name)
    attr = described.to_attribute(ctx)
    # Through the printed form too: the text a .mlir file holds.
    reparsed = Attribute.parse(str(attr), ctx)
    assert reparsed == attr
    back = arch.Arch.from_attribute(reparsed)
    assert back == described
    assert back.to_yaml() == described.to_yaml()


def test_module_attribute_is_checked(ctx):
    from tessel.ir import Module

    text = str(arch.load().to_attribute(ctx))
    module = Module.parse(f"module attributes {{tessel.arch = {text}}} {{}}", ctx)
    assert "tessel.arch" in module.operation.attributes
    with pytest.raises(Exception, match="'tessel.arch' belongs on a builtin.module"):
        Module.parse(f"func.func @f() attributes {{tessel.arch = {text}}} {{ return }}",
                     ctx)


def test_archs_command_lists_presets():
    out = subprocess.run([sys.executable, "-m", "tessel.cli", "archs"],
                         capture_output=True, text=True, check=True).stdout
    for name in PRESETS:
        assert name in out
    assert "tessel-4x4 (default)" in out
    shown = subprocess.run([sys.executable, "-m", "tessel.cli", "archs",
                            "systolic-32x32"], capture_output=True, text=True,
                           check=True).stdout
    assert arch.Arch.from_yaml(shown) == arch.load("systolic-32x32")
    bad = subprocess.run([sys.executable, "-m", "tessel.cli", "archs", "nope"],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "error: unknown architecture 'nope'" in bad.stderr


def test_schema_doc_table_is_current(repo):
    doc = (repo / "docs" / "arch.md").read_text()
    assert schema.emit_markdown() in doc, \
        "docs/arch.md's field table is stale: paste `python python/tessel/arch/schema.py --emit-markdown`"


def test_a_field_added_later_takes_its_default_on_both_sides(ctx):
    # tile.mac.weight_buffers may be left out (descriptions written before
    # it existed): 1 in Python, in the attribute's accessor, and written
    # out in full again.
    from tessel.dialects import tessel

    desc = arch.load().to_dict()
    del desc["tile"]["mac"]["weight_buffers"]
    described = arch.Arch.from_dict(desc)
    assert described.tile.mac.weight_buffers == 1
    assert described.to_dict()["tile"]["mac"]["weight_buffers"] == 1
    attr = tessel.ArchAttr.from_dict(desc, context=ctx)
    assert arch.Arch.from_attribute(attr) == described
    # Required fields stay required.
    del desc["tile"]["mac"]["rows"]
    with pytest.raises(arch.ArchError, match="'tile.mac.rows' is missing"):
        arch.Arch.from_dict(desc)


def test_the_presets_double_buffer_their_weights():
    assert {arch.load(n).tile.mac.weight_buffers for n in PRESETS} == {2}


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "bench" / "archs")
                                        .glob("*.yaml")), ids=lambda p: p.stem)
def test_the_bench_archs_are_valid(path):
    assert arch.load(path).name == path.stem


def test_split_channels_counts_the_dram_channels_a_tile_has_to_itself():
    # systolic-32x32: both channels at its one tile. The grids: every
    # channel is nearest to several tiles, or a tile has one nearest.
    one = arch.load("systolic-32x32")
    assert one.nearest_dram_channels(0, 0) == (0, 1)
    assert one.split_channels(0, 0) == 2
    grid = arch.load("tessel-16x16")
    assert grid.nearest_dram_channels(0, 1) == (0, 1)
    assert {grid.split_channels(r, c) for r in range(16) for c in range(16)} == {1}
    # Three channels of its own: three pieces, but no more than its DMA
    # channels.
    desc = one.to_dict()
    desc["dram"]["channels"] = 3
    desc["dram"]["attach"] = [[0, 0]] * 3
    assert arch.Arch.from_dict(desc).split_channels(0, 0) == 3
    desc["tile"]["dma"]["channels"] = 2
    assert arch.Arch.from_dict(desc).split_channels(0, 0) == 2
