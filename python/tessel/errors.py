"""The root of Tessel's errors.

Every mistake Tessel reports (a model it cannot import, a bad option, an
architecture description, a program file, IR a pass rejects, a stage that
fails) is a ``TesselError``, so ``except tessel.TesselError`` catches them
all, while each keeps its built-in base (``ValueError`` for bad input,
``RuntimeError`` for a failed stage, ``KeyError`` for an unknown name,
``ModuleNotFoundError`` for a missing extra) for code that catches those.
Each message names the input, the field or op, and what to do. This module
imports nothing, so every subpackage may derive from it.
"""

# The optional extras of pyproject.toml, by the top-level module each
# installs: what needs one names it instead of a traceback.
EXTRA_OF_MODULE = {"torch": "frontend", "torch_mlir": "frontend", "onnx": "frontend",
                   "onnxruntime": "frontend", "onnxscript": "frontend",
                   "mlir": "frontend", "ortools": "mapper", "matplotlib": "report",
                   "keras": "keras", "tensorflow": "tensorflow", "tf2onnx": "tensorflow",
                   "jax": "jax", "jax2onnx": "jax", "ray": "sweep"}


class TesselError(Exception):
    """An error Tessel reports, naming what is wrong and what to do."""


class InvalidArgumentError(TesselError, ValueError):
    """A bad value passed to the API: an option, a model, example inputs."""


class InvalidArgumentTypeError(TesselError, TypeError):
    """An argument of the wrong kind passed to the API."""


class UnknownNameError(TesselError, KeyError):
    """A name looked up that does not exist (a program's buffer, a zoo
    case); the message lists the names there are."""

    # KeyError's own str() is the repr of the message, quotes and all.
    __str__ = Exception.__str__


class MissingExtraError(TesselError, ModuleNotFoundError):
    """An optional package is not installed; the message names the extra
    that installs it. ``name`` is the missing module."""

    def __init__(self, who: str, module: str):
        extra = EXTRA_OF_MODULE[module]
        super().__init__(
            f"{who}: needs the Python package '{module}', which the '{extra}' extra "
            f"installs: pip install 'tessel[{extra}]' (from a checkout: pip install "
            f"'.[{extra}]')", name=module)


def missing_extra(error: ModuleNotFoundError, who: str) -> Exception:
    """The ``MissingExtraError`` that ``error`` means for ``who`` (e.g.
    ``tessel compile``), or ``error`` itself when the module it misses is
    no extra's (a broken installation, not a choice)."""
    top = (error.name or "").split(".")[0]
    if top not in EXTRA_OF_MODULE:
        return error
    return MissingExtraError(who, top)
