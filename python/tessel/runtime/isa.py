"""The tables of the Tessel ISA (docs/isa.md, version 2): opcodes, operand
layouts, element types and operation codes, and the encoder and decoder of
one instruction stream.

The operand layout of every opcode is stated once, in :data:`LAYOUTS`; the
encoder, the decoder and the disassembler all walk it, so they cannot
disagree. Standard library only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence

from ..errors import TesselError

FORMAT = "tessel-program"
VERSION = 2
SUPPORTED_VERSIONS = (2,)
MAGIC = b"TSL1"
HEADER_BYTES = 16
NO_TAG = 0xFFFF
MAX_RANK = 4
# The destinations of a dma_multicast that fit one instruction at any rank:
# 11 + 3 * rank + 4 * n words within the 8-bit length.
MAX_MULTICAST_DESTINATIONS = (0xFF - 11 - 3 * MAX_RANK) // 4

# ---------------------------------------------------------------------------
# Element types.
# ---------------------------------------------------------------------------

DTYPES = ("f32", "f16", "bf16", "i8", "i32", "i64")   # index = encoding
DTYPE_CODE = {name: i for i, name in enumerate(DTYPES)}
DTYPE_SIZE = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i64": 8}
FLOAT_DTYPES = ("f32", "f16", "bf16")
INT_DTYPES = ("i8", "i32", "i64")
INDEX_DTYPES = ("i32", "i64")

# ---------------------------------------------------------------------------
# Operation codes.
# ---------------------------------------------------------------------------

UNARY_OPS = ("neg", "abs", "exp", "log", "tanh", "erf", "sqrt", "rsqrt",
             "recip", "cast", "copy", "sin", "cos", "floor", "gelu")
BINARY_OPS = ("add", "sub", "mul", "div", "max", "min")
REDUCE_OPS = ("add", "max")
PREDICATES = ("lt", "le", "gt", "ge", "eq", "ne")
ENDPOINT_KINDS = ("sram", "dram")

# Operations defined on integer element types (they wrap around); the others
# need a float type.
INT_UNARY_OPS = ("neg", "abs", "cast", "copy")
INT_BINARY_OPS = ("add", "sub", "mul", "div", "max", "min")

# The arch's `tile.vector.latency` keys of each vector instruction, whose
# latencies add up. copy and floor take a conversion's latency (floor rounds
# like one); gelu is the pipeline of the operations it chains (docs/isa.md).
UNARY_LATENCY_KEYS = {op: (op,) for op in UNARY_OPS} | {
    "copy": ("cast",), "floor": ("cast",),
    "gelu": ("div", "erf", "add", "mul", "mul")}
BINARY_LATENCY_KEY = {op: op for op in BINARY_OPS}
REDUCE_LATENCY_KEY = {"add": "reduce_add", "max": "reduce_max"}

# ---------------------------------------------------------------------------
# Opcodes and operand layouts.
# ---------------------------------------------------------------------------

OPCODES = {
    "dma": 0x01,
    "wait": 0x02,
    "signal": 0x03,
    "wait_semaphore": 0x04,
    "dma_multicast": 0x05,
    "dma_gather": 0x06,
    "dma_wait_semaphore": 0x07,
    "matmul": 0x10,
    "matmul_init": 0x11,
    "vector_unary": 0x20,
    "vector_binary": 0x21,
    "vector_binary_imm": 0x22,
    "vector_reduce": 0x23,
    "vector_fill": 0x24,
    "vector_compare": 0x25,
    "vector_select": 0x26,
}
OPCODE_NAMES = {code: name for name, code in OPCODES.items()}
TRANSFER_OPS = ("dma", "dma_multicast", "dma_gather")
# The instructions that only synchronize: they move and compute nothing.
SYNC_OPS = ("wait", "signal", "wait_semaphore", "dma_wait_semaphore")
CONTROL_OPS = TRANSFER_OPS + SYNC_OPS
# The MAC array's instructions: `matmul_init` is `matmul` with the
# accumulator starting at zero instead of its contents.
MATMUL_OPS = ("matmul", "matmul_init")

# Operand kinds:
#   u32 i32 f32 u64   scalars
#   dtype             u32, an index into DTYPES
#   enum:<table>      u32, an index into UNARY_OPS / BINARY_OPS / ...
#   sizes             rank: u32, then sizes: u32[rank]  (the field is `sizes`)
#   tokens            n: u32, then tokens: u32[n]
#   view:R            base: u64, strides: i32[R]; R is `rank`, `rank-1`, 2
#                     or 3
#   endpoint          kind: u32, row: u32, col: u32, then a view of `rank`
#   multicast         dst_strides: i32[rank], n: u32, then n times row: u32,
#                     col: u32, base: u64; decoded as n SRAM endpoints that
#                     share the strides (the field is `dsts`)
LAYOUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "dma": (("channel", "u32"), ("token", "u32"), ("dtype", "dtype"),
            ("sizes", "sizes"), ("src", "endpoint"), ("dst", "endpoint")),
    "wait": (("tokens", "tokens"),),
    "signal": (("row", "u32"), ("col", "u32"), ("semaphore", "u32"),
               ("count", "u32")),
    "wait_semaphore": (("semaphore", "u32"), ("count", "u32")),
    "dma_wait_semaphore": (("channel", "u32"), ("semaphore", "u32"),
                           ("count", "u32")),
    "dma_multicast": (("channel", "u32"), ("token", "u32"), ("dtype", "dtype"),
                      ("sizes", "sizes"), ("src", "endpoint"),
                      ("dsts", "multicast")),
    "dma_gather": (("channel", "u32"), ("token", "u32"), ("dtype", "dtype"),
                   ("sizes", "sizes"), ("index_dtype", "dtype"),
                   ("index_stride", "i32"), ("rows", "u32"), ("wrap", "u32"),
                   ("table", "view:rank"), ("index", "view:rank"),
                   ("dst", "view:rank")),
    "matmul": (("dtype", "dtype"), ("g", "u32"), ("m", "u32"), ("k", "u32"),
               ("n", "u32"), ("lhs", "view:3"), ("rhs", "view:2"),
               ("acc", "view:3")),
    "vector_unary": (("op", "enum:unary"), ("in_dtype", "dtype"),
                     ("out_dtype", "dtype"), ("sizes", "sizes"),
                     ("in", "view:rank"), ("out", "view:rank")),
    "vector_binary": (("op", "enum:binary"), ("dtype", "dtype"),
                      ("sizes", "sizes"), ("lhs", "view:rank"),
                      ("rhs", "view:rank"), ("out", "view:rank")),
    "vector_binary_imm": (("op", "enum:binary"), ("dtype", "dtype"),
                          ("imm", "f32"), ("imm_is_lhs", "u32"),
                          ("sizes", "sizes"), ("in", "view:rank"),
                          ("out", "view:rank")),
    "vector_reduce": (("op", "enum:reduce"), ("dtype", "dtype"),
                      ("sizes", "sizes"), ("dim", "u32"), ("in", "view:rank"),
                      ("out", "view:rank-1")),
    "vector_fill": (("dtype", "dtype"), ("value", "f32"), ("sizes", "sizes"),
                    ("out", "view:rank")),
    "vector_compare": (("predicate", "enum:predicate"), ("dtype", "dtype"),
                       ("sizes", "sizes"), ("lhs", "view:rank"),
                       ("rhs", "view:rank"), ("out", "view:rank")),
    "vector_select": (("dtype", "dtype"), ("sizes", "sizes"),
                      ("cond", "view:rank"), ("lhs", "view:rank"),
                      ("rhs", "view:rank"), ("out", "view:rank")),
}

# The same operands: only the accumulator's start differs.
LAYOUTS["matmul_init"] = LAYOUTS["matmul"]

ENUMS = {"unary": UNARY_OPS, "binary": BINARY_OPS, "reduce": REDUCE_OPS,
         "predicate": PREDICATES}

# The views each opcode reads and writes (field names), for bounds, alias and
# traffic accounting. DMA endpoints are handled apart.
READS = {
    "matmul": ("lhs", "rhs", "acc"), "matmul_init": ("lhs", "rhs"),
    "vector_unary": ("in",), "vector_binary": ("lhs", "rhs"),
    "vector_binary_imm": ("in",), "vector_reduce": ("in",),
    "vector_fill": (), "vector_compare": ("lhs", "rhs"),
    "vector_select": ("cond", "lhs", "rhs"),
}
WRITES = {"matmul": "acc", "matmul_init": "acc", "vector_unary": "out", "vector_binary": "out",
          "vector_binary_imm": "out", "vector_reduce": "out",
          "vector_fill": "out", "vector_compare": "out",
          "vector_select": "out"}


class View(NamedTuple):
    """A strided window of memory: element ``(i0, ..)`` is at byte
    ``base + sum(i_k * strides[k]) * sizeof(dtype)``."""

    base: int
    strides: tuple[int, ...]


class Endpoint(NamedTuple):
    """One end of a ``dma`` (or of a ``dma_multicast``: its source, and each
    of its destinations): ``kind`` is ``"sram"`` (of tile ``(row, col)``) or
    ``"dram"`` (``row = col = 0``)."""

    kind: str
    row: int
    col: int
    view: View


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction. ``fields`` maps the operand names of
    :data:`LAYOUTS` to Python values (``str`` for dtypes and operation codes,
    :class:`View`, :class:`Endpoint`, tuples for sizes and tokens, a tuple of
    SRAM :class:`Endpoint` for the destinations of a multicast).
    ``offset`` is the byte offset of the header word in the stream file."""

    op: str
    fields: Mapping[str, Any]
    tag: int | None = None
    offset: int = -1

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]


class DecodeError(TesselError, ValueError):
    """A stream that does not decode; ``offset`` is the byte offset of the
    instruction (or of the header field) at fault."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


# ---------------------------------------------------------------------------
# LAYOUTS, parsed once for the encoder and the decoder.
# ---------------------------------------------------------------------------

class _Operand(NamedTuple):
    """One operand of :data:`LAYOUTS` with its kind string taken apart, so
    that encoding and decoding an instruction do no string work."""

    name: str
    kind: str                    # u32 i32 f32 dtype enum sizes tokens view endpoint
                                 # multicast
    table: tuple[str, ...]       # dtype, enum: the name of each code
    view_rank: int | None        # view: a fixed rank, or None: `rank` + rank_delta
    rank_delta: int
    what: str                    # "op.name", for the encoder's messages


def _parse_operand(op: str, name: str, kind: str) -> _Operand:
    table: tuple[str, ...] = ()
    view_rank, rank_delta = None, 0
    if kind == "dtype":
        table = DTYPES
    elif kind.startswith("enum:"):
        kind, table = "enum", ENUMS[kind[5:]]
    elif kind.startswith("view:"):
        kind, spec = kind.split(":", 1)
        if spec.isdigit():
            view_rank = int(spec)
        elif spec == "rank-1":
            rank_delta = -1
    return _Operand(name, kind, table, view_rank, rank_delta, f"{op}.{name}")


_PLANS = {op: tuple(_parse_operand(op, name, kind) for name, kind in layout)
          for op, layout in LAYOUTS.items()}


# ---------------------------------------------------------------------------
# Encoding.
# ---------------------------------------------------------------------------

_WORD = 0xFFFFFFFF
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _u32(value: Any, what: str) -> int:
    """``value`` as a plain ``int`` (what decoding gives back)."""
    if type(value) is int and 0 <= value <= _WORD:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if not 0 <= value <= _WORD:
        raise ValueError(f"{what} = {value} does not fit in u32")
    return int(value)


def _i32(value: Any, what: str) -> int:
    """``value`` as a plain ``int``; its word is ``value & 0xFFFFFFFF``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if not -(1 << 31) <= value < (1 << 31):
        raise ValueError(f"{what} = {value} does not fit in i32")
    return int(value)


def _u32s(values: Any, what: str) -> tuple[int, ...]:
    """``values`` as a tuple of u32; item ``i`` is named ``what[i]``."""
    values = tuple(values)
    for v in values:
        if type(v) is not int or not 0 <= v <= _WORD:
            return tuple(_u32(v, f"{what}[{i}]") for i, v in enumerate(values))
    return values


def _f32_bits(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return _U32.unpack(_F32.pack(float(value)))[0]
    except OverflowError:
        raise ValueError(f"{what} = {value!r} is out of f32 range") from None


def _enum(value: Any, table: Sequence[str], what: str) -> int:
    if isinstance(value, str):
        if value not in table:
            raise ValueError(f"{what} = {value!r} is not one of "
                             f"{', '.join(table)}")
        return table.index(value)
    code = _u32(value, what)
    if code >= len(table):
        raise ValueError(f"{what} = {code} is not a valid code (0..{len(table) - 1})")
    return code


def _view(view: Any, rank: int, what: str) -> View:
    """``view``, a ``(base, strides)`` pair, checked and as decoding gives it
    back (a :class:`View` of plain ints)."""
    base, strides = view
    if (type(view) is View and type(base) is int and 0 <= base < (1 << 64)
            and type(strides) is tuple and len(strides) == rank):
        for s in strides:
            if type(s) is not int or not -(1 << 31) <= s < (1 << 31):
                break
        else:
            return view          # the common case: nothing to convert
    base = int(base) if not isinstance(base, bool) else base
    if not isinstance(base, int) or not 0 <= base < (1 << 64):
        raise ValueError(f"{what}.base = {base!r} must be a u64")
    strides = tuple(strides)
    if len(strides) != rank:
        raise ValueError(f"{what} has {len(strides)} strides, the instruction "
                         f"needs {rank}")
    strides = tuple(_i32(s, f"{what}.strides[{i}]") for i, s in enumerate(strides))
    return View(int(base), strides)


def _append_view(words: list[int], view: View) -> None:
    base, strides = view
    words.append(base & _WORD)
    words.append(base >> 32)
    for s in strides:   # a plain loop: cheaper than a comprehension for 1 to 4
        words.append(s & _WORD)


def _encode_dsts(words: list[int], dsts: Any, rank: int, what: str
                 ) -> tuple[Endpoint, ...]:
    """Append the destinations of a multicast to ``words`` (``dst_strides``,
    ``n``, then ``row, col, base`` of each) and return them as decoding gives
    them back. The encoding holds the strides once, so every destination must
    be an SRAM endpoint with the same strides. A multicast with no
    destination is encoded (zero strides) and left to validation to reject,
    as decoding one would be."""
    out = []
    strides = None
    for i, dst in enumerate(dsts):
        where = f"{what}[{i}]"
        ep_kind, row, col, view = dst
        code = _enum(ep_kind, ENDPOINT_KINDS, f"{where}.kind")
        if ENDPOINT_KINDS[code] != "sram":
            raise ValueError(f"{where} is a {ENDPOINT_KINDS[code]} endpoint: every "
                             "destination of a multicast is an SRAM")
        view = _view(view, rank, f"{where}.view")
        if strides is None:
            strides = view.strides
        elif view.strides != strides:
            raise ValueError(f"{where}.view.strides = {list(view.strides)} differ "
                             f"from {what}[0]'s {list(strides)}: the destinations "
                             "of a multicast share their strides")
        out.append(Endpoint("sram", _u32(row, f"{where}.row"),
                            _u32(col, f"{where}.col"), view))
    for s in (strides if strides is not None else (0,) * rank):
        words.append(s & _WORD)
    words.append(len(out))
    for ep in out:
        base = ep.view.base
        words += (ep.row, ep.col, base & _WORD, base >> 32)
    # Four words a destination: name the limit here, where it is known, when
    # dropping destinations would make the instruction fit.
    over = len(words) - 0xFF
    fit = len(out) - -(-over // 4)
    if over > 0 and fit >= 1:
        raise ValueError(f"{what}: {len(out)} destinations make the instruction "
                         f"{len(words)} words long, more than the 255 its 8-bit "
                         f"length allows; at most {fit} fit")
    return tuple(out)


def encode(op: str, fields: Mapping[str, Any], tag: int | None = None) -> list[int]:
    """The words of one instruction, header included. ``fields`` as in
    :class:`Instruction` (dtypes and operation codes may be names or codes;
    views ``(base, strides)`` pairs). Raises ``ValueError`` naming the bad
    operand."""
    return encode_instruction(op, fields, tag)[0]


def encode_instruction(op: str, fields: Mapping[str, Any], tag: int | None = None,
                       offset: int = -1) -> tuple[list[int], Instruction]:
    """:func:`encode`'s words, and the :class:`Instruction` that decoding them
    at byte ``offset`` gives back (names for codes, plain ints, f32-rounded
    floats), so that a builder can validate what it encoded without decoding
    it. One rule is left to validation, as decoding checks it: the rank of
    ``sizes`` (see :func:`check_rank`)."""
    plan = _PLANS.get(op)
    if plan is None:
        raise ValueError(f"unknown instruction {op!r}")
    words = [0]                                # the header, set last
    values: dict[str, Any] = {}
    rank: int | None = None
    for name, kind, table, view_rank, rank_delta, what in plan:
        if name not in fields:
            raise ValueError(f"{op}: missing operand {name!r}")
        value = fields[name]
        if kind == "view":
            if view_rank is None:
                assert rank is not None
                view_rank = rank + rank_delta
            value = _view(value, view_rank, what)
            _append_view(words, value)
        elif kind == "u32":
            value = _u32(value, what)
            words.append(value)
        elif kind == "dtype" or kind == "enum":
            code = _enum(value, table, what)
            words.append(code)
            value = table[code]
        elif kind == "sizes" or kind == "tokens":
            value = _u32s(value, what)
            words.append(len(value))
            words.extend(value)
            if kind == "sizes":
                rank = len(value)
        elif kind == "endpoint":
            ep_kind, row, col, view = value
            code = _enum(ep_kind, ENDPOINT_KINDS, f"{what}.kind")
            row, col = _u32(row, f"{what}.row"), _u32(col, f"{what}.col")
            assert rank is not None
            value = Endpoint(ENDPOINT_KINDS[code], row, col,
                             _view(view, rank, f"{what}.view"))
            words += (code, row, col)
            _append_view(words, value.view)
        elif kind == "multicast":
            assert rank is not None
            value = _encode_dsts(words, value, rank, what)
        elif kind == "f32":
            bits = _f32_bits(value, what)
            words.append(bits)
            value = _f32_value(bits)
        elif kind == "i32":
            value = _i32(value, what)
            words.append(value & _WORD)
        else:  # pragma: no cover - LAYOUTS uses only the kinds above
            raise AssertionError(kind)
        values[name] = value
    length = len(words)
    if length > 0xFF:
        raise ValueError(f"{op}: {length} words do not fit the 8-bit length")
    if tag is None:
        tag_bits = NO_TAG
    else:
        tag_bits = _u32(tag, f"{op}.tag")
        if tag_bits >= NO_TAG:
            raise ValueError(f"{op}: tag id {tag} must be below {NO_TAG}")
        tag = tag_bits
    words[0] = OPCODES[op] | (length << 8) | (tag_bits << 16)
    return words, Instruction(op, values, tag, offset)


def encode_stream(instructions: Sequence[list[int]]) -> bytes:
    """A stream file from the words of each instruction."""
    count = len(instructions)
    body = [w for words in instructions for w in words]
    header = MAGIC + struct.pack("<HHII", VERSION, 0, count, len(body))
    return header + struct.pack(f"<{len(body)}I", *body)


# ---------------------------------------------------------------------------
# Decoding.
# ---------------------------------------------------------------------------

def _signed(word: int) -> int:
    return word - (1 << 32) if word & 0x80000000 else word


def _f32_value(word: int) -> float:
    return _F32.unpack(_U32.pack(word))[0]


def check_rank(op: str, rank: int, offset: int) -> None:
    """The rank rule of ``sizes``, which decoding enforces and encoding
    does not; raises :class:`DecodeError`."""
    if not 1 <= rank <= MAX_RANK:
        raise DecodeError(f"{op}: rank = {rank} is out of range "
                          f"[1, {MAX_RANK}]", offset)


def _too_short(op: str, length: int, what: str, offset: int) -> DecodeError:
    return DecodeError(f"{op}: length {length} is too short for its operands "
                       f"(ends inside {what})", offset)


def decode_instruction(words: Sequence[int], start: int, offset: int,
                       signed: Sequence[int] | None = None) -> Instruction:
    """The instruction whose header is ``words[start]``; ``offset`` is its
    byte offset (for messages). ``signed`` is ``words`` read as i32, as
    :func:`decode_stream` has them: strides are slices of it (without it,
    they are converted one by one). Raises :class:`DecodeError`."""
    header = words[start]
    code, length, tag = header & 0xFF, (header >> 8) & 0xFF, header >> 16
    op = OPCODE_NAMES.get(code)
    if op is None:
        raise DecodeError(f"unknown opcode 0x{code:02x}", offset)
    if length < 1:
        raise DecodeError(f"{op}: length 0 (the header counts as one word)", offset)
    end = start + length
    if end > len(words):
        raise DecodeError(f"{op}: the instruction has {length} words but the "
                          f"stream ends after {len(words) - start}", offset)
    pos = start + 1
    fields: dict[str, Any] = {}
    rank: int | None = None
    for name, kind, table, view_rank, rank_delta, _ in _PLANS[op]:
        if kind == "view" or kind == "endpoint":
            if kind == "endpoint":
                if pos + 3 > end:
                    raise _too_short(op, length, name, offset)
                ep_kind, row, col = words[pos:pos + 3]
                if ep_kind >= len(ENDPOINT_KINDS):
                    raise DecodeError(f"{op}: {name}.kind = {ep_kind} is not 0 "
                                      "(SRAM) or 1 (DRAM)", offset)
                pos += 3
            if view_rank is None:
                assert rank is not None
                view_rank = rank + rank_delta
            first = pos + 2
            pos = first + view_rank
            if pos > end:
                raise _too_short(op, length, name, offset)
            strides = (tuple(signed[first:pos]) if signed is not None
                       else tuple(map(_signed, words[first:pos])))
            view = View(words[first - 2] | (words[first - 1] << 32), strides)
            fields[name] = (view if kind == "view" else
                            Endpoint(ENDPOINT_KINDS[ep_kind], row, col, view))
            continue
        if kind == "multicast":
            assert rank is not None
            first = pos
            pos += rank
            if pos > end:
                raise _too_short(op, length, "dst_strides", offset)
            if pos >= end:
                raise _too_short(op, length, "n", offset)
            n = words[pos]
            pos += 1
            if 4 * n > length:
                raise DecodeError(f"{op}: n = {n} destinations do not fit the "
                                  f"length {length}", offset)
            if pos + 4 * n > end:
                raise _too_short(op, length, name, offset)
            strides = (tuple(signed[first:first + rank]) if signed is not None
                       else tuple(map(_signed, words[first:first + rank])))
            fields[name] = tuple(
                Endpoint("sram", words[p], words[p + 1],
                         View(words[p + 2] | (words[p + 3] << 32), strides))
                for p in range(pos, pos + 4 * n, 4))
            pos += 4 * n
            continue
        # Every other kind starts with one word.
        if pos >= end:
            what = "rank" if kind == "sizes" else "n" if kind == "tokens" else name
            raise _too_short(op, length, what, offset)
        value = words[pos]
        pos += 1
        if kind == "u32":
            fields[name] = value
        elif kind == "dtype" or kind == "enum":
            if value >= len(table):
                what = "a dtype" if kind == "dtype" else "a valid code"
                raise DecodeError(f"{op}: {name} = {value} is not {what} "
                                  f"(0..{len(table) - 1})", offset)
            fields[name] = table[value]
        elif kind == "sizes" or kind == "tokens":
            if kind == "sizes":
                rank = value
                check_rank(op, rank, offset)
            elif value > length:
                raise DecodeError(f"{op}: n = {value} tokens do not fit the length "
                                  f"{length}", offset)
            if pos + value > end:
                raise _too_short(op, length, kind, offset)
            fields[name] = tuple(words[pos:pos + value])
            pos += value
        elif kind == "f32":
            fields[name] = _f32_value(value)
        elif kind == "i32":
            fields[name] = _signed(value)
    if pos != end:
        raise DecodeError(f"{op}: length {length} disagrees with its operands "
                          f"({pos - start} words)", offset)
    return Instruction(op, fields, None if tag == NO_TAG else tag, offset)


# ---------------------------------------------------------------------------
# Decoders of one layout each, for the streams of large programs.
# ---------------------------------------------------------------------------
#
# An instruction's words are laid out by its opcode and its length alone: the
# length fixes the rank of ``sizes`` (or the count of ``tokens``), and with it
# every operand's position. For each (opcode, length) met, one function is
# generated that reads the operands straight from their positions rather
# than walking the plan word by word; with the fields of repeated
# instructions shared (decode_stream), ResNet-18's 121 k instructions decode
# in 0.34 s instead of 1.27 s. It returns None wherever the words break a
# rule (a code out of its table, a rank or count that disagrees with the
# length); the caller then decodes with decode_instruction, which raises the
# error with its message. Multicasts keep the general decoder.

_FAST_DECODERS: dict[tuple[int, int], Any] = {}


def _fast_decoder(code: int, length: int):
    """The decoder of the instructions of opcode ``code`` and ``length``
    words, ``(words, signed, start, offset, tag, known) -> Instruction |
    None``, where ``known`` maps the operand words of instructions decoded
    before to their fields; None where no layout of the opcode has that
    length."""
    key = (code, length)
    if key not in _FAST_DECODERS:
        _FAST_DECODERS[key] = _generate_decoder(code, length)
    return _FAST_DECODERS[key]


def _layout_width(plan, rank: int, count: int) -> int | None:
    """The words of an instruction of ``plan`` (its header included) whose
    ``sizes`` have ``rank`` dimensions and whose ``tokens`` number
    ``count``; None for a plan with a multicast."""
    width = 1
    for _, kind, _, view_rank, rank_delta, _ in plan:
        if kind == "multicast":
            return None
        if kind in ("view", "endpoint"):
            width += (3 if kind == "endpoint" else 0) + 2 + (
                view_rank if view_rank is not None else rank + rank_delta)
        elif kind == "sizes":
            width += 1 + rank
        elif kind == "tokens":
            width += 1 + count
        else:
            width += 1
    return width


def _generate_decoder(code: int, length: int):
    op = OPCODE_NAMES.get(code)
    if op is None:
        return None
    plan = _PLANS[op]
    kinds = {operand.kind for operand in plan}
    # The rank (or count) that gives this length, if one does.
    rank = count = 0
    if "sizes" in kinds:
        ranks = [r for r in range(1, MAX_RANK + 1) if _layout_width(plan, r, 0) == length]
        if not ranks:
            return None
        rank = ranks[0]
    elif "tokens" in kinds:
        count = length - _layout_width(plan, 0, 0)
        if count < 0:
            return None
    if _layout_width(plan, rank, count) != length:
        return None
    checks: list[str] = []
    values: list[str] = []
    names: dict[str, Any] = {"View": View, "Endpoint": Endpoint, "Instruction": Instruction,
                             "ENDPOINT_KINDS": ENDPOINT_KINDS, "new_tuple": tuple.__new__,
                             "new": object.__new__}
    pos = 1

    def view(first: int, view_rank: int) -> str:
        return (f"new_tuple(View, (w[s + {first}] | (w[s + {first + 1}] << 32), "
                f"signed[s + {first + 2}:s + {first + 2 + view_rank}]))")

    for i, (name, kind, table, view_rank, rank_delta, _) in enumerate(plan):
        if kind in ("view", "endpoint"):
            vr = view_rank if view_rank is not None else rank + rank_delta
            if kind == "endpoint":
                checks.append(f"w[s + {pos}] >= {len(ENDPOINT_KINDS)}")
                value = (f"new_tuple(Endpoint, (ENDPOINT_KINDS[w[s + {pos}]], "
                         f"w[s + {pos + 1}], w[s + {pos + 2}], {view(pos + 3, vr)}))")
                pos += 3
            else:
                value = view(pos, vr)
            pos += 2 + vr
        elif kind in ("sizes", "tokens"):
            n = rank if kind == "sizes" else count
            checks.append(f"w[s + {pos}] != {n}")
            value = f"w[s + {pos + 1}:s + {pos + 1 + n}]"
            pos += 1 + n
        elif kind in ("dtype", "enum"):
            names[f"table{i}"] = table
            checks.append(f"w[s + {pos}] >= {len(table)}")
            value = f"table{i}[w[s + {pos}]]"
            pos += 1
        elif kind == "u32":
            value = f"w[s + {pos}]"
            pos += 1
        elif kind == "i32":
            value = f"signed[s + {pos}]"
            pos += 1
        elif kind == "f32":
            names["f32"] = _f32_value
            value = f"f32(w[s + {pos}])"
            pos += 1
        else:  # pragma: no cover - LAYOUTS uses only the kinds above
            raise AssertionError(kind)
        values.append(f"{name!r}: {value}")
    assert pos == length
    # The Instruction's attributes are set as its frozen __init__ would set
    # them, and its views made as View.__new__ would: the two calls took
    # half of decoding. Instructions of the same operand words share their
    # fields, which ``known`` keeps by those words.
    source = (f"def decode(w, signed, s, offset, tag, known):\n"
              + f"    words = w[s + 1:s + {length}]\n"
              + "    fields = known.get(words)\n"
              + "    if fields is None:\n"
              + (f"        if {' or '.join(checks)}:\n            return None\n" if checks else "")
              + f"        fields = known[words] = {{{', '.join(values)}}}\n"
              + "    ins = new(Instruction)\n"
              + "    attributes = ins.__dict__\n"
              + f"    attributes['op'] = {op!r}\n"
              + "    attributes['fields'] = fields\n"
              + "    attributes['tag'] = tag\n"
              + "    attributes['offset'] = offset\n"
              + "    return ins\n")
    exec(source, names)
    return names["decode"]


def decode_stream(data: bytes, known: dict[int, tuple[Any, dict]] | None = None
                  ) -> list[Instruction]:
    """Every instruction of a stream file. Raises :class:`DecodeError` with
    the byte offset of the header field or instruction at fault.

    Instructions of the same opcode and operand words (a program's tiles
    repeat the same matmuls at the same addresses) share one ``fields``
    mapping, which nothing may change: ``known`` keeps, by opcode and
    length, the layout's decoder and the fields it decoded by operand
    words, and a caller passes the same ``known`` for every stream of a
    program."""
    if known is None:
        known = {}
    if len(data) < HEADER_BYTES:
        raise DecodeError(f"truncated header: {len(data)} bytes, the header "
                          f"has {HEADER_BYTES}", 0)
    if data[:4] != MAGIC:
        raise DecodeError(f"bad magic {data[:4]!r}, expected {MAGIC!r}", 0)
    version, reserved, count, nwords = struct.unpack_from("<HHII", data, 4)
    if version not in SUPPORTED_VERSIONS:
        raise DecodeError(f"stream format version {version} is not supported "
                          f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})", 4)
    if reserved != 0:
        raise DecodeError(f"reserved header field is {reserved}, must be 0", 6)
    body = len(data) - HEADER_BYTES
    if body != 4 * nwords:
        problem = "truncated" if body < 4 * nwords else "has trailing bytes"
        raise DecodeError(f"stream {problem}: the header announces {nwords} "
                          f"words ({4 * nwords} bytes), {body} bytes follow", 12)
    # The words twice, unsigned and signed: strides are slices of the latter.
    words = struct.unpack_from(f"<{nwords}I", data, HEADER_BYTES)
    signed = struct.unpack_from(f"<{nwords}i", data, HEADER_BYTES)
    out: list[Instruction] = []
    pos = 0
    while pos < nwords:
        offset = HEADER_BYTES + 4 * pos
        if len(out) == count:
            raise DecodeError(f"the header announces {count} instructions but "
                              "more words follow", offset)
        header = words[pos]
        length = (header >> 8) & 0xFF
        ins = None
        if pos + length <= nwords:
            layout = header & 0xFFFF  # the opcode and the length
            entry = known.get(layout)
            if entry is None:
                entry = known[layout] = (_fast_decoder(header & 0xFF, length), {})
            decode, fields = entry
            if decode is not None:
                tag = header >> 16
                ins = decode(words, signed, pos, offset,
                             None if tag == NO_TAG else tag, fields)
        if ins is None:
            ins = decode_instruction(words, pos, offset, signed)
        out.append(ins)
        pos += length
    if len(out) != count:
        raise DecodeError(f"the header announces {count} instructions, the "
                          f"stream holds {len(out)}", 8)
    return out


def sizeof(dtype: str) -> int:
    return DTYPE_SIZE[dtype]


def acc_dtype(dtype: str) -> str:
    """Element type of a matmul's accumulator for input ``dtype``."""
    return "i32" if dtype == "i8" else "f32"


def matmul_rows(fields: Mapping[str, Any]
                ) -> tuple[tuple[int, ...], View, tuple[int, ...], View]:
    """A matmul's ``lhs`` and ``acc`` as ``(sizes, view)`` pairs: ``(m, k)``
    and ``(m, n)`` with their row and column strides for one group, else
    ``(g, m, k)`` and ``(g, m, n)`` with all three (a group's stride means
    nothing when there is one)."""
    g, m, k, n = fields["g"], fields["m"], fields["k"], fields["n"]
    lhs, acc = fields["lhs"], fields["acc"]
    if g == 1:
        return ((m, k), View(lhs.base, lhs.strides[1:]),
                (m, n), View(acc.base, acc.strides[1:]))
    return (g, m, k), lhs, (g, m, n), acc
