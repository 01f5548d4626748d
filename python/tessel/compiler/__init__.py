"""The compiler driven from Python. ``lower``: the lowering pipeline on an
imported model, to a ``tessel.device``; ``emit``: ``tessel.device`` IR to a
program in the ISA's format (docs/isa.md), written by the C++ program writer
that ``tessel-translate --tessel-to-program`` runs."""

from .emit import (DeviceVerificationError, EmitError, emit_program, weight_data,
                   weight_file_name)
from .lower import LoweringError, lower_and_emit, lower_to_device

__all__ = ["DeviceVerificationError", "EmitError", "LoweringError", "emit_program",
           "lower_and_emit", "lower_to_device", "weight_data", "weight_file_name"]
