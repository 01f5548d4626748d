"""The root of Tessel's errors.

Every mistake Tessel reports (a model it cannot import, a bad option, an
architecture description, a program file, IR a pass rejects, a stage that
fails) is a ``TesselError``, so ``except tessel.TesselError`` catches them
all, while each keeps its built-in base (``ValueError`` for bad input,
``RuntimeError`` for a failed stage) for code that catches those. Each
message names the input, the field or op, and what to do. This module
imports nothing, so every subpackage may derive from it.
"""


class TesselError(Exception):
    """An error Tessel reports, naming what is wrong and what to do."""


class InvalidArgumentError(TesselError, ValueError):
    """A bad value passed to the API: an option, a model, example inputs."""


class InvalidArgumentTypeError(TesselError, TypeError):
    """An argument of the wrong kind passed to the API."""
