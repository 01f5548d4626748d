"""Compiled programs (docs/isa.md): the in-memory :class:`Program`, its parts
(DRAM buffers, tile streams, tags), its manifest and its writer.

A program is a directory::

    manifest.json        arch, tiles, DRAM layout, tags
    dram.bin             the initial DRAM image
    tiles/r<R>c<C>.bin   one instruction stream per tile that runs code

The rest of the format lives beside this module, one job each, each
importing this one (and this one them only inside the methods that hand
over to them):

- ``validation``: every rule of docs/isa.md that holds without running the
  program (:meth:`Program.validate`);
- ``loader``: :func:`~.loader.load_program`, reading a directory with its
  digests checked, then validating it;
- ``builder``: :class:`~.builder.ProgramBuilder`, a program from Python
  calls, validated as it is built.

A violation raises :class:`ProgramError` naming the file, the field or
instruction offset, and the problem.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import InvalidArgumentError, TesselError, UnknownNameError
from .. import arch as arch_model
from . import isa
from .isa import Instruction


MANIFEST = "manifest.json"
BUFFER_KINDS = ("input", "output", "weight", "scratch", "constant")
# DRAM offsets the builder assigns are multiples of this.
DRAM_ALIGNMENT = 64




class ProgramError(TesselError, ValueError):
    """A malformed program, or one that breaks a rule of docs/isa.md.

    ``file`` is the program file at fault (``manifest.json``,
    ``tiles/r0c0.bin``, ...), ``field`` the manifest field or instruction
    operand, ``offset`` the byte offset of the instruction in its stream."""

    def __init__(self, message: str, *, file: str | None = None,
                 field: str | None = None, offset: int | None = None):
        self.problem = message
        self.file = file
        self.field = field
        self.offset = offset
        where = []
        if file:
            where.append(file)
        if offset is not None:
            where.append(f"offset {offset}")
        if field:
            where.append(field)
        super().__init__(": ".join(where + [message]) if where else message)


# ---------------------------------------------------------------------------
# The parts of a program.
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Buffer:
    """An array in DRAM: row-major, dense, at ``offset``."""

    name: str
    kind: str
    offset: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.size * isa.DTYPE_SIZE[self.dtype]

    @property
    def strides(self) -> tuple[int, ...]:
        """Row-major strides in elements, for views of the whole buffer."""
        out, step = [], 1
        for s in reversed(self.shape):
            out.append(step)
            step *= s
        return tuple(reversed(out))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "offset": self.offset,
                "shape": list(self.shape), "dtype": self.dtype}


@dataclass(frozen=True)
class TileProgram:
    """The code of one tile: its stream file's bytes and initial state."""

    row: int
    col: int
    stream: bytes
    semaphores: tuple[int, ...] = ()
    tokens: int = 0

    @property
    def path(self) -> str:
        return stream_path(self.row, self.col)


@dataclass(frozen=True)
class Tag:
    """The source op of instructions, for per-layer reports."""

    id: int
    name: str
    op: str = ""
    loc: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "op": self.op, "loc": self.loc}


def stream_buffer_name(name: str, index: int, stream: int) -> str:
    """The DRAM buffer of model input or output ``name`` for input ``index``
    of a program compiled for a stream of ``stream`` inputs: ``name[index]``
    (``name`` itself when the stream has one input)."""
    return name if stream == 1 else f"{name}[{index}]"


def stream_path(row: int, col: int) -> str:
    return f"tiles/r{row}c{col}.bin"


# ---------------------------------------------------------------------------
# The program.
# ---------------------------------------------------------------------------

@dataclass
class Program:
    """A compiled program in memory. Build one with :class:`ProgramBuilder` or
    :func:`load_program`; :meth:`validate` checks it against docs/isa.md."""

    arch: arch_model.Arch
    dram_bytes: int
    buffers: list[Buffer]
    inputs: list[str]
    outputs: list[str]
    tiles: list[TileProgram]
    tags: list[Tag] = field(default_factory=list)
    dram_image: bytes = b""
    _decoded: dict | None = field(default=None, repr=False, compare=False)

    # ---- lookups ---------------------------------------------------------

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise UnknownNameError(f"program has no DRAM buffer {name!r} (its buffers: "
                               f"{', '.join(b.name for b in self.buffers) or 'none'})")

    def tile(self, row: int, col: int) -> TileProgram:
        for t in self.tiles:
            if (t.row, t.col) == (row, col):
                return t
        raise UnknownNameError(f"tile ({row}, {col}) runs no code in this program (the "
                               f"tiles that do: "
                               f"{', '.join(f'({t.row}, {t.col})' for t in self.tiles) or 'none'})")

    def tag(self, tag: int | None) -> Tag | None:
        """The tag of id ``tag`` (None for None or an id not listed)."""
        if tag is None:
            return None
        for t in self.tags:
            if t.id == tag:
                return t
        return None

    def tag_name(self, tag: int | None) -> str | None:
        found = self.tag(tag)
        return found.name if found else None

    def source_of(self, tag: int | None) -> str:
        """`` (the OP 'NAME' at LOC)``, the source op of an instruction
        tagged ``tag`` for messages, or '' when untagged."""
        found = self.tag(tag)
        if found is None:
            return ""
        return (f" (the {found.op or 'op'} '{found.name}'"
                + (f" at {found.loc})" if found.loc else ")"))

    def instructions(self, row: int, col: int) -> list[Instruction]:
        """The decoded, validated instructions of tile ``(row, col)``."""
        return self.decoded()[(row, col)]

    def decoded(self) -> dict[tuple[int, int], list[Instruction]]:
        """Every tile's decoded instructions; validates on first use."""
        if self._decoded is None:
            self.validate()
        assert self._decoded is not None
        return self._decoded

    @property
    def num_instructions(self) -> int:
        return sum(len(v) for v in self.decoded().values())

    # ---- running ---------------------------------------------------------

    def emulate(self, inputs: Mapping[str, Any] | None = None, *,
                device: str = "cuda"):
        """Run on the emulation target (``"cuda"`` or ``"cpu"``): the
        simulator's output bits without its timing model. See
        :func:`tessel.runtime.emulator.emulate` and docs/gpu-emulation.md."""
        from .emulator import emulate
        return emulate(self, inputs, device=device)

    def simulate(self, inputs: Mapping[str, Any] | Sequence[Any] | None = None,
                 *, numerics: bool = True, trace: bool = False):
        """Run on the cycle-approximate simulator. ``inputs`` maps input
        names to arrays, or lists them in the order of :attr:`inputs`. See
        :func:`tessel.runtime.simulator.simulate`."""
        from .simulator import simulate
        if inputs is not None and not isinstance(inputs, Mapping):
            inputs = list(inputs)
            if len(inputs) != len(self.inputs):
                raise InvalidArgumentError(
                    f"{len(inputs)} inputs given, the program takes {len(self.inputs)}: "
                    f"{', '.join(self.inputs) or 'none'}; pass one array per input, in "
                    f"that order, or a dict by name")
            inputs = dict(zip(self.inputs, inputs))
        return simulate(self, inputs, numerics=numerics, trace=trace)

    # ---- the manifest ----------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        """The manifest, with the SHA-256 of every file beside it and of
        its own content (:func:`manifest_digest`), which the loader checks:
        a corrupted or truncated file is an error, never a wrong answer."""
        files = {"dram.bin": self.dram_image,
                 **{t.path: t.stream for t in self.tiles}}
        m = {
            "format": isa.FORMAT,
            "version": isa.VERSION,
            "arch": self.arch.to_dict(),
            "dram": {
                "bytes": self.dram_bytes,
                "image": "dram.bin",
                "buffers": [b.to_dict() for b in self.buffers],
            },
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "tiles": [{"row": t.row, "col": t.col, "stream": t.path,
                       "instructions": stream_instruction_count(t.stream),
                       "semaphores": list(t.semaphores), "tokens": t.tokens}
                      for t in self.tiles],
            "tags": [t.to_dict() for t in self.tags],
            "sha256": {rel: hashlib.sha256(data).hexdigest()
                       for rel, data in files.items()},
        }
        m["manifest_sha256"] = manifest_digest(m)
        return m

    # ---- writing ---------------------------------------------------------

    def save(self, directory: str | os.PathLike) -> Path:
        """Write the program directory atomically: everything goes to a fresh
        temporary sibling (``tempfile.mkdtemp``) that is renamed into place.
        An existing program there is replaced: it is renamed away into
        another fresh sibling, the new one renamed in, and the old one removed
        (if renaming the new one in fails, the old one is put back). Readers
        see the old program or the new one, never a mixture. A path that is
        a file, or a non-empty directory without a ``manifest.json``, is not
        replaced (``FileExistsError``)."""
        target = Path(directory)
        parent = target.parent
        parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            if not target.is_dir() or target.is_symlink():
                raise FileExistsError(f"{target} exists and is not a program "
                                      "directory")
            if not (target / MANIFEST).exists() and any(target.iterdir()):
                raise FileExistsError(f"{target} is a non-empty directory without "
                                      f"a {MANIFEST}: not replacing it")
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new.", dir=parent))
        graveyard = None
        try:
            (tmp / "tiles").mkdir()
            (tmp / MANIFEST).write_text(json.dumps(self.manifest(), indent=1) + "\n")
            (tmp / "dram.bin").write_bytes(self.dram_image)
            for t in self.tiles:
                (tmp / t.path).write_bytes(t.stream)
            if target.exists():
                graveyard = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.",
                                                  dir=parent))
                old = graveyard / target.name
                os.rename(target, old)
                try:
                    os.rename(tmp, target)
                except BaseException:
                    if not target.exists():
                        os.rename(old, target)
                    raise
            else:
                os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if graveyard is not None and not any(graveyard.iterdir()):
                graveyard.rmdir()
            raise
        if graveyard is not None:
            shutil.rmtree(graveyard, ignore_errors=True)
        return target

    # ---- validation ------------------------------------------------------

    def validate(self) -> None:
        """Check every rule of docs/isa.md that holds without running the
        program; raise :class:`ProgramError` at the first violation
        (runtime/validation.py)."""
        from .validation import validate
        validate(self)


def stream_instruction_count(stream: bytes) -> int:
    """The instruction count a stream's header states (0 without one)."""
    if len(stream) < isa.HEADER_BYTES:
        return 0
    return int.from_bytes(stream[8:12], "little")




def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """The SHA-256 of a manifest's content: its canonical JSON (keys sorted,
    no spaces) without the ``manifest_sha256`` entry itself."""
    content = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_int(v: Any) -> bool:
    """An integer and not a bool, as a JSON integer field must be."""
    return isinstance(v, int) and not isinstance(v, bool)
