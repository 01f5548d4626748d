"""The checks of a program against docs/isa.md that hold without running
it: the DRAM layout, the tiles and tags, and every instruction's fields,
views, DMA slots and semaphores. :meth:`Program.validate` runs them on the
decoded streams (the loader does, on every program it reads), and
:meth:`ProgramBuilder.build` on the instructions it encoded.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from . import isa
from .isa import Endpoint, Instruction, View
from .program import BUFFER_KINDS, MANIFEST, Program, ProgramError, TileProgram, is_int


def validate(program: Program,
             built: Mapping[tuple[int, int], list[Instruction]] | None = None) -> None:
    """Raise :class:`ProgramError` at the first rule ``program`` breaks. Its
    instructions are decoded from the streams (and kept: ``decoded()``), or,
    for a program just built, taken from ``built``."""
    _Validator(program).run(built)



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


class _Validator:
    def __init__(self, program: Program):
        self.p = program
        self.arch = program.arch
        # Compute instructions that passed their checks, by operands, and
        # the ``fields`` mappings of those decoded (which the decoder shares
        # between instructions of the same operand words) by identity: a
        # check of a recurring instruction is then one lookup. The mappings
        # are kept, so that no identity is reused while validating.
        self.checked: set[tuple] = set()
        self.checked_fields: dict[tuple[str, int], Mapping[str, Any]] = {}

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
        if not is_int(p.dram_bytes) or p.dram_bytes < 0:
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
        known: dict = {}  # the fields of the instructions decoded so far
        for t in p.tiles:
            try:
                if built is None:
                    instrs = isa.decode_stream(t.stream, known)
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
            if not is_int(b.offset) or b.offset < 0:
                self.fail(f"offset must be a non-negative integer, got {b.offset!r}",
                          field=f"{f}.offset")
            if b.offset % isa.DTYPE_SIZE[b.dtype]:
                self.fail(f"offset {b.offset} is not a multiple of the element "
                          f"size of {b.dtype}", field=f"{f}.offset")
            if not all(is_int(s) and s >= 0 for s in b.shape):
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
            if not (is_int(t.row) and is_int(t.col)
                    and 0 <= t.row < g.rows and 0 <= t.col < g.cols):
                self.fail(f"tile ({t.row}, {t.col}) lies outside the "
                          f"{g.rows}x{g.cols} grid", field=f)
            if (t.row, t.col) in seen:
                self.fail(f"tile ({t.row}, {t.col}) is listed twice", field=f)
            seen.add((t.row, t.col))
            if not all(is_int(s) and 0 <= s <= 0xFFFFFFFF for s in t.semaphores):
                self.fail("initial counts must be integers in [0, 2^32)",
                          field=f"{f}.semaphores")
            if not is_int(t.tokens) or t.tokens < 0:
                self.fail(f"must be a non-negative integer, got {t.tokens!r}",
                          field=f"{f}.tokens")
            self.tiles[(t.row, t.col)] = t
        ids = set()
        for i, t in enumerate(p.tags):
            if not is_int(t.id) or not 0 <= t.id < isa.NO_TAG:
                self.fail(f"id {t.id!r} must be an integer in [0, {isa.NO_TAG})",
                          field=f"tags[{i}].id")
            if t.id in ids:
                self.fail(f"tag id {t.id} is used twice", field=f"tags[{i}].id")
            ids.add(t.id)
        self.tag_ids = ids

    # ---- one instruction -------------------------------------------------

    def check_instruction(self, tile: TileProgram, ins: Instruction) -> None:
        op, f = ins.op, ins.fields
        # A compute instruction's rules involve only its operands and the
        # arch, and the same instruction recurs across tiles and loop
        # iterations (BERT: 828 distinct matmuls of 49,920): each distinct
        # one is checked once. Its fields come in the order of its layout,
        # so their values tell it apart.
        if op not in isa.CONTROL_OPS:
            known = ins.tag is None or ins.tag in self.tag_ids
            if known and (op, id(f)) in self.checked_fields:
                return
            key = (op, *f.values())
            if known and key in self.checked:
                self.checked_fields[(op, id(f))] = f
                return

        def fail(msg: str, fld: str | None = None) -> None:
            raise ProgramError(f"{ins.op}: {msg}", file=tile.path, offset=ins.offset,
                               field=fld)

        if ins.tag is not None and ins.tag not in self.tag_ids:
            fail(f"tag {ins.tag} is not in the manifest's tags")
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
        elif op in ("wait_semaphore", "dma_wait_semaphore"):
            if op == "dma_wait_semaphore" and f["channel"] >= self.arch.tile.dma.channels:
                fail(f"channel {f['channel']} is not below the arch's "
                     f"{self.arch.tile.dma.channels} DMA channels", "channel")
            if f["semaphore"] >= len(tile.semaphores):
                fail(f"semaphore {f['semaphore']} does not exist: the tile has "
                     f"{len(tile.semaphores)}", "semaphore")
        else:
            (self.check_matmul if op in isa.MATMUL_OPS else self.check_vector)(ins, fail)
            self.checked.add(key)
            self.checked_fields[(op, id(f))] = f

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
        # A fill or a copy computes nothing: it also takes what the MAC
        # array reads (an int8 convolution's padded window, an int8 weight
        # transposed).
        moves = set(supported) | {d for d, rate in a.tile.mac.macs_per_cycle.items()
                                  if rate > 0}
        if op == "vector_unary":
            uop, din, dout = f["op"], f["in_dtype"], f["out_dtype"]
            if uop != "cast":
                if din != dout:
                    fail(f"{uop} needs in_dtype = out_dtype, got {din} and {dout}")
                if din not in (moves if uop == "copy" else supported):
                    fail(f"the vector unit does not support {din} (it has "
                         f"{', '.join(supported)})", "in_dtype")
                if din in isa.INT_DTYPES and uop not in isa.INT_UNARY_OPS:
                    fail(f"{uop} is not defined on {din}", "op")
            dtypes = {"in": din, "out": dout}
        else:
            dt = f["dtype"]
            if dt not in (moves if op == "vector_fill" else supported):
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


