"""The driver: from a model to a checked simulation in one call.

    import tessel
    result = tessel.compile_and_simulate(module, (x,), arch="tessel-4x4")
    result.cycles, result.utilization, result.check, print(result.report)
    program = tessel.compile(module, (x,)); program.save("out/prog")
    tessel.load_program("out/prog").simulate({"x": x.numpy()})

See docs/user-guide.md.
"""

from ..runtime.loader import load_program
from .api import compile, compile_and_simulate
from .check import Check
from .errors import STAGES, StageError
from .options import Options
from .result import SimulationResult

__all__ = ["Check", "Options", "STAGES", "SimulationResult", "StageError", "compile",
           "compile_and_simulate", "compile_imported", "load_program"]


def __getattr__(name):
    # Loaded on first use: it brings in the compiler and MLIR, which
    # loading or simulating a saved program does not need.
    if name == "compile_imported":
        from .pipeline import compile_imported
        return compile_imported
    raise AttributeError(f"module 'tessel.driver' has no attribute {name!r}")
