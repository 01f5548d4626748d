"""Where in the user's model a lowering failure lies, and what to do.

The imported IR keeps each op's Python call stack as an MLIR location
(``callsite("torch/nn/modules/sparse.py":189:0 at callsite("net.py":37:0
at ...))``). A failure names the op and that chain; this module picks the
frames a person reads: the innermost one in the user's own code (neither in
PyTorch nor in Tessel), and the PyTorch module it happened inside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_ERROR = re.compile(r"error: (.*?): ('[^']+' op .*)$", re.MULTILINE)
_FRAME = re.compile(r'"([^"]+)":(\d+):\d+')
_TESSEL = str(Path(__file__).resolve().parents[1])

ADVICE = ("Tessel cannot compile this op yet: docs/coverage.md lists the ops "
          "that compile and why the others do not. Rewrite that line with ops "
          "that compile, or report the op with this message.")


@dataclass(frozen=True)
class Failure:
    message: str                 # "'arith.index_cast' op has no ..."
    user_frame: str | None       # "net.py:37", the innermost frame of the user's
    library_frame: str | None    # "torch/nn/modules/sparse.py:189"

    def headline(self) -> str:
        where = self.user_frame or self.library_frame
        inside = (f" (inside {self.library_frame})"
                  if self.user_frame and self.library_frame else "")
        return (f"{where}{inside}: {self.message}" if where else self.message)


def _is_library(path: str) -> bool:
    return "/site-packages/" in path or "/torch/" in path


def _is_tessel(path: str) -> bool:
    return str(Path(path).resolve()).startswith(_TESSEL)


def _short(path: str, line: str) -> str:
    parts = Path(path).parts
    if "site-packages" in parts:  # torch/nn/modules/sparse.py, not the venv
        parts = parts[parts.index("site-packages") + 1:]
    return f"{Path(*parts)}:{line}"


def parse(text: str) -> Failure | None:
    """The first error in a pass pipeline's diagnostics, or None."""
    found = _ERROR.search(text)
    if not found:
        return None
    location, message = found.groups()
    user = library = None
    for path, line in _FRAME.findall(location):
        if _is_tessel(path):
            continue
        if _is_library(path):
            library = library or _short(path, line)
        elif user is None:
            user = f"{path}:{line}"
    return Failure(message.strip(), user, library)
