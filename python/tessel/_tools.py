"""Entry points for the native tools shipped inside the package.

In a wheel, ``tessel-opt`` and ``tessel-translate`` live in
``tessel/_mlir_libs`` next to the Python extensions (so their RPATH reaches
libLLVM.so in the same site-packages); the console scripts of the same names
exec them.
"""

import os
import sys
from pathlib import Path


def tool_path(name: str) -> Path:
    """Path of a native tool built with the package, e.g. ``tessel-opt``."""
    # Not resolve(): in the build tree this file is a symlink into the sources.
    path = Path(os.path.abspath(__file__)).parent / "_mlir_libs" / name
    if not path.is_file():
        raise FileNotFoundError(
            f"{name} is not part of this installation of tessel (looked for "
            f"{path}); rebuild it with `make setup` or `pip install .`")
    return path


def _exec(name: str) -> None:
    """Replaces this process with the native tool ``name``."""
    try:
        path = tool_path(name)
    except FileNotFoundError as e:
        sys.exit(f"error: {e}")
    os.execv(path, [str(path), *sys.argv[1:]])


def tessel_opt() -> None:
    """Console script: replaces this process with the tessel-opt binary."""
    _exec("tessel-opt")


def tessel_translate() -> None:
    """Console script: replaces this process with the tessel-translate
    binary."""
    _exec("tessel-translate")
