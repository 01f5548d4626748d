"""Building a program from Python (docs/isa.md)::

    from tessel.runtime.builder import ProgramBuilder, dram, sram

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
    again = load_program("out/prog")   # tessel.runtime.loader
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InvalidArgumentError
from .. import arch as arch_model
from . import isa
from .isa import Endpoint, View
from .program import (BUFFER_KINDS, DRAM_ALIGNMENT, Buffer, Program, Tag,
                      TileProgram)
from .validation import validate


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

    def dma_wait_semaphore(self, channel: int, semaphore: int, count: int = 1, *,
                           tag: int | None = None) -> int:
        """Have DMA channel ``channel`` start the transfers issued to it after
        this only once this tile's semaphore holds ``count``, and take it;
        the tile itself goes on at once."""
        return self._emit("dma_wait_semaphore", tag, channel=channel,
                          semaphore=semaphore, count=count)

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
        validate(program, {rc: list(s._instructions)
                           for rc, s in self._tiles.items()})
        return program
