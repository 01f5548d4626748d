"""Stage timing and progress lines: each long step says what it does when it
starts and how long it took when it ends, so a 40-second compile is not a
silent one."""

from __future__ import annotations

import contextlib
import sys
import time

# What a person sees while a stage runs.
DOING = {
    "import": "importing the model (torch-mlir, own process)",
    "legalize": "legalizing (tessel-legalize-pipeline)",
    "precompute": "computing what the weights alone give (CPU JIT)",
    "map": "mapping ops onto the grid",
    "lower": "lowering (tessel-lowering-pipeline)",
    "emit": "emitting the program",
    "simulate": "simulating",
    "check": "checking against the reference",
}


class Stages:
    """Seconds per stage, in the order they ran; prints progress on
    ``stream`` when ``show``."""

    def __init__(self, show: bool = False, stream=None):
        self.show = show
        self.stream = stream or sys.stderr
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, name: str):
        if self.show:
            print(f"  {DOING.get(name, name)} ...", file=self.stream, flush=True)
        start = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            took = time.perf_counter() - start
            self.seconds[name] = self.seconds.get(name, 0.0) + took
            if self.show:
                state = f"{took:.2f} s" if ok else f"FAILED after {took:.2f} s"
                print(f"  {name}: {state}", file=self.stream, flush=True)

    @property
    def total(self) -> float:
        return sum(self.seconds.values())
