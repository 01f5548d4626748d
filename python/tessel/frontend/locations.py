"""Where an imported op came from: the model's own source line, read from
the MLIR location torch-mlir attaches (a call-site stack of frames, names,
fused locations). The program's tags (per-layer reports), the mapper's
tables and the emitter all name ops by it.
"""

from __future__ import annotations

from ..dialects import tessel


def describe_location(loc) -> tuple[str, str] | None:
    """``(name, "file:line:col")`` of a location for a tag, or ``None`` for
    an unknown one. A ``NameLoc`` gives its name; otherwise the name is the
    position itself. Fused locations take the first name and the first
    position among their parts. A call site (torch-mlir's stack of frames)
    takes its innermost frame outside library code (PyTorch's modules, the
    frontend process's entry), the line of the model that made the op, else
    its innermost frame. The rule is the instruction encoder's
    (``tessel/Target/Program/InstructionStreams.h``), which numbers the
    program's tags by it."""
    return tessel.describe_location(loc)
