"""Where an imported op came from: the model's own source line, read from
the MLIR location torch-mlir attaches (a call-site stack of frames, names,
fused locations). The program's tags (per-layer reports), the mapper's
tables and the emitter all name ops by it. Reads location objects only;
imports nothing.
"""

from __future__ import annotations


# Frames of library code (PyTorch's modules, the frontend process's own
# entry), which a per-layer report should look past to the model's line.
_LIBRARY_PATHS = ("/site-packages/", "/dist-packages/", "tessel/frontend/_worker.py")


def _call_frames(loc) -> list:
    """The frames of a call-site location, innermost (the callee) first."""
    if loc.is_a_callsite():
        return _call_frames(loc.callee) + _call_frames(loc.caller)
    return [loc]


def describe_location(loc) -> tuple[str, str] | None:
    """``(name, "file:line:col")`` of a location for a tag, or ``None`` for
    an unknown one. A ``NameLoc`` gives its name; otherwise the name is the
    position itself. Fused locations take the first name and the first
    position among their parts. A call site (torch-mlir's stack of frames)
    takes its innermost frame outside library code, the line of the model
    that made the op, else its innermost frame."""
    if loc.is_a_name():
        child = describe_location(loc.child_loc)
        return loc.name_str, child[1] if child else ""
    if loc.is_a_file():
        text = f"{loc.filename}:{loc.start_line}:{loc.start_col}"
        return text, text
    if loc.is_a_callsite():
        frames = [d for d in map(describe_location, _call_frames(loc)) if d]
        own = [d for d in frames
               if not any(part in d[1] for part in _LIBRARY_PATHS)]
        return (own or frames or [None])[0]
    if loc.is_a_fused():
        parts = [p for p in map(describe_location, loc.locations) if p]
        if not parts:
            return None
        names = [l.name_str for l in loc.locations if l.is_a_name()]
        places = [place for _, place in parts if place] + [""]
        return (names[0] if names else parts[0][0]), places[0]
    return None
