"""The compiler's stages after MLIR lowering. ``emit``: ``tessel.device`` IR to
a program in the ISA's format (docs/isa.md)."""

from .emit import EmitError, emit_program

__all__ = ["EmitError", "emit_program"]
