"""The errors of the emulation target."""

from __future__ import annotations

from ..simulator import SimulationError


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
