"""Compiled programs (docs/isa.md): the in-memory :class:`Program`, its writer
and loader, its validation, and :class:`ProgramBuilder` to build one from
Python.

A program is a directory::

    manifest.json        arch, tiles, DRAM layout, tags
    dram.bin             the initial DRAM image
    tiles/r<R>c<C>.bin   one instruction stream per tile that runs code

Building one::

    from tessel.runtime.program import ProgramBuilder, dram, sram

    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (16, 16), "f32")
    y = b.add_buffer("y", "output", (16, 16), "f32")
    fc = b.add_tag("fc1", op="linalg.matmul", loc="model.py:12:0")
    t = b.tile(0, 0, semaphores=1, tokens=2)
    t.dma(0, 0, "f32", (16, 16), src=dram(x.offset, (16, 1)),
          dst=sram(0, (16, 1)), tag=fc)
    t.wait(0)
    ...
    program = b.build()          # validated; raises ProgramError
    program.save("out/prog")     # atomic
    again = load_program("out/prog")

Every rule of docs/isa.md that can be checked without running the program is
checked by :meth:`Program.validate` (run by :func:`load_program`, on the
decoded streams) and by :meth:`ProgramBuilder.build` (the same checks, on the
instructions it encoded); a violation raises :class:`ProgramError` naming the
file, the field or instruction offset, and the problem.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import InvalidArgumentError, TesselError, UnknownNameError
from .. import arch as arch_model
from . import isa
from .isa import Endpoint, Instruction, View

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
                       "instructions": _stream_count(t.stream),
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
        program; raise :class:`ProgramError` at the first violation."""
        _Validator(self).run()


def _stream_count(stream: bytes) -> int:
    if len(stream) < isa.HEADER_BYTES:
        return 0
    return int.from_bytes(stream[8:12], "little")


# ---------------------------------------------------------------------------
# Validation.
# ---------------------------------------------------------------------------

def view_extent(view: View, sizes: Sequence[int], itemsize: int) -> tuple[int, int]:
    """The bytes ``[lo, hi)`` a view of ``sizes`` can touch."""
    lo = hi = 0
    for n, s in zip(sizes, view.strides):
        step = (n - 1) * s
        if step < 0:
            lo += step
        else:
            hi += step
    return view.base + lo * itemsize, view.base + hi * itemsize + itemsize


def is_injective(view: View, sizes: Sequence[int]) -> bool:
    """Whether the view addresses every element at most once, by the rule of
    docs/isa.md: ordered by |stride|, each stride exceeds the span of the
    dimensions before it."""
    dims = sorted((abs(s), n) for s, n in zip(view.strides, sizes) if n > 1)
    span = 0
    for s, n in dims:
        if s <= span:
            return False
        span += s * (n - 1)
    return True


def _element_bytes(view: View, sizes: Sequence[int], itemsize: int) -> np.ndarray:
    addr = np.full((), view.base, dtype=np.int64)
    for n, s in zip(sizes, view.strides):
        addr = addr[..., None] + np.arange(n, dtype=np.int64) * (s * itemsize)
    return (addr.reshape(-1)[:, None] + np.arange(itemsize)).reshape(-1)


def views_overlap(a: View, a_sizes: Sequence[int], a_item: int,
                  b: View, b_sizes: Sequence[int], b_item: int) -> bool:
    """True when two views share a byte."""
    alo, ahi = view_extent(a, a_sizes, a_item)
    blo, bhi = view_extent(b, b_sizes, b_item)
    if ahi <= blo or bhi <= alo:
        return False
    return bool(np.intersect1d(_element_bytes(a, a_sizes, a_item),
                               _element_bytes(b, b_sizes, b_item)).size)


def views_conflict(a: View, a_sizes: Sequence[int], a_item: int,
                   b: View, b_sizes: Sequence[int], b_item: int) -> bool:
    """True when two views share a byte without being the same view (same
    base, strides, sizes and element size): a partial overlap."""
    if (a.base == b.base and tuple(a.strides) == tuple(b.strides)
            and tuple(a_sizes) == tuple(b_sizes) and a_item == b_item):
        return False
    return views_overlap(a, a_sizes, a_item, b, b_sizes, b_item)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Validator:
    def __init__(self, program: Program):
        self.p = program
        self.arch = program.arch
        # Compute instructions that passed their checks, by operands.
        self.checked: set[tuple] = set()

    def fail(self, message: str, *, file: str = MANIFEST, field: str | None = None,
             offset: int | None = None) -> None:
        raise ProgramError(message, file=file, field=field, offset=offset)

    def run(self, built: Mapping[tuple[int, int], list[Instruction]] | None = None
            ) -> None:
        """Validate the program; its instructions are decoded from the
        streams, or, for a program just built, taken from ``built`` (each
        tile's instructions as :func:`isa.encode_instruction` gave them,
        equal to what decoding gives). Both go through the same checks."""
        p, a = self.p, self.arch
        if not _is_int(p.dram_bytes) or p.dram_bytes < 0:
            self.fail(f"must be a non-negative integer, got {p.dram_bytes!r}",
                      field="dram.bytes")
        if p.dram_bytes > a.dram.capacity_bytes:
            self.fail(f"{p.dram_bytes} bytes exceed the arch's DRAM capacity "
                      f"({a.dram.capacity_bytes})", field="dram.bytes")
        if len(p.dram_image) > p.dram_bytes:
            self.fail(f"the image has {len(p.dram_image)} bytes, more than "
                      f"dram.bytes = {p.dram_bytes}", field="dram.image")
        self.check_buffers()
        self.check_tiles_and_tags()
        decoded = {}
        for t in p.tiles:
            try:
                if built is None:
                    instrs = isa.decode_stream(t.stream)
                else:
                    instrs = built[(t.row, t.col)]
                    # The one rule of decoding that encoding leaves out.
                    for ins in instrs:
                        if "sizes" in ins.fields:
                            isa.check_rank(ins.op, len(ins["sizes"]), ins.offset)
            except isa.DecodeError as e:
                raise ProgramError(str(e), file=t.path, offset=e.offset) from None
            for ins in instrs:
                self.check_instruction(t, ins)
            decoded[(t.row, t.col)] = instrs
        p._decoded = decoded

    def check_buffers(self) -> None:
        p = self.p
        names = set()
        for i, b in enumerate(p.buffers):
            f = f"dram.buffers[{i}]"
            if not isinstance(b.name, str) or not b.name:
                self.fail("name must be a non-empty string", field=f"{f}.name")
            if b.name in names:
                self.fail(f"buffer name {b.name!r} is used twice", field=f"{f}.name")
            names.add(b.name)
            if b.kind not in BUFFER_KINDS:
                self.fail(f"kind {b.kind!r} is not one of {', '.join(BUFFER_KINDS)}",
                          field=f"{f}.kind")
            if b.dtype not in isa.DTYPES:
                self.fail(f"dtype {b.dtype!r} is not one of {', '.join(isa.DTYPES)}",
                          field=f"{f}.dtype")
            if not _is_int(b.offset) or b.offset < 0:
                self.fail(f"offset must be a non-negative integer, got {b.offset!r}",
                          field=f"{f}.offset")
            if b.offset % isa.DTYPE_SIZE[b.dtype]:
                self.fail(f"offset {b.offset} is not a multiple of the element "
                          f"size of {b.dtype}", field=f"{f}.offset")
            if not all(_is_int(s) and s >= 0 for s in b.shape):
                self.fail(f"shape {list(b.shape)} must hold non-negative integers",
                          field=f"{f}.shape")
            if b.offset + b.nbytes > p.dram_bytes:
                self.fail(f"buffer {b.name!r} ([{b.offset}, {b.offset + b.nbytes})) "
                          f"does not fit dram.bytes = {p.dram_bytes}", field=f)
        spans = sorted((b.offset, b.offset + b.nbytes, b.name)
                       for b in p.buffers if b.nbytes)
        for (lo1, hi1, n1), (lo2, hi2, n2) in zip(spans, spans[1:]):
            if lo2 < hi1:
                self.fail(f"buffers {n1!r} ([{lo1}, {hi1})) and {n2!r} "
                          f"([{lo2}, {hi2})) overlap", field="dram.buffers")
        for key, kind in (("inputs", "input"), ("outputs", "output")):
            listed = getattr(p, key)
            if len(set(listed)) != len(listed):
                self.fail("a name is listed twice", field=key)
            for name in listed:
                match = [b for b in p.buffers if b.name == name]
                if not match:
                    self.fail(f"{name!r} is not a DRAM buffer", field=key)
                if match[0].kind != kind:
                    self.fail(f"{name!r} has kind {match[0].kind!r}, not {kind!r}",
                              field=key)
            for b in p.buffers:
                if b.kind == kind and b.name not in listed:
                    self.fail(f"buffer {b.name!r} of kind {kind!r} is not listed",
                              field=key)

    def check_tiles_and_tags(self) -> None:
        p, g = self.p, self.arch.grid
        seen = set()
        self.tiles = {}
        for i, t in enumerate(p.tiles):
            f = f"tiles[{i}]"
            if not (_is_int(t.row) and _is_int(t.col)
                    and 0 <= t.row < g.rows and 0 <= t.col < g.cols):
                self.fail(f"tile ({t.row}, {t.col}) lies outside the "
                          f"{g.rows}x{g.cols} grid", field=f)
            if (t.row, t.col) in seen:
                self.fail(f"tile ({t.row}, {t.col}) is listed twice", field=f)
            seen.add((t.row, t.col))
            if not all(_is_int(s) and 0 <= s <= 0xFFFFFFFF for s in t.semaphores):
                self.fail("initial counts must be integers in [0, 2^32)",
                          field=f"{f}.semaphores")
            if not _is_int(t.tokens) or t.tokens < 0:
                self.fail(f"must be a non-negative integer, got {t.tokens!r}",
                          field=f"{f}.tokens")
            self.tiles[(t.row, t.col)] = t
        ids = set()
        for i, t in enumerate(p.tags):
            if not _is_int(t.id) or not 0 <= t.id < isa.NO_TAG:
                self.fail(f"id {t.id!r} must be an integer in [0, {isa.NO_TAG})",
                          field=f"tags[{i}].id")
            if t.id in ids:
                self.fail(f"tag id {t.id} is used twice", field=f"tags[{i}].id")
            ids.add(t.id)
        self.tag_ids = ids

    # ---- one instruction -------------------------------------------------

    def check_instruction(self, tile: TileProgram, ins: Instruction) -> None:
        def fail(msg: str, fld: str | None = None) -> None:
            raise ProgramError(f"{ins.op}: {msg}", file=tile.path, offset=ins.offset,
                               field=fld)

        a, f = self.arch, ins.fields
        if ins.tag is not None and ins.tag not in self.tag_ids:
            fail(f"tag {ins.tag} is not in the manifest's tags")
        op = ins.op
        if op == "dma":
            self.check_dma(tile, ins, fail)
        elif op == "dma_multicast":
            self.check_multicast(tile, ins, fail)
        elif op == "dma_gather":
            self.check_gather(tile, ins, fail)
        elif op == "wait":
            for tok in f["tokens"]:
                if tok >= tile.tokens:
                    fail(f"token {tok} is not below the tile's {tile.tokens} "
                         "token slots", "tokens")
        elif op == "signal":
            target = self.tiles.get((f["row"], f["col"]))
            if target is None:
                fail(f"tile ({f['row']}, {f['col']}) runs no code in this "
                     "program, so it has no semaphores")
            if f["semaphore"] >= len(target.semaphores):
                fail(f"semaphore {f['semaphore']} does not exist: tile "
                     f"({f['row']}, {f['col']}) has {len(target.semaphores)}",
                     "semaphore")
        elif op == "wait_semaphore":
            if f["semaphore"] >= len(tile.semaphores):
                fail(f"semaphore {f['semaphore']} does not exist: the tile has "
                     f"{len(tile.semaphores)}", "semaphore")
        else:
            # A compute instruction's rules involve only its operands and the
            # arch, and the same instruction recurs across tiles and loop
            # iterations (BERT: 828 distinct matmuls of 49,920): check each
            # distinct one once.
            key = (op, tuple(f.items()))
            if key in self.checked:
                return
            if op in isa.MATMUL_OPS:
                self.check_matmul(ins, fail)
            else:
                self.check_vector(ins, fail)
            self.checked.add(key)

    def check_view(self, view: View, sizes: Sequence[int], dtype: str,
                   limit: int, where: str, fail, *, written: bool) -> None:
        item = isa.DTYPE_SIZE[dtype]
        if view.base % item:
            fail(f"base {view.base} is not a multiple of the {item}-byte "
                 f"element size of {dtype}", where)
        lo, hi = view_extent(view, sizes, item)
        if lo < 0 or hi > limit:
            fail(f"view reaches bytes [{lo}, {hi}), outside [0, {limit}) "
                 f"(sizes {list(sizes)}, strides {list(view.strides)})", where)
        if written and not is_injective(view, sizes):
            fail(f"the written view (sizes {list(sizes)}, strides "
                 f"{list(view.strides)}) addresses an element twice", where)

    def check_sizes(self, sizes: Sequence[int], fail) -> None:
        if any(s < 1 for s in sizes):
            fail(f"sizes {list(sizes)} must all be at least 1", "sizes")

    def check_slots(self, tile: TileProgram, f: Mapping[str, Any], fail) -> None:
        """The DMA channel and token slot of a transfer."""
        a = self.arch
        if f["channel"] >= a.tile.dma.channels:
            fail(f"channel {f['channel']} is not below the arch's "
                 f"{a.tile.dma.channels} DMA channels", "channel")
        if f["token"] >= tile.tokens:
            fail(f"token {f['token']} is not below the tile's {tile.tokens} "
                 "token slots", "token")

    def endpoint_limit(self, ep: Endpoint, name: str, fail) -> int:
        """The bytes of the memory ``ep`` addresses, once its DRAM row and
        column or its tile are checked."""
        a = self.arch
        if ep.kind == "dram":
            if ep.row or ep.col:
                fail(f"a DRAM endpoint has row = col = 0, got ({ep.row}, "
                     f"{ep.col})", name)
            return self.p.dram_bytes
        if not (ep.row < a.grid.rows and ep.col < a.grid.cols):
            fail(f"tile ({ep.row}, {ep.col}) lies outside the "
                 f"{a.grid.rows}x{a.grid.cols} grid", name)
        return a.tile.sram.bytes

    def check_dma(self, tile: TileProgram, ins: Instruction, fail) -> None:
        f = ins.fields
        self.check_slots(tile, f, fail)
        sizes, dtype = f["sizes"], f["dtype"]
        self.check_sizes(sizes, fail)
        own = ("sram", tile.row, tile.col)
        src, dst = f["src"], f["dst"]
        for name, ep in (("src", src), ("dst", dst)):
            self.check_view(ep.view, sizes, dtype, self.endpoint_limit(ep, name, fail),
                            name, fail, written=name == "dst")
        if (src.kind, src.row, src.col) != own and (dst.kind, dst.row, dst.col) != own:
            fail(f"neither endpoint is the issuing tile ({tile.row}, {tile.col})'s "
                 "SRAM")
        if (src.kind, src.row, src.col) == (dst.kind, dst.row, dst.col):
            item = isa.DTYPE_SIZE[dtype]
            if views_conflict(src.view, sizes, item, dst.view, sizes, item):
                fail("source and destination overlap partially")

    def check_multicast(self, tile: TileProgram, ins: Instruction, fail) -> None:
        f = ins.fields
        self.check_slots(tile, f, fail)
        sizes, dtype = f["sizes"], f["dtype"]
        self.check_sizes(sizes, fail)
        src, dsts = f["src"], f["dsts"]
        if src.kind == "sram" and (src.row, src.col) != (tile.row, tile.col):
            fail(f"the source is DRAM or the issuing tile ({tile.row}, {tile.col})'s "
                 f"SRAM, not tile ({src.row}, {src.col})'s", "src")
        self.check_view(src.view, sizes, dtype, self.endpoint_limit(src, "src", fail),
                        "src", fail, written=False)
        if not dsts:
            fail("n = 0: a multicast needs at least one destination", "dsts")
        item = isa.DTYPE_SIZE[dtype]
        seen: dict[tuple[int, int], int] = {}
        for i, ep in enumerate(dsts):
            name = f"dsts[{i}]"
            limit = self.endpoint_limit(ep, name, fail)
            rc = (ep.row, ep.col)
            if rc in seen:
                fail(f"dsts[{seen[rc]}] and dsts[{i}] are both tile {rc}: a "
                     "multicast writes each tile once", name)
            seen[rc] = i
            self.check_view(ep.view, sizes, dtype, limit, name, fail, written=True)
            # Nothing may touch a transfer's source while it is in flight,
            # the destinations included (not even an exact alias).
            if (src.kind == "sram" and rc == (src.row, src.col)
                    and views_overlap(src.view, sizes, item, ep.view, sizes, item)):
                fail("the destination on the source's tile overlaps the source",
                     name)

    def check_gather(self, tile: TileProgram, ins: Instruction, fail) -> None:
        """A gather's table lies in DRAM for every index in [0, rows); its
        index view and destination in the issuing tile's SRAM, apart."""
        f = ins.fields
        self.check_slots(tile, f, fail)
        sizes, dtype, index_dtype = f["sizes"], f["dtype"], f["index_dtype"]
        self.check_sizes(sizes, fail)
        if index_dtype not in isa.INDEX_DTYPES:
            fail(f"index_dtype {index_dtype} is not one of "
                 f"{', '.join(isa.INDEX_DTYPES)}", "index_dtype")
        if f["rows"] < 1:
            fail("rows = 0: a table has at least one row", "rows")
        if f["wrap"] > 1:
            fail(f"wrap = {f['wrap']} is not 0 or 1", "wrap")
        sram = self.arch.tile.sram.bytes
        self.check_view(f["index"], sizes, index_dtype, sram, "index", fail,
                        written=False)
        self.check_view(f["dst"], sizes, dtype, sram, "dst", fail, written=True)
        item = isa.DTYPE_SIZE[dtype]
        if views_overlap(f["index"], sizes, isa.DTYPE_SIZE[index_dtype], f["dst"],
                         sizes, item):
            fail("the destination overlaps the index view", "dst")
        # The table as a view with one more dimension, the index's: every
        # element any valid index can address.
        table = f["table"]
        reach = View(table.base, table.strides + (f["index_stride"],))
        self.check_view(reach, tuple(sizes) + (f["rows"],), dtype, self.p.dram_bytes,
                        "table", fail, written=False)

    def check_matmul(self, ins: Instruction, fail) -> None:
        a, f = self.arch, ins.fields
        dtype, g, m, k, n = f["dtype"], f["g"], f["m"], f["k"], f["n"]
        mac = a.tile.mac
        if dtype not in mac.macs_per_cycle:
            fail(f"the MAC array does not support {dtype} (it has "
                 f"{', '.join(mac.macs_per_cycle)})", "dtype")
        self.check_sizes((g, m, k, n), fail)
        if mac.dataflow == "weight_stationary":
            if k > mac.rows or n > mac.cols:
                fail(f"a weight-stationary block needs k <= {mac.rows} and "
                     f"n <= {mac.cols}, got k = {k}, n = {n}")
        elif g * m > mac.rows or n > mac.cols:
            fail(f"an output-stationary block needs g * m <= {mac.rows} and "
                 f"n <= {mac.cols}, got g * m = {g * m}, n = {n}")
        acc = isa.acc_dtype(dtype)
        limit = a.tile.sram.bytes
        lhs_sizes, lhs, acc_sizes, acc_view = isa.matmul_rows(f)
        shapes = {"lhs": (lhs_sizes, lhs, dtype), "rhs": ((k, n), f["rhs"], dtype),
                  "acc": (acc_sizes, acc_view, acc)}
        for name, (sizes, view, dt) in shapes.items():
            self.check_view(view, sizes, dt, limit, name, fail,
                            written=name == "acc")
        for name in ("lhs", "rhs"):
            (s1, v1, d1), (s2, v2, d2) = shapes[name], shapes["acc"]
            args = (v1, s1, isa.DTYPE_SIZE[d1], v2, s2, isa.DTYPE_SIZE[d2])
            # The accumulator of a matmul_init starts at zero: an input it
            # aliases would be read as zeros or not, depending on the
            # implementation.
            if ins.op == "matmul_init":
                if views_overlap(*args):
                    fail(f"{name} and acc overlap: matmul_init starts acc at zero")
            elif views_conflict(*args):
                fail(f"{name} and acc overlap partially")

    def check_vector(self, ins: Instruction, fail) -> None:
        a, f, op = self.arch, ins.fields, ins.op
        sizes = f["sizes"]
        self.check_sizes(sizes, fail)
        supported = a.tile.vector.dtypes
        if op == "vector_unary":
            uop, din, dout = f["op"], f["in_dtype"], f["out_dtype"]
            if uop != "cast":
                if din != dout:
                    fail(f"{uop} needs in_dtype = out_dtype, got {din} and {dout}")
                if din not in supported:
                    fail(f"the vector unit does not support {din} (it has "
                         f"{', '.join(supported)})", "in_dtype")
                if din in isa.INT_DTYPES and uop not in isa.INT_UNARY_OPS:
                    fail(f"{uop} is not defined on {din}", "op")
            dtypes = {"in": din, "out": dout}
        else:
            dt = f["dtype"]
            if dt not in supported:
                fail(f"the vector unit does not support {dt} (it has "
                     f"{', '.join(supported)})", "dtype")
            if (op in ("vector_binary", "vector_binary_imm")
                    and dt in isa.INT_DTYPES and f["op"] not in isa.INT_BINARY_OPS):
                fail(f"{f['op']} is not defined on {dt}", "op")
            dtypes = {name: dt for name in isa.READS[op] + (isa.WRITES[op],)}
        if op == "vector_binary_imm" and f["imm_is_lhs"] not in (0, 1):
            fail(f"imm_is_lhs = {f['imm_is_lhs']} must be 0 or 1", "imm_is_lhs")
        out_sizes = sizes
        if op == "vector_reduce":
            if f["dim"] >= len(sizes):
                fail(f"dim {f['dim']} is not below the rank {len(sizes)}", "dim")
            out_sizes = tuple(s for i, s in enumerate(sizes) if i != f["dim"])
        limit = a.tile.sram.bytes
        out = isa.WRITES[op]
        for name in isa.READS[op]:
            self.check_view(f[name], sizes, dtypes[name], limit, name, fail,
                            written=False)
        self.check_view(f[out], out_sizes, dtypes[out], limit, out, fail,
                        written=True)
        oitem = isa.DTYPE_SIZE[dtypes[out]]
        for name in isa.READS[op]:
            if views_conflict(f[name], sizes, isa.DTYPE_SIZE[dtypes[name]],
                              f[out], out_sizes, oitem):
                fail(f"{name} and {out} overlap partially (only an exact alias "
                     "is allowed)")


# ---------------------------------------------------------------------------
# Loading.
# ---------------------------------------------------------------------------

_KIND_NAMES = {int: "an integer", str: "a string", list: "a list",
               dict: "an object"}


def _object(value: Any, where: str, *, file: str = MANIFEST) -> Mapping:
    """``value`` if it is a JSON object; else a ProgramError naming ``where``."""
    if not isinstance(value, Mapping):
        raise ProgramError(f"must be an object, got {value!r}", file=file,
                           field=where)
    return value


def _field(obj: Mapping, key: str, kind, where: str, *, file: str = MANIFEST,
           default: Any = ...):
    """``obj[key]`` checked to be of ``kind`` (``int`` excludes booleans);
    ``where`` is the field path of ``obj`` with a trailing dot. A missing key
    is an error unless a ``default`` is given."""
    if not isinstance(obj, Mapping):
        raise ProgramError(f"must be an object, got {obj!r}", file=file,
                           field=where.rstrip(".") or None)
    if key not in obj:
        if default is not ...:
            return default
        raise ProgramError("is missing", file=file, field=f"{where}{key}")
    value = obj[key]
    ok = _is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        name = _KIND_NAMES.get(kind, getattr(kind, "__name__", str(kind)))
        raise ProgramError(f"must be {name}, got {value!r}", file=file,
                           field=f"{where}{key}")
    return value


def _list_of(obj: Mapping, key: str, kind, where: str, what: str) -> list:
    """``obj[key]`` checked to be a list whose items are all of ``kind``."""
    items = _field(obj, key, list, where)
    for i, item in enumerate(items):
        ok = _is_int(item) if kind is int else isinstance(item, kind)
        if not ok:
            raise ProgramError(f"must be a list of {what}, item {i} is {item!r}",
                               file=MANIFEST, field=f"{where}{key}")
    return items


def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """The SHA-256 of a manifest's content: its canonical JSON (keys sorted,
    no spaces) without the ``manifest_sha256`` entry itself."""
    content = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Digests:
    """The manifest's digests (absent in programs written before they
    were), checked against each file as it is read."""

    def __init__(self, m: Mapping[str, Any]):
        self.files: Mapping[str, Any] = {}
        if "manifest_sha256" not in m and "sha256" not in m:
            return
        if manifest_digest(m) != _field(m, "manifest_sha256", str, ""):
            raise ProgramError("its content does not match its manifest_sha256: the "
                               "manifest is corrupted or was edited; compile the "
                               "program again", file=MANIFEST, field="manifest_sha256")
        self.files = _field(m, "sha256", dict, "")

    def check(self, rel: str, data: bytes, field_name: str) -> None:
        if not self.files:
            return
        want = self.files.get(rel)
        if not isinstance(want, str):
            raise ProgramError(f"has no SHA-256 of {rel!r}", file=MANIFEST,
                               field="sha256")
        if hashlib.sha256(data).hexdigest() != want:
            raise ProgramError(f"its SHA-256 does not match the manifest's "
                               f"(sha256[{rel!r}]): the file is corrupted or "
                               "truncated; compile the program again",
                               file=rel, field=field_name)


def _safe_path(root: Path, rel: str, field_name: str) -> Path:
    p = Path(rel)
    if not rel or p.is_absolute() or ".." in p.parts:
        raise ProgramError(f"path {rel!r} must be relative and inside the program "
                           "directory", file=MANIFEST, field=field_name)
    return root / p


def _read(path: Path, rel: str, field_name: str | None) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise ProgramError(f"cannot read {rel!r}: {e.strerror or e}", file=MANIFEST,
                           field=field_name) from None


def load_program(directory: str | os.PathLike) -> Program:
    """Read and validate a program directory; raises :class:`ProgramError`
    (never another exception for a bad program). Needs no YAML: the arch is
    the manifest's JSON object (``Arch.from_dict``)."""
    root = Path(directory)
    mpath = root / MANIFEST
    if not mpath.is_file():
        raise ProgramError(f"no {MANIFEST} in {root}", file=MANIFEST)
    try:
        m = json.loads(_read(mpath, MANIFEST, None).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ProgramError(f"not valid JSON: {e}", file=MANIFEST) from None
    if not isinstance(m, dict):
        raise ProgramError("must be a JSON object", file=MANIFEST)
    digests = _Digests(m)
    fmt = _field(m, "format", str, "")
    if fmt != isa.FORMAT:
        raise ProgramError(f"format is {fmt!r}, expected {isa.FORMAT!r}",
                           file=MANIFEST, field="format")
    version = _field(m, "version", int, "")
    if version not in isa.SUPPORTED_VERSIONS:
        raise ProgramError(f"program format version {version} is not supported "
                           f"(supported: {', '.join(map(str, isa.SUPPORTED_VERSIONS))})",
                           file=MANIFEST, field="version")
    arch_desc = _field(m, "arch", dict, "")
    try:
        arch = arch_model.Arch.from_dict(arch_desc)
    except arch_model.ArchError as e:
        raise ProgramError(str(e), file=MANIFEST,
                           field=f"arch.{e.field}" if e.field else "arch") from None
    except Exception as e:  # a malformed description the schema let through
        raise ProgramError(f"malformed architecture description: "
                           f"{type(e).__name__}: {e}", file=MANIFEST,
                           field="arch") from None
    d = _field(m, "dram", dict, "")
    dram_bytes = _field(d, "bytes", int, "dram.")
    image_rel = _field(d, "image", str, "dram.")
    image_path = _safe_path(root, image_rel, "dram.image")
    if not image_path.is_file():
        raise ProgramError(f"the DRAM image {image_rel!r} does not exist",
                           file=MANIFEST, field="dram.image")
    buffers = []
    for i, b in enumerate(_field(d, "buffers", list, "dram.")):
        w = f"dram.buffers[{i}]."
        _object(b, w[:-1])
        buffers.append(Buffer(_field(b, "name", str, w), _field(b, "kind", str, w),
                              _field(b, "offset", int, w),
                              tuple(_list_of(b, "shape", int, w, "integers")),
                              _field(b, "dtype", str, w)))
    inputs = _list_of(m, "inputs", str, "", "buffer names")
    outputs = _list_of(m, "outputs", str, "", "buffer names")
    tiles = []
    stream_files: dict[tuple[int, int], str] = {}
    for i, t in enumerate(_field(m, "tiles", list, "")):
        w = f"tiles[{i}]."
        _object(t, w[:-1])
        row, col = _field(t, "row", int, w), _field(t, "col", int, w)
        rel = _field(t, "stream", str, w)
        count = _field(t, "instructions", int, w)
        sems = _list_of(t, "semaphores", int, w, "integers")
        tokens = _field(t, "tokens", int, w)
        path = _safe_path(root, rel, f"{w}stream")
        if not path.is_file():
            raise ProgramError(f"the stream {rel!r} does not exist", file=MANIFEST,
                               field=f"{w}stream")
        stream = _read(path, rel, f"{w}stream")
        digests.check(rel, stream, f"{w}stream")
        if len(stream) >= isa.HEADER_BYTES and stream[:4] == isa.MAGIC:
            have = _stream_count(stream)
            if have != count:
                raise ProgramError(f"says {count} instructions, the stream {rel!r} "
                                   f"header says {have}", file=MANIFEST,
                                   field=f"{w}instructions")
        tiles.append(TileProgram(row, col, stream, tuple(sems), tokens))
        stream_files[(row, col)] = rel
    tags = []
    for i, t in enumerate(_field(m, "tags", list, "", default=[])):
        w = f"tags[{i}]."
        _object(t, w[:-1])
        tags.append(Tag(_field(t, "id", int, w), _field(t, "name", str, w),
                        _field(t, "op", str, w, default=""),
                        _field(t, "loc", str, w, default="")))
    image = _read(image_path, image_rel, "dram.image")
    digests.check(image_rel, image, "dram.image")
    program = Program(arch, dram_bytes, buffers, list(inputs), list(outputs),
                      tiles, tags, image)
    try:
        program.validate()
    except ProgramError as e:
        # Name the stream file as the manifest does.
        if e.file and e.file.startswith("tiles/"):
            for rc, rel in stream_files.items():
                if e.file == stream_path(*rc) and rel != e.file:
                    raise ProgramError(e.problem, file=rel, field=e.field,
                                       offset=e.offset) from None
        raise
    return program


# ---------------------------------------------------------------------------
# Building.
# ---------------------------------------------------------------------------

def sram(base: int, strides: Sequence[int], tile: tuple[int, int] | None = None
         ) -> Endpoint:
    """A DMA endpoint in SRAM: tile ``tile``'s, or (``None``) the issuing
    tile's own."""
    row, col = tile if tile is not None else (-1, -1)
    return Endpoint("sram", row, col, View(int(base), tuple(strides)))


def dram(base: int, strides: Sequence[int]) -> Endpoint:
    """A DMA endpoint in DRAM (``base`` is a DRAM byte address)."""
    return Endpoint("dram", 0, 0, View(int(base), tuple(strides)))


ViewLike = "View | tuple[int, Sequence[int]]"


def _view(v: Any) -> View:
    base, strides = v
    return View(int(base), tuple(map(int, strides)))


def _rows_view(v: Any) -> View:
    """A matmul's ``lhs`` or ``acc``: (group, row, column) strides, the group
    stride 0 where only (row, column) are given."""
    view = _view(v)
    if len(view.strides) == 2:
        return View(view.base, (0,) + view.strides)
    return view


class StreamBuilder:
    """Appends instructions to one tile's stream. Get one from
    :meth:`ProgramBuilder.tile`.

    Views are ``(base, strides)``: an SRAM byte address and one stride per
    dimension in elements (0 broadcasts). The sizes are given once per
    instruction. Dtypes and operation codes are the names of docs/isa.md
    (``"f32"``, ``"exp"``, ``"lt"``). ``tag`` is an id from
    :meth:`ProgramBuilder.add_tag`, or ``None`` to use :attr:`default_tag`.
    Operands are encoded at once (a ``ValueError`` names a bad one); the rules
    that involve the whole program are checked by
    :meth:`ProgramBuilder.build`.
    """

    def __init__(self, row: int, col: int, semaphores: Sequence[int], tokens: int):
        self.row, self.col = row, col
        self.semaphores = list(semaphores)
        self.tokens = tokens
        self.default_tag: int | None = None
        self._words: list[list[int]] = []
        # Each instruction as decoding its words gives it back, for
        # ProgramBuilder.build to validate without decoding the stream.
        self._instructions: list[Instruction] = []
        self._offset = isa.HEADER_BYTES          # of the next instruction

    def __len__(self) -> int:
        return len(self._words)

    def _emit(self, op: str, tag: int | None, /, **fields: Any) -> int:
        words, ins = isa.encode_instruction(
            op, fields, self.default_tag if tag is None else tag, self._offset)
        self._words.append(words)
        self._instructions.append(ins)
        self._offset += 4 * len(words)
        return len(self._words) - 1

    # ---- synchronization and data movement ---------------------------------

    def dma(self, channel: int, token: int, dtype: str, sizes: Sequence[int],
            src: Endpoint, dst: Endpoint, *, tag: int | None = None) -> int:
        """Start copying ``sizes`` elements from ``src`` to ``dst`` (endpoints
        from :func:`sram` / :func:`dram`) on DMA ``channel``; sets ``token``
        pending until the transfer completes. Returns the instruction index."""
        return self._emit("dma", tag, channel=channel, token=token, dtype=dtype,
                          sizes=tuple(sizes), src=self._resolve(src),
                          dst=self._resolve(dst))

    def dma_multicast(self, channel: int, token: int, dtype: str,
                      sizes: Sequence[int], src: Endpoint, dsts: Iterable[Endpoint],
                      *, tag: int | None = None) -> int:
        """Start copying ``sizes`` elements from ``src`` (DRAM, or this tile's
        SRAM) to every endpoint of ``dsts`` (SRAM endpoints from :func:`sram`,
        one per tile, all with the same strides) as one transfer on DMA
        ``channel``: each NoC link of the tree carries the data once.
        ``token`` is pending until every destination holds the data. Returns
        the instruction index."""
        return self._emit("dma_multicast", tag, channel=channel, token=token,
                          dtype=dtype, sizes=tuple(sizes), src=self._resolve(src),
                          dsts=tuple(self._resolve(d) for d in dsts))

    def dma_gather(self, channel: int, token: int, dtype: str, sizes: Sequence[int],
                   table, index_dtype: str, index, index_stride: int, rows: int,
                   dst, *, wrap: bool = False, tag: int | None = None) -> int:
        """Start gathering ``sizes`` elements from DRAM into this tile's SRAM
        on DMA ``channel``: element ``i`` of ``dst`` is element
        ``table(i) + index(i) * index_stride`` of DRAM, where ``table`` is a
        DRAM view, ``index`` an SRAM view of ``index_dtype`` integers, each
        in ``[0, rows)`` (with ``wrap``, ``[-rows, rows)``, a negative one
        counting from the end). Returns the instruction index."""
        return self._emit("dma_gather", tag, channel=channel, token=token,
                          dtype=dtype, sizes=tuple(sizes), index_dtype=index_dtype,
                          index_stride=index_stride, rows=rows, wrap=int(wrap),
                          table=_view(table), index=_view(index), dst=_view(dst))

    def _resolve(self, ep: Endpoint) -> Endpoint:
        """``ep`` (an :class:`Endpoint` or a ``(kind, row, col, view)``
        tuple) with its tile filled in (the issuing tile's for an SRAM
        endpoint made without one) and its view as plain ints."""
        ep = Endpoint._make(ep)
        if ep.kind == "sram" and ep.row < 0:
            return ep._replace(row=self.row, col=self.col)
        return ep._replace(view=_view(ep.view))

    def wait(self, *tokens: int | Iterable[int], tag: int | None = None) -> int:
        """Block until every listed token slot is free: ``wait(0, 1)`` or
        ``wait([0, 1])``."""
        flat: list[int] = []
        for t in tokens:
            flat.extend([t] if isinstance(t, int) else t)
        return self._emit("wait", tag, tokens=tuple(flat))

    def signal(self, row: int, col: int, semaphore: int, count: int = 1, *,
               tag: int | None = None) -> int:
        """Add ``count`` to semaphore ``semaphore`` of tile ``(row, col)``,
        after every transfer this tile started earlier into that tile's SRAM."""
        return self._emit("signal", tag, row=row, col=col, semaphore=semaphore,
                          count=count)

    def wait_semaphore(self, semaphore: int, count: int = 1, *,
                       tag: int | None = None) -> int:
        """Block until this tile's semaphore holds ``count``, then take it."""
        return self._emit("wait_semaphore", tag, semaphore=semaphore, count=count)

    # ---- compute ------------------------------------------------------------

    def matmul(self, dtype: str, m: int, k: int, n: int, lhs, rhs, acc, *,
               g: int = 1, init: bool = False, tag: int | None = None) -> int:
        """``acc[g, m, n] += lhs[g, m, k] @ rhs[k, n]`` (acc is f32, or i32
        for i8): ``g`` groups of ``m`` rows streamed as one; with ``init``
        (``matmul_init``), acc starts at zero instead. ``lhs`` and ``acc``
        have three strides (group, row, column), or two for one group."""
        return self._emit("matmul_init" if init else "matmul", tag, dtype=dtype,
                          g=g, m=m, k=k, n=n, lhs=_rows_view(lhs), rhs=_view(rhs),
                          acc=_rows_view(acc))

    def vector_unary(self, op: str, in_dtype: str, out_dtype: str,
                     sizes: Sequence[int], in_, out, *, tag: int | None = None) -> int:
        """``out = op(in)``; ``out_dtype`` differs from ``in_dtype`` only for
        ``cast``."""
        return self._emit("vector_unary", tag, op=op, in_dtype=in_dtype,
                          out_dtype=out_dtype, sizes=tuple(sizes), **{"in": _view(in_)},
                          out=_view(out))

    def vector_binary(self, op: str, dtype: str, sizes: Sequence[int], lhs, rhs,
                      out, *, tag: int | None = None) -> int:
        """``out = lhs op rhs`` elementwise."""
        return self._emit("vector_binary", tag, op=op, dtype=dtype,
                          sizes=tuple(sizes), lhs=_view(lhs), rhs=_view(rhs),
                          out=_view(out))

    def vector_binary_imm(self, op: str, dtype: str, imm: float,
                          sizes: Sequence[int], in_, out, *, imm_is_lhs: bool = False,
                          tag: int | None = None) -> int:
        """``out = in op imm`` (or ``imm op in`` with ``imm_is_lhs``)."""
        return self._emit("vector_binary_imm", tag, op=op, dtype=dtype, imm=imm,
                          imm_is_lhs=int(bool(imm_is_lhs)), sizes=tuple(sizes),
                          **{"in": _view(in_)}, out=_view(out))

    def vector_reduce(self, op: str, dtype: str, sizes: Sequence[int], dim: int,
                      in_, out, *, tag: int | None = None) -> int:
        """Combine ``in`` along ``dim`` in index order; ``out`` has the rank
        ``len(sizes) - 1`` (its strides omit ``dim``)."""
        return self._emit("vector_reduce", tag, op=op, dtype=dtype,
                          sizes=tuple(sizes), dim=dim, **{"in": _view(in_)},
                          out=_view(out))

    def vector_fill(self, dtype: str, value: float, sizes: Sequence[int], out, *,
                    tag: int | None = None) -> int:
        """Write ``value`` (converted to ``dtype``) everywhere in ``out``."""
        return self._emit("vector_fill", tag, dtype=dtype, value=value,
                          sizes=tuple(sizes), out=_view(out))

    def vector_compare(self, predicate: str, dtype: str, sizes: Sequence[int],
                       lhs, rhs, out, *, tag: int | None = None) -> int:
        """``out = 1 if lhs predicate rhs else 0``, in ``dtype``."""
        return self._emit("vector_compare", tag, predicate=predicate, dtype=dtype,
                          sizes=tuple(sizes), lhs=_view(lhs), rhs=_view(rhs),
                          out=_view(out))

    def vector_select(self, dtype: str, sizes: Sequence[int], cond, lhs, rhs, out,
                      *, tag: int | None = None) -> int:
        """``out = lhs if cond != 0 else rhs``."""
        return self._emit("vector_select", tag, dtype=dtype, sizes=tuple(sizes),
                          cond=_view(cond), lhs=_view(lhs), rhs=_view(rhs),
                          out=_view(out))

    def encode(self) -> bytes:
        return isa.encode_stream(self._words)


class ProgramBuilder:
    """Builds a :class:`Program`: DRAM buffers (with their initial data),
    tags, and one :class:`StreamBuilder` per tile that runs code.

    ``arch`` is an :class:`~tessel.arch.Arch`, its plain form (a dict, as
    ``Arch.to_dict()`` gives and a manifest holds), a preset name or a YAML
    path. Presets and YAML paths need PyYAML; an ``Arch`` or a dict does not.
    The same calls give the same bytes.
    """

    def __init__(self, arch: "arch_model.Arch | Mapping | str | os.PathLike"):
        if isinstance(arch, Mapping):
            arch = arch_model.Arch.from_dict(arch)
        self.arch = arch_model.load(arch)
        self._buffers: list[Buffer] = []
        self._data: dict[str, bytes] = {}
        self._tags: list[Tag] = []
        self._tiles: dict[tuple[int, int], StreamBuilder] = {}
        self._end = 0

    def add_buffer(self, name: str, kind: str, shape: Sequence[int], dtype: str, *,
                   offset: int | None = None, data: Any = None) -> Buffer:
        """Place an array in DRAM. ``offset`` defaults to the next multiple of
        64 after the buffers so far. ``data`` (an array-like, converted to
        ``dtype``; bf16 from a float array by rounding to nearest even) is its
        initial content in the DRAM image — weights have it; inputs are
        written by whoever runs the program."""
        if kind not in BUFFER_KINDS:
            raise InvalidArgumentError(f"buffer kind {kind!r} is not one of {', '.join(BUFFER_KINDS)}")
        if dtype not in isa.DTYPES:
            raise InvalidArgumentError(
                f"dtype {dtype!r} is not one of {', '.join(isa.DTYPES)}")
        if any(b.name == name for b in self._buffers):
            raise InvalidArgumentError(f"buffer {name!r} exists already")
        if offset is None:
            offset = -(-self._end // DRAM_ALIGNMENT) * DRAM_ALIGNMENT
        buf = Buffer(name, kind, int(offset), tuple(int(s) for s in shape), dtype)
        self._buffers.append(buf)
        self._end = max(self._end, buf.offset + buf.nbytes)
        if data is not None:
            from .numerics import to_storage
            raw = to_storage(np.asarray(data), dtype)
            if raw.size != buf.size:
                raise InvalidArgumentError(f"buffer {name!r}: data has {raw.size} "
                                           f"elements, the shape {list(buf.shape)} has "
                                           f"{buf.size}")
            self._data[name] = raw.tobytes()
        return buf

    def add_tag(self, name: str, op: str = "", loc: str = "") -> int:
        """A new tag for per-layer reports; returns its id."""
        tag = Tag(len(self._tags), name, op, loc)
        self._tags.append(tag)
        return tag.id

    def tile(self, row: int, col: int, *, semaphores: int | Sequence[int] = 0,
             tokens: int = 0) -> StreamBuilder:
        """The stream of tile ``(row, col)``, created on first call.
        ``semaphores`` is the initial count of each semaphore (an int ``n``
        means ``n`` semaphores starting at 0); ``tokens`` the number of DMA
        token slots. Later calls return the same builder (and may raise the
        counts)."""
        sems = [0] * semaphores if isinstance(semaphores, int) else list(semaphores)
        s = self._tiles.get((row, col))
        if s is None:
            s = self._tiles[(row, col)] = StreamBuilder(row, col, sems, tokens)
        else:
            if len(sems) > len(s.semaphores):
                s.semaphores += sems[len(s.semaphores):]
            s.tokens = max(s.tokens, tokens)
        return s

    def build(self, *, dram_bytes: int | None = None) -> Program:
        """The validated program (raises :class:`ProgramError`).
        ``dram_bytes`` defaults to the end of the last buffer, rounded up to
        64."""
        if dram_bytes is None:
            dram_bytes = -(-self._end // DRAM_ALIGNMENT) * DRAM_ALIGNMENT
        image = bytearray()
        for b in sorted(self._buffers, key=lambda b: b.offset):
            data = self._data.get(b.name)
            if data is None:
                continue
            if len(image) < b.offset:
                image.extend(bytes(b.offset - len(image)))
            image[b.offset:b.offset + len(data)] = data
        kinds = {b.name: b.kind for b in self._buffers}
        program = Program(
            arch=self.arch, dram_bytes=dram_bytes, buffers=list(self._buffers),
            inputs=[n for n, k in kinds.items() if k == "input"],
            outputs=[n for n, k in kinds.items() if k == "output"],
            tiles=[TileProgram(r, c, s.encode(), tuple(s.semaphores), s.tokens)
                   for (r, c), s in sorted(self._tiles.items())],
            tags=list(self._tags), dram_image=bytes(image))
        # The streams were encoded from these instructions just now: validate
        # them as they are rather than decode the streams again.
        _Validator(program).run({rc: list(s._instructions)
                                 for rc, s in self._tiles.items()})
        return program
