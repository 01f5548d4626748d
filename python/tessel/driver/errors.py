"""The driver's error: which stage failed, the IR it failed on and the
command that reproduces the failure."""

from __future__ import annotations

from pathlib import Path

from ..errors import TesselError

# The stages a StageError names: import, those of tessel.compiler.lower.STAGES,
# then simulate.
STAGES = ("import", "legalize", "precompute", "map", "lower", "emit", "simulate")


class StageError(TesselError, RuntimeError):
    """Stage ``stage`` (one of ``STAGES``) failed. ``ir_path`` holds the IR
    (or program) it failed on, ``repro`` the command that reproduces the
    failure; both are in the message too. ``__cause__`` is the original
    error."""

    def __init__(self, stage: str, message: str, *, ir_path: Path | None = None,
                 repro: str | None = None):
        self.stage = stage
        self.problem = message
        self.ir_path = Path(ir_path) if ir_path else None
        self.repro = repro
        lines = [f"stage '{stage}' failed: {message}"]
        if self.ir_path and self.ir_path.as_posix() not in message:
            lines.append(f"the IR it failed on: {self.ir_path}")
        if repro and repro not in message:
            lines.append(f"reproduce with: {repro}")
        super().__init__("\n".join(lines))
