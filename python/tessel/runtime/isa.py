"""The tables of the Tessel ISA (docs/isa.md, version 1): opcodes, operand
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

FORMAT = "tessel-program"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
MAGIC = b"TSL1"
HEADER_BYTES = 16
NO_TAG = 0xFFFF
MAX_RANK = 4

# ---------------------------------------------------------------------------
# Element types.
# ---------------------------------------------------------------------------

DTYPES = ("f32", "f16", "bf16", "i8", "i32")          # index = encoding
DTYPE_CODE = {name: i for i, name in enumerate(DTYPES)}
DTYPE_SIZE = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4}
FLOAT_DTYPES = ("f32", "f16", "bf16")
INT_DTYPES = ("i8", "i32")

# ---------------------------------------------------------------------------
# Operation codes.
# ---------------------------------------------------------------------------

UNARY_OPS = ("neg", "abs", "exp", "log", "tanh", "erf", "sqrt", "rsqrt",
             "recip", "cast", "copy")
BINARY_OPS = ("add", "sub", "mul", "div", "max", "min")
REDUCE_OPS = ("add", "max")
PREDICATES = ("lt", "le", "gt", "ge", "eq", "ne")
ENDPOINT_KINDS = ("sram", "dram")

# Operations defined on integer element types (they wrap around); the others
# need a float type.
INT_UNARY_OPS = ("neg", "abs", "cast", "copy")
INT_BINARY_OPS = ("add", "sub", "mul", "max", "min")

# The arch's `tile.vector.latency` key of each vector instruction.
UNARY_LATENCY_KEY = {op: ("cast" if op == "copy" else op) for op in UNARY_OPS}
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
    "matmul": 0x10,
    "vector_unary": 0x20,
    "vector_binary": 0x21,
    "vector_binary_imm": 0x22,
    "vector_reduce": 0x23,
    "vector_fill": 0x24,
    "vector_compare": 0x25,
    "vector_select": 0x26,
}
OPCODE_NAMES = {code: name for name, code in OPCODES.items()}
CONTROL_OPS = ("dma", "wait", "signal", "wait_semaphore")

# Operand kinds:
#   u32 i32 f32 u64   scalars
#   dtype             u32, an index into DTYPES
#   enum:<table>      u32, an index into UNARY_OPS / BINARY_OPS / ...
#   sizes             rank: u32, then sizes: u32[rank]  (the field is `sizes`)
#   tokens            n: u32, then tokens: u32[n]
#   view:R            base: u64, strides: i32[R]; R is `rank`, `rank-1` or 2
#   endpoint          kind: u32, row: u32, col: u32, then a view of `rank`
LAYOUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "dma": (("channel", "u32"), ("token", "u32"), ("dtype", "dtype"),
            ("sizes", "sizes"), ("src", "endpoint"), ("dst", "endpoint")),
    "wait": (("tokens", "tokens"),),
    "signal": (("row", "u32"), ("col", "u32"), ("semaphore", "u32"),
               ("count", "u32")),
    "wait_semaphore": (("semaphore", "u32"), ("count", "u32")),
    "matmul": (("dtype", "dtype"), ("m", "u32"), ("k", "u32"), ("n", "u32"),
               ("lhs", "view:2"), ("rhs", "view:2"), ("acc", "view:2")),
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

ENUMS = {"unary": UNARY_OPS, "binary": BINARY_OPS, "reduce": REDUCE_OPS,
         "predicate": PREDICATES}

# The views each opcode reads and writes (field names), for bounds, alias and
# traffic accounting. DMA endpoints are handled apart.
READS = {
    "matmul": ("lhs", "rhs", "acc"),
    "vector_unary": ("in",), "vector_binary": ("lhs", "rhs"),
    "vector_binary_imm": ("in",), "vector_reduce": ("in",),
    "vector_fill": (), "vector_compare": ("lhs", "rhs"),
    "vector_select": ("cond", "lhs", "rhs"),
}
WRITES = {"matmul": "acc", "vector_unary": "out", "vector_binary": "out",
          "vector_binary_imm": "out", "vector_reduce": "out",
          "vector_fill": "out", "vector_compare": "out",
          "vector_select": "out"}


class View(NamedTuple):
    """A strided window of memory: element ``(i0, ..)`` is at byte
    ``base + sum(i_k * strides[k]) * sizeof(dtype)``."""

    base: int
    strides: tuple[int, ...]


class Endpoint(NamedTuple):
    """One end of a ``dma``: ``kind`` is ``"sram"`` (of tile ``(row, col)``)
    or ``"dram"`` (``row = col = 0``)."""

    kind: str
    row: int
    col: int
    view: View


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction. ``fields`` maps the operand names of
    :data:`LAYOUTS` to Python values (``str`` for dtypes and operation codes,
    :class:`View`, :class:`Endpoint`, tuples for sizes and tokens).
    ``offset`` is the byte offset of the header word in the stream file."""

    op: str
    fields: Mapping[str, Any]
    tag: int | None = None
    offset: int = -1

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]


class DecodeError(ValueError):
    """A stream that does not decode; ``offset`` is the byte offset of the
    instruction (or of the header field) at fault."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


# ---------------------------------------------------------------------------
# Encoding.
# ---------------------------------------------------------------------------

def _u32(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"{what} = {value} does not fit in u32")
    return value


def _i32(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if not -(1 << 31) <= value < (1 << 31):
        raise ValueError(f"{what} = {value} does not fit in i32")
    return value & 0xFFFFFFFF


def _f32_bits(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
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


def _view_words(view: Any, rank: int, what: str) -> list[int]:
    base, strides = view
    base = int(base) if not isinstance(base, bool) else base
    if not isinstance(base, int) or not 0 <= base < (1 << 64):
        raise ValueError(f"{what}.base = {base!r} must be a u64")
    strides = tuple(strides)
    if len(strides) != rank:
        raise ValueError(f"{what} has {len(strides)} strides, the instruction "
                         f"needs {rank}")
    words = [base & 0xFFFFFFFF, base >> 32]
    words += [_i32(s, f"{what}.strides[{i}]") for i, s in enumerate(strides)]
    return words


def _view_rank(kind: str, rank: int | None) -> int:
    spec = kind.split(":", 1)[1]
    if spec == "2":
        return 2
    assert rank is not None
    return rank - 1 if spec == "rank-1" else rank


def encode(op: str, fields: Mapping[str, Any], tag: int | None = None) -> list[int]:
    """The words of one instruction, header included. ``fields`` as in
    :class:`Instruction` (dtypes and operation codes may be names or codes;
    views ``(base, strides)`` pairs). Raises ``ValueError`` naming the bad
    operand."""
    if op not in OPCODES:
        raise ValueError(f"unknown instruction {op!r}")
    words: list[int] = []
    rank: int | None = None
    for name, kind in LAYOUTS[op]:
        if name not in fields:
            raise ValueError(f"{op}: missing operand {name!r}")
        value = fields[name]
        what = f"{op}.{name}"
        if kind == "u32":
            words.append(_u32(value, what))
        elif kind == "i32":
            words.append(_i32(value, what))
        elif kind == "f32":
            words.append(_f32_bits(value, what))
        elif kind == "dtype":
            words.append(_enum(value, DTYPES, what))
        elif kind.startswith("enum:"):
            words.append(_enum(value, ENUMS[kind[5:]], what))
        elif kind == "sizes":
            sizes = tuple(value)
            rank = len(sizes)
            words.append(rank)
            words += [_u32(s, f"{what}[{i}]") for i, s in enumerate(sizes)]
        elif kind == "tokens":
            tokens = tuple(value)
            words.append(len(tokens))
            words += [_u32(t, f"{what}[{i}]") for i, t in enumerate(tokens)]
        elif kind.startswith("view:"):
            words += _view_words(value, _view_rank(kind, rank), what)
        elif kind == "endpoint":
            ep_kind, row, col, view = value
            words.append(_enum(ep_kind, ENDPOINT_KINDS, f"{what}.kind"))
            words.append(_u32(row, f"{what}.row"))
            words.append(_u32(col, f"{what}.col"))
            assert rank is not None
            words += _view_words(view, rank, f"{what}.view")
        else:  # pragma: no cover - LAYOUTS uses only the kinds above
            raise AssertionError(kind)
    length = len(words) + 1
    if length > 0xFF:
        raise ValueError(f"{op}: {length} words do not fit the 8-bit length")
    if tag is None:
        tag_bits = NO_TAG
    else:
        tag_bits = _u32(tag, f"{op}.tag")
        if tag_bits >= NO_TAG:
            raise ValueError(f"{op}: tag id {tag} must be below {NO_TAG}")
    return [OPCODES[op] | (length << 8) | (tag_bits << 16)] + words


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
    return struct.unpack("<f", struct.pack("<I", word))[0]


def decode_instruction(words: Sequence[int], start: int, offset: int) -> Instruction:
    """The instruction whose header is ``words[start]``; ``offset`` is its
    byte offset (for messages). Raises :class:`DecodeError`."""
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

    def take(count: int, what: str) -> list[int]:
        nonlocal pos
        if pos + count > end:
            raise DecodeError(f"{op}: length {length} is too short for its "
                              f"operands (ends inside {what})", offset)
        got = list(words[pos:pos + count])
        pos += count
        return got

    def view(r: int, what: str) -> View:
        lo, hi, *strides = take(2 + r, what)
        return View(lo | (hi << 32), tuple(_signed(s) for s in strides))

    for name, kind in LAYOUTS[op]:
        if kind == "u32":
            fields[name] = take(1, name)[0]
        elif kind == "i32":
            fields[name] = _signed(take(1, name)[0])
        elif kind == "f32":
            fields[name] = _f32_value(take(1, name)[0])
        elif kind == "dtype":
            value = take(1, name)[0]
            if value >= len(DTYPES):
                raise DecodeError(f"{op}: {name} = {value} is not a dtype "
                                  f"(0..{len(DTYPES) - 1})", offset)
            fields[name] = DTYPES[value]
        elif kind.startswith("enum:"):
            table = ENUMS[kind[5:]]
            value = take(1, name)[0]
            if value >= len(table):
                raise DecodeError(f"{op}: {name} = {value} is not a valid code "
                                  f"(0..{len(table) - 1})", offset)
            fields[name] = table[value]
        elif kind == "sizes":
            rank = take(1, "rank")[0]
            if not 1 <= rank <= MAX_RANK:
                raise DecodeError(f"{op}: rank = {rank} is out of range "
                                  f"[1, {MAX_RANK}]", offset)
            fields[name] = tuple(take(rank, "sizes"))
        elif kind == "tokens":
            n = take(1, "n")[0]
            if n > length:
                raise DecodeError(f"{op}: n = {n} tokens do not fit the length "
                                  f"{length}", offset)
            fields[name] = tuple(take(n, "tokens"))
        elif kind.startswith("view:"):
            fields[name] = view(_view_rank(kind, rank), name)
        elif kind == "endpoint":
            ep_kind, row, col = take(3, name)
            if ep_kind >= len(ENDPOINT_KINDS):
                raise DecodeError(f"{op}: {name}.kind = {ep_kind} is not 0 "
                                  "(SRAM) or 1 (DRAM)", offset)
            assert rank is not None
            fields[name] = Endpoint(ENDPOINT_KINDS[ep_kind], row, col,
                                    view(rank, name))
    if pos != end:
        raise DecodeError(f"{op}: length {length} disagrees with its operands "
                          f"({pos - start} words)", offset)
    return Instruction(op, fields, None if tag == NO_TAG else tag, offset)


def decode_stream(data: bytes) -> list[Instruction]:
    """Every instruction of a stream file. Raises :class:`DecodeError` with
    the byte offset of the header field or instruction at fault."""
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
    words = struct.unpack_from(f"<{nwords}I", data, HEADER_BYTES)
    out: list[Instruction] = []
    pos = 0
    while pos < nwords:
        offset = HEADER_BYTES + 4 * pos
        if len(out) == count:
            raise DecodeError(f"the header announces {count} instructions but "
                              "more words follow", offset)
        ins = decode_instruction(words, pos, offset)
        out.append(ins)
        pos += (words[pos] >> 8) & 0xFF
    if len(out) != count:
        raise DecodeError(f"the header announces {count} instructions, the "
                          f"stream holds {len(out)}", 8)
    return out


def sizeof(dtype: str) -> int:
    return DTYPE_SIZE[dtype]


def acc_dtype(dtype: str) -> str:
    """Element type of a matmul's accumulator for input ``dtype``."""
    return "i32" if dtype in INT_DTYPES else "f32"
