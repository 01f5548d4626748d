"""Tessel's compiled extensions, and OR-tools', bind their symbols to their
own libraries first (``RTLD_DEEPBIND``).

TensorFlow and jaxlib each carry their own LLVM, protobuf and abseil. In a
process that has loaded one of them (a user's script that builds its model in
TensorFlow or JAX and hands it to Tessel), Tessel's MLIR extension bound the
ordinary way reads another LLVM's globals (``ImportError: std::bad_alloc`` at
its import, or a crash at the first parse) and CP-SAT another abseil's (a
crash in the solver). Bound deep, each uses the libraries it was linked with,
whatever was loaded before or after it. Only these extension modules load
this way; every other import is left as Python does it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import threading

# The extension modules loaded with RTLD_DEEPBIND: Tessel's MLIR bindings and
# OR-tools (the CP-SAT mapper).
_PACKAGES = ("tessel._mlir_libs.", "ortools.")


# The dlopen flags are the process's: two threads loading extensions at once
# must not restore each other's flags (deep binding left on for every later
# load).
_FLAGS_LOCK = threading.RLock()


class _DeepBindingLoader(importlib.machinery.ExtensionFileLoader):
    def create_module(self, spec):
        with _FLAGS_LOCK:
            flags = sys.getdlopenflags()
            sys.setdlopenflags(flags | os.RTLD_DEEPBIND)
            try:
                return super().create_module(spec)
            finally:
                sys.setdlopenflags(flags)


class _DeepBindingFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of ``_PACKAGES`` as Python would, and loads the
    extension modules among them deep-bound."""

    def find_spec(self, name, path=None, target=None):
        if not name.startswith(_PACKAGES):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = spec.loader if spec is not None else None
        if type(loader) is importlib.machinery.ExtensionFileLoader:
            spec.loader = _DeepBindingLoader(loader.name, loader.path)
        return spec


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once). Linux only:
    RTLD_DEEPBIND is glibc's."""
    if not hasattr(os, "RTLD_DEEPBIND") or not hasattr(sys, "setdlopenflags"):
        return
    if not any(isinstance(f, _DeepBindingFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _DeepBindingFinder())
