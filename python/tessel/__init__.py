"""Tessel: an MLIR compiler for spatial ML accelerators.

Importing ``tessel`` loads no compiled code. The MLIR bindings (``tessel.ir``,
``tessel.passmanager``, ``tessel.dialects.*``) load on first use, and the parts
that execute compiled programs import nothing from MLIR, so they run where only
Python and NumPy are installed.

The frontend's entry points are re-exported here and load on first use:
``import_torch``, ``import_onnx``, ``import_torch_training``, ``ImportedModel``.
"""

__version__ = "0.1.0"

_FRONTEND = ("import_torch", "import_onnx", "import_torch_training", "ImportedModel",
             "FrontendError", "run_reference")

__all__ = ["__version__", *_FRONTEND]


def __getattr__(name):
    if name in _FRONTEND:
        from . import frontend
        return getattr(frontend, name)
    raise AttributeError(f"module 'tessel' has no attribute {name!r}")
