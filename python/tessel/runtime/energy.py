"""The energy model: what a run costs beside its cycles (docs/simulator.md,
*Energy*; the fields and their sources in docs/arch.md, *Energy*).

Dynamic energy is charged for what instructions move and compute (the
byte counts the simulator keeps anyway), never for when they run: a
program's energy does not depend on contention or stalls, only on its
instructions (and, through static power, on its cycles). Everything is counted in integer femtojoules, so sums
are exact and the same in any order; results are reported in joules.
"""

from __future__ import annotations

from ..arch import Arch

# The parts of a run's energy, in the order the reports show them: the MAC
# array, the SRAM ports, the NoC links and DRAM (dynamic), then the tiles'
# static power over the run.
DYNAMIC_PARTS = ("mac", "sram", "noc", "dram")
PARTS = DYNAMIC_PARTS + ("static",)

FJ = 1e-15  # joules per femtojoule


def mac_fj(arch: Arch, dtype: str, macs: int) -> int:
    """``macs`` multiply-accumulates of ``dtype`` inputs."""
    return macs * arch.energy.mac_fj[dtype]


def dynamic_fj(arch: Arch, mac: int, sram_bytes: int, noc_link_bytes: int,
               dram_bytes: int) -> dict[str, int]:
    """Dynamic fJ by part of what some instructions did: ``mac`` fJ of MACs
    (:func:`mac_fj`), bytes at SRAM ports (every compute operand byte and
    each SRAM side of a transfer, a multicast's every destination), bytes
    times the NoC links they crossed (a multicast's tree, each link once)
    and DRAM bytes read or written. The simulator counts these per tag as
    it counts ``bytes``, so energy is derived from its byte counts."""
    e = arch.energy
    return {"mac": mac, "sram": sram_bytes * e.sram_fj_per_byte,
            "noc": noc_link_bytes * e.noc_fj_per_byte_hop,
            "dram": dram_bytes * e.dram_fj_per_byte}


def static_fj(arch: Arch, cycles: int) -> float:
    """One tile's static energy over ``cycles``: uW x cycles / MHz is pJ."""
    return arch.energy.tile_static_uw * cycles * 1000 / arch.clock_mhz


def joules(parts_fj: dict[str, float]) -> dict[str, float]:
    """Femtojoules by part to joules by part, with their ``total``."""
    out = {p: parts_fj.get(p, 0) * FJ for p in PARTS}
    out["total"] = sum(parts_fj.get(p, 0) for p in PARTS) * FJ
    return out
