"""The energy model (runtime/energy.py, docs/simulator.md *Energy*): a
program's energy in closed form, its parts and where they are booked, and
the arch's energy fields (optional, defaulted, swept like any field)."""

import numpy as np
import pytest

from tessel import arch as arch_model
from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.simulator import simulate

F32 = 4


def program(arch):
    """Tile (1,1) loads x (32 x 16) from DRAM (channel 0 at tile (0,0): two
    links), computes x @ w into h, adds 1 in place and pushes h to tile
    (1,3)'s SRAM (two links); (1,3) stores it to DRAM (channel 1 at (0,3):
    one link)."""
    b = ProgramBuilder(arch)
    x = b.add_buffer("x", "input", (32, 16), "f32")
    w = b.add_buffer("w", "weight", (16, 16), "f32",
                     data=np.eye(16, dtype=np.float32))
    y = b.add_buffer("y", "output", (32, 16), "f32")
    mm = b.add_tag("fc", op="linalg.matmul")
    out = b.add_tag("out", op="linalg.generic")
    t = b.tile(1, 1, tokens=2)
    X, W, H = 0, 4096, 8192
    t.dma(0, 0, "f32", (32, 16), dram(x.offset, (16, 1)), sram(X, (16, 1)), tag=mm)
    t.dma(0, 1, "f32", (16, 16), dram(w.offset, (16, 1)), sram(W, (16, 1)), tag=mm)
    t.wait(0, 1, tag=mm)
    t.matmul("f32", 32, 16, 16, (X, (16, 1)), (W, (16, 1)), (H, (16, 1)), init=True,
             tag=mm)
    t.vector_binary_imm("add", "f32", 1.0, (32, 16), (H, (16, 1)), (H, (16, 1)), tag=out)
    t.dma(0, 0, "f32", (32, 16), sram(H, (16, 1)), sram(0, (16, 1), tile=(1, 3)), tag=out)
    t.wait(0, tag=out)
    t.signal(1, 3, 0, tag=out)
    u = b.tile(1, 3, semaphores=1, tokens=1)
    u.wait_semaphore(0, tag=out)
    u.dma(0, 0, "f32", (32, 16), sram(0, (16, 1)), dram(y.offset, (16, 1)), tag=out)
    u.wait(0, tag=out)
    return b.build()


def expected_fj(a, cycles):
    e = a.energy
    x, w, h = 32 * 16 * F32, 16 * 16 * F32, 32 * 16 * F32
    matmul_sram = (32 * 16 + 16 * 16) * F32 + 32 * 16 * F32    # docs/simulator.md
    vector_sram = 2 * h
    return {
        "mac": 32 * 16 * 16 * e.mac_fj["f32"],
        # Each transfer at each SRAM end once (the push: both ends), plus
        # the MAC array's and the vector unit's port traffic.
        "sram": (x + w + 2 * h + h + matmul_sram + vector_sram) * e.sram_fj_per_byte,
        "noc": (x * 2 + w * 2 + h * 2 + h * 1) * e.noc_fj_per_byte_hop,
        "dram": (x + w + h) * e.dram_fj_per_byte,
        "static": a.num_tiles * e.tile_static_uw * cycles * 1000 / a.clock_mhz,
    }


def test_a_programs_energy_in_closed_form():
    a = arch_model.load("tessel-4x4")
    r = simulate(program(a), {"x": np.ones((32, 16), np.float32)})
    want = expected_fj(a, r.cycles)
    for part, fj in want.items():
        assert r.energy[part] == pytest.approx(fj * 1e-15, rel=1e-12), part
    assert r.energy["total"] == pytest.approx(sum(want.values()) * 1e-15, rel=1e-12)
    # The MAC and DRAM terms agree with the run's own counts.
    assert r.energy["dram"] == pytest.approx(
        r.bytes["dram"] * a.energy.dram_fj_per_byte * 1e-15, rel=1e-12)
    assert r.energy["noc"] == pytest.approx(
        r.bytes["noc_link"] * a.energy.noc_fj_per_byte_hop * 1e-15, rel=1e-12)
    assert r.energy["sram"] == pytest.approx(
        r.bytes["sram"] * a.energy.sram_fj_per_byte * 1e-15, rel=1e-12)


def test_energy_is_booked_to_the_issuing_tile_and_to_the_layer():
    a = arch_model.load("tessel-4x4")
    r = simulate(program(a), {"x": np.ones((32, 16), np.float32)})
    tiles = r.tiles
    # The push from (1,1) to (1,3) is (1,1)'s; (1,3) pays its store only.
    h = 32 * 16 * F32
    assert tiles[(1, 3)].energy["dram"] == pytest.approx(
        h * a.energy.dram_fj_per_byte * 1e-15)
    assert tiles[(1, 3)].energy["mac"] == 0
    for part in ("mac", "sram", "noc", "dram"):
        assert sum(t.energy[part] for t in tiles.values()) == \
            pytest.approx(r.energy[part], rel=1e-12)
    # Every tile of the grid leaks for the whole run, the 14 that run no
    # code too; the two that do list their share.
    assert tiles[(1, 1)].energy["static"] == pytest.approx(r.energy["static"] / 16)
    # Layers carry the dynamic energy; static power is the run's.
    dynamic = r.energy["total"] - r.energy["static"]
    assert sum(t.energy for t in r.tags.values()) == pytest.approx(dynamic, rel=1e-12)
    assert r.tags["fc"].energy > r.tags["out"].energy > 0


def test_energy_fields_change_energy_not_cycles():
    base = arch_model.load("tessel-4x4")
    desc = base.to_dict()
    desc["energy"]["dram_fj_per_byte"] *= 2
    desc["energy"]["tile_static_uw"] = 0
    doubled = arch_model.Arch.from_dict(desc)
    x = {"x": np.ones((32, 16), np.float32)}
    r0, r1 = simulate(program(base), x), simulate(program(doubled), x)
    assert r1.cycles == r0.cycles
    assert r1.energy["dram"] == pytest.approx(2 * r0.energy["dram"])
    assert r1.energy["static"] == 0
    assert r1.energy["mac"] == r0.energy["mac"]


def test_the_energy_section_may_be_left_out():
    # Descriptions (and program manifests) written before the energy model
    # load with its defaults, Horowitz's 45 nm figures (docs/arch.md).
    desc = arch_model.load("tessel-4x4").to_dict()
    del desc["energy"]
    a = arch_model.Arch.from_dict(desc)
    assert a.energy.mac_fj["f32"] == 4600 and a.energy.dram_fj_per_byte == 162_500
    assert a == arch_model.load("tessel-4x4")
    del desc["tile"]          # a section with required fields may not
    with pytest.raises(arch_model.ArchError, match="arch field 'tile' is missing"):
        arch_model.Arch.from_dict(desc)


@pytest.mark.parametrize("energy, message", [
    ({"mac_fj": 3}, "arch field 'energy.mac_fj' must be a mapping of fields"),
    ({"mac_fj": {"f32": -1}}, r"'energy.mac_fj.f32' = -1 is out of range"),
    ({"watts": 1}, "'energy.watts' is not part of the schema: energy has "
                   "dram_fj_per_byte, mac_fj, noc_fj_per_byte_hop"),
])
def test_bad_energy_fields_are_refused_alike_in_python_and_ir(energy, message):
    from tessel.dialects.tessel import ArchAttr
    from tessel.ir import Context

    desc = arch_model.load("tessel-4x4").to_dict()
    desc["energy"] = energy
    with pytest.raises(arch_model.ArchError, match=message):
        arch_model.Arch.from_dict(desc)
    with Context(), pytest.raises(Exception, match=message):
        ArchAttr.from_dict(desc)
    # Left out in IR, the fields take their defaults there too.
    del desc["energy"]
    with Context():
        back = arch_model.Arch.from_attribute(ArchAttr.from_dict(desc))
    assert back == arch_model.load("tessel-4x4")


def test_the_report_shows_energy_and_reads_reports_from_before_it():
    import json

    from tessel.report import Report

    a = arch_model.load("tessel-4x4")
    prog = program(a)
    r = simulate(prog, {"x": np.ones((32, 16), np.float32)})
    report = Report.build(prog, r, name="energy")
    text = str(report)
    assert "energy: " in text and "W on average" in text
    assert "energy" in report.layer_table().splitlines()[0].split()
    again = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.energy == report.energy and again.tiles[0].energy == report.tiles[0].energy
    # A report written before energy was modelled has none of it: read,
    # shown with '-'.
    old = report.to_dict()
    del old["energy"]
    for part in old["layers"] + old["tiles"]:
        del part["energy"]
    before = Report.from_dict(json.loads(json.dumps(old)))
    assert not before.energy and "energy: " not in str(before)
    assert before.tile_table().splitlines()[2].split()[-1] == "-"
