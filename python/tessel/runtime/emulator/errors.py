"""The errors of the emulation target."""

from __future__ import annotations

from .. import numerics
from ..disasm import format_instruction
from ..results import SimulationError


class EmulationError(SimulationError):
    """A program the emulator cannot run (a missing or misshapen input, no GPU
    backend, a GPU run that made no progress). A ``SimulationError``, so code
    that runs programs on either executor catches one exception type."""


class DeadlockError(EmulationError):
    """No tile can progress. ``waiting`` lists, per blocked tile, its
    instruction and the semaphore it waits on; the message is the readable
    report."""

    def __init__(self, message: str, waiting: list[dict]):
        super().__init__(message)
        self.waiting = waiting


def index_error(table, row: int, error: numerics.IndexOutOfRange) -> EmulationError:
    """The error of a ``dma_gather`` (table row ``row``) that met an index
    outside its table: the tile, the instruction and its source op."""
    ins = table.where[row]
    rc = table.tiles[table.tile_of_row(row)]
    # The table pads ranks to 4 with leading dimensions: the instruction's own.
    rank = len(ins["sizes"])
    error = numerics.IndexOutOfRange(error.position[-rank:], error.value, error.rows,
                                     error.wrap)
    return EmulationError(
        f"tile {rc} offset {ins.offset} (instruction {table.index[row]}): "
        f"dma_gather: {error}: {format_instruction(ins)}"
        f"{table.sources.get(ins.tag, '')}")
