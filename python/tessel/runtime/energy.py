"""The energy model: what a run costs beside its cycles (docs/simulator.md,
*Energy*; the fields and their sources in docs/arch.md, *Energy*).

Dynamic energy is charged per instruction, from what the instruction moves
and computes, never from when it runs: a program's energy does not depend
on contention or stalls, only on its instructions (and, through static
power, on its cycles). Everything is counted in integer femtojoules, so sums
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


def compute_fj(arch: Arch, dtype: str | None, macs: int, sram_bytes: int) -> tuple[int, int, int, int]:
    """A MAC or vector instruction: ``macs`` MACs of ``dtype`` inputs (0 for a
    vector op) and the bytes it reads and writes at its tile's SRAM port."""
    e = arch.energy
    mac = macs * e.mac_fj[dtype] if macs else 0
    return (mac, sram_bytes * e.sram_fj_per_byte, 0, 0)


def transfer_fj(arch: Arch, nbytes: int, links: int, dram_sides: int,
                sram_sides: int) -> tuple[int, int, int, int]:
    """A transfer (dma, dma_multicast, dma_gather) of ``nbytes``: each SRAM
    side reads or writes them once (a multicast's every destination), each
    of the ``links`` NoC links of its route or tree carries them once, and
    each DRAM side reads or writes them once."""
    e = arch.energy
    return (0, nbytes * sram_sides * e.sram_fj_per_byte,
            nbytes * links * e.noc_fj_per_byte_hop,
            nbytes * dram_sides * e.dram_fj_per_byte)


def static_fj(arch: Arch, cycles: int) -> float:
    """One tile's static energy over ``cycles``: uW x cycles / MHz is pJ."""
    return arch.energy.tile_static_uw * cycles * 1000 / arch.clock_mhz


def joules(parts_fj: dict[str, float]) -> dict[str, float]:
    """Femtojoules by part to joules by part, with their ``total``."""
    out = {p: parts_fj.get(p, 0) * FJ for p in PARTS}
    out["total"] = sum(parts_fj.get(p, 0) for p in PARTS) * FJ
    return out
