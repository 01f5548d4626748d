"""Tessel: an MLIR compiler for spatial ML accelerators.

Importing ``tessel`` loads no compiled code. The MLIR bindings (``tessel.ir``,
``tessel.passmanager``, ``tessel.dialects.*``) load on first use, and the parts
that execute compiled programs import nothing from MLIR, so they run where only
Python and NumPy are installed.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
