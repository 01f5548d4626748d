"""The numerics of docs/isa.md, bit-exact, on NumPy arrays.

Every function evaluates the ISA's sequence with one IEEE-754 float32
operation per step (NumPy float32 arithmetic rounds each operation to nearest
even; nothing is fused or reassociated). No ``np.exp``/``np.tanh``: exp, log,
tanh and erf are the ISA's polynomials.

Storage: f32 → float32, f16 → float16, bf16 → uint16 (the bits), i8 → int8,
i32 → int32, i64 → int64.
Float values are widened to f32 exactly, evaluated, and rounded back with
:func:`from_f32`, which also writes every NaN as the canonical quiet NaN of
its type.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

F32 = np.float32
STORAGE = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
           "bf16": np.dtype(np.uint16), "i8": np.dtype(np.int8),
           "i32": np.dtype(np.int32), "i64": np.dtype(np.int64)}
# Elements moved unchanged, as unsigned integers of their size.
BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64)}
CANONICAL_NAN_BITS = {"f32": 0x7FC00000, "f16": 0x7E00, "bf16": 0x7FC0}
INTS = ("i8", "i32", "i64")
_INT_RANGE = {"i8": (-128, 127), "i32": (-(1 << 31), (1 << 31) - 1),
              "i64": (-(1 << 63), (1 << 63) - 1)}


def _c(x: float) -> np.float32:
    return F32(x)


# ---------------------------------------------------------------------------
# Conversions.
# ---------------------------------------------------------------------------

def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 to bf16 bits, to nearest even, with integer arithmetic;
    NaN becomes the canonical 0x7FC0."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))))
    out = (rounded >> np.uint32(16)).astype(np.uint16)
    nan = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    if nan.any():
        out[nan] = CANONICAL_NAN_BITS["bf16"]
    return out


def _round_to_odd_f32(x64: np.ndarray) -> np.ndarray:
    """float64 → float32 rounding to odd: with 24 bits against bf16's 8,
    rounding to odd and then to nearest even equals one rounding."""
    r = x64.astype(np.float32)
    inexact = r.astype(np.float64) != x64
    if inexact.any():
        bits = r.view(np.uint32).copy()
        away = np.abs(r.astype(np.float64)) > np.abs(x64)
        bits = np.where(inexact & away, bits - np.uint32(1), bits)
        bits = np.where(inexact, bits | np.uint32(1), bits)
        r = bits.view(np.float32)
    return r


def to_f32(raw: np.ndarray, dtype: str) -> np.ndarray:
    """Values of storage ``raw`` as float32 (exact for f16/bf16/i8; i32 and
    i64 round to nearest even)."""
    if dtype == "f32":
        return raw
    if dtype == "bf16":
        return bf16_to_f32(raw)
    if dtype == "i64":
        return _int_to_f64_odd(raw).astype(np.float32)
    return raw.astype(np.float32)


def canonicalize(x: np.ndarray) -> np.ndarray:
    """float32 with every NaN replaced by 0x7FC00000."""
    nan = x != x
    if nan.any():
        x = np.where(nan, np.uint32(CANONICAL_NAN_BITS["f32"]).view(np.float32), x)
    return x


def from_f32(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round float32 values to ``dtype`` storage: floats to nearest even
    (overflow to infinity, NaN canonical); integers as ``cast`` does (nearest
    even, saturated, NaN → 0)."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "f32":
        return canonicalize(x)
    if dtype == "bf16":
        return f32_to_bf16(x)
    if dtype == "f16":
        with np.errstate(over="ignore"):
            h = x.astype(np.float16)
        nan = h != h
        if nan.any():
            h = np.where(nan, np.uint16(CANONICAL_NAN_BITS["f16"]).view(np.float16), h)
        return h
    with np.errstate(invalid="ignore"):          # a signaling NaN widens quietly
        wide = x.astype(np.float64)
    return _float_to_int(wide, dtype)


def _float_to_int(x64: np.ndarray, dtype: str) -> np.ndarray:
    lo, hi = _INT_RANGE[dtype]
    with np.errstate(invalid="ignore"):
        r = np.rint(x64)
        if dtype == "i64":
            # 2^63 - 1 is not a float64: saturate by comparison, not clip.
            above, below = r >= 2.0 ** 63, r < -2.0 ** 63
            r = np.where(above | below | (r != r), 0, r).astype(np.int64)
            return np.where(above, hi, np.where(below, lo, r)).astype(np.int64)
        r = np.clip(r, lo, hi)
        r = np.where(r != r, 0, r)
    return r.astype(STORAGE[dtype])


def _int_to_f64_odd(raw: np.ndarray) -> np.ndarray:
    """Integers as float64, exact up to 2^53 and rounded to odd above: with
    53 bits against f32's 24, rounding that to nearest even equals one
    rounding of the integer."""
    x = np.asarray(raw).astype(np.int64)
    magnitude = np.where(x < 0, (~x.view(np.uint64)) + np.uint64(1), x.view(np.uint64))
    length, rest = np.zeros(x.shape, np.uint64), magnitude
    for step in (32, 16, 8, 4, 2, 1):
        above = rest >= np.uint64(1 << step)
        length = length + above * np.uint64(step)
        rest = np.where(above, rest >> np.uint64(step), rest)
    length = length + (rest > 0)                  # the bit length of |x|
    shift = np.where(length > 53, length - np.uint64(53), np.uint64(0))
    kept = magnitude >> shift
    sticky = (magnitude & ((np.uint64(1) << shift) - np.uint64(1))) != 0
    kept = kept | sticky.astype(np.uint64)
    value = np.ldexp(kept.astype(np.float64), shift.astype(np.int64))
    return np.where(x < 0, -value, value)


def cast(raw: np.ndarray, src: str, dst: str) -> np.ndarray:
    """The ``cast`` operation: storage of ``src`` → storage of ``dst``."""
    if src == dst:
        return canonicalize(raw) if dst == "f32" else (
            from_f32(to_f32(raw, src), dst) if dst in ("f16", "bf16") else raw.copy())
    if src in INTS and dst in INTS:
        return raw.astype(STORAGE[dst])          # two's complement wrap
    if src in ("i32", "i64") and dst in ("f32", "f16", "bf16"):
        x64 = _int_to_f64_odd(raw)               # exact or odd; round once below
        if dst == "f32":
            return x64.astype(np.float32)
        if dst == "f16":
            with np.errstate(over="ignore"):
                return x64.astype(np.float16)
        return f32_to_bf16(_round_to_odd_f32(x64))
    return from_f32(to_f32(raw, src), dst)


def to_storage(values: np.ndarray, dtype: str) -> np.ndarray:
    """Host data → storage of ``dtype`` (floats through float32; bf16 rounds
    to nearest even; integers saturate). Arrays already in the storage type
    are taken as they are."""
    values = np.asarray(values)
    st = STORAGE[dtype]
    if values.dtype == st:
        return values
    if dtype in INTS:
        if values.dtype.kind in "iub":
            return values.astype(st)
        return _float_to_int(values.astype(np.float64), dtype)
    if dtype == "bf16":
        return f32_to_bf16(values.astype(np.float32))
    return values.astype(np.float32).astype(st)


def from_storage(raw: np.ndarray, dtype: str) -> np.ndarray:
    """Storage → a host array (bf16 is widened to float32)."""
    return bf16_to_f32(raw) if dtype == "bf16" else raw


class IndexOutOfRange(ValueError):
    """A ``dma_gather`` index outside its range (``[0, rows)``, or
    ``[-rows, rows)`` when negative indices wrap): the first one in
    row-major order, its position in the index space and its value."""

    def __init__(self, position: tuple[int, ...], value: int, rows: int,
                 wrap: bool = False):
        low = -rows if wrap else 0
        super().__init__(f"index {value} at position {position} is outside "
                         f"[{low}, {rows})")
        self.position, self.value, self.rows, self.wrap = position, value, rows, wrap


def gather(memory: np.ndarray, item: int, table_base: int,
           table_strides: Sequence[int], index_stride: int, rows: int,
           wrap: bool, index: np.ndarray) -> np.ndarray:
    """The elements a ``dma_gather`` reads, as bits (:data:`BITS`): element
    ``i`` is the ``item``-byte element of ``memory`` (a byte array) at
    ``table_base + (sum(i_k * table_strides[k]) + index[i] * index_stride) *
    item``, where with ``wrap`` a negative index counts from the end
    (``index + rows``). Raises :class:`IndexOutOfRange` before reading
    anything when an index is outside ``[0, rows)`` (``[-rows, rows)`` with
    ``wrap``)."""
    given = np.asarray(index, np.int64)
    index = np.where(given < 0, given + rows, given) if wrap else given
    bad = (index < 0) | (index >= rows)
    if bad.any():
        position = tuple(int(p) for p in np.argwhere(bad)[0])
        raise IndexOutOfRange(position, int(given[position]), rows, wrap)
    elements = table_base // item + index * index_stride
    for dim, (size, stride) in enumerate(zip(index.shape, table_strides)):
        shape = [1] * index.ndim
        shape[dim] = size
        elements = elements + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    words = memory[:memory.size // item * item].view(BITS[item])
    return words[elements]


# ---------------------------------------------------------------------------
# exp, log, tanh, erf, sin, cos: the sequences of docs/isa.md.
# ---------------------------------------------------------------------------

_EXP_HI = _c(88.72283905206835)
_EXP_LO = _c(-103.97208)
_LOG2E = _c(1.44269504088896341)
_HALF = _c(0.5)
_ONE = _c(1.0)
_TWO = _c(2.0)
_C1 = _c(0.693359375)
_C2 = _c(-2.12194440e-4)
_EXP_P = [_c(v) for v in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                          4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)]
_SQRTH = _c(0.707106781186547524)
_SQRT2 = _c(1.41421356237309505)
_LOG_P0 = _c(7.0376836292e-2)
# (sign, constant) of each `p = p * f -/+ c` step of log.
_LOG_STEPS = [(-1, _c(1.1514610310e-1)), (+1, _c(1.1676998740e-1)),
              (-1, _c(1.2420140846e-1)), (+1, _c(1.4249322787e-1)),
              (-1, _c(1.6668057665e-1)), (+1, _c(2.0000714765e-1)),
              (-1, _c(2.4999993993e-1)), (+1, _c(3.3333331174e-1))]
_ERF_A = _c(0.3275911)
_ERF_P0 = _c(1.061405429)
_ERF_STEPS = [(-1, _c(1.453152027)), (+1, _c(1.421413741)),
              (-1, _c(0.284496736)), (+1, _c(0.254829592))]
_NINE = _c(9.0)
_FOPI = _c(1.27323954473516)
_SIN_MAX = _c(65536.0)
_EIGHT = _c(8.0)
_EIGHTH = _c(0.125)
_DP1 = _c(0.78515625)
_DP2 = _c(2.4187564849853515625e-4)
_DP3 = _c(3.77489497744594108e-8)
_SIN_P = [_c(v) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS_P = [_c(v) for v in (2.443315711809948e-5, -1.388731625493765e-3,
                          4.166664568298827e-2)]


def exp(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        n = np.floor(x * _LOG2E + _HALF)
        r = (x - n * _C1) - n * _C2
        z = r * r
        p = np.full_like(r, _EXP_P[0])
        for c in _EXP_P[1:]:
            p = p * r + c
        y = (p * z + r) + _ONE
        # n is an integer in [-150, 128] wherever the result is not a special
        # case; elsewhere any exponent will do (overwritten below).
        ni = np.where(np.abs(n) <= 1000, n, 0).astype(np.int32)
        out = np.ldexp(y, ni)
        out = np.where(x > _EXP_HI, np.float32(np.inf), out)
        out = np.where(x < _EXP_LO, np.float32(0.0), out)
    return out.astype(np.float32, copy=False)


def log(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        m, e = np.frexp(x)
        small = m < _SQRTH
        e = e - small.astype(e.dtype)
        m = np.where(small, m + m, m)
        f = m - _ONE
        z = f * f
        p = np.full_like(f, _LOG_P0)
        for sign, c in _LOG_STEPS:
            p = p * f - c if sign < 0 else p * f + c
        ef = e.astype(np.float32)
        y = ((p * f) * z + ef * _C2) - _HALF * z
        out = (f + y) + ef * _C1
        out = np.where(x == 0, np.float32(-np.inf), out)
        out = np.where(x == np.inf, np.float32(np.inf), out)
        out = np.where((x < 0) | (x != x), np.float32(np.nan), out)
    return out.astype(np.float32, copy=False)


def _sign(x: np.ndarray) -> np.ndarray:
    return np.copysign(np.float32(1.0), x).astype(np.float32)


def tanh(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    s, a = _sign(x), np.abs(x)
    with np.errstate(all="ignore"):
        e = exp(a + a)
        t = s * (_ONE - _TWO / (e + _ONE))
        out = np.where(a > _NINE, s, t)
    return out.astype(np.float32, copy=False)


def erf(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    s, a = _sign(x), np.abs(x)
    with np.errstate(all="ignore"):
        t = _ONE / (_ONE + _ERF_A * a)
        p = np.full_like(t, _ERF_P0)
        for sign, c in _ERF_STEPS:
            p = p * t - c if sign < 0 else p * t + c
        out = s * (_ONE - (p * t) * exp(-(a * a)))
    return out.astype(np.float32, copy=False)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU as PyTorch's erf form, ``x * ((erf(x / sqrt(2)) + 1) * 0.5)``,
    each step an f32 operation of the ISA (docs/isa.md): the bits of the
    five instructions it chains."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        return x * ((erf(x / _SQRT2) + _ONE) * _HALF)


def _octant(x: np.ndarray):
    """sin and cos's argument reduction: ``(j, s, c)`` with ``j`` the even
    octant of ``|x|`` mod 8 (NaN where ``|x|`` is not at most 65536) and
    ``s``, ``c`` the sine and cosine polynomials of the remainder
    (docs/isa.md)."""
    a = np.abs(x)
    y = np.where(a <= _SIN_MAX, np.floor(a * _FOPI), np.float32(np.nan))
    y = np.where(y - _TWO * np.floor(y * _HALF) == _ONE, y + _ONE, y)
    j = y - _EIGHT * np.floor(y * _EIGHTH)
    r = ((a - y * _DP1) - y * _DP2) - y * _DP3
    z = r * r
    s = ((_SIN_P[0] * z + _SIN_P[1]) * z + _SIN_P[2]) * z * r + r
    c = ((_COS_P[0] * z + _COS_P[1]) * z + _COS_P[2]) * z * z - _HALF * z + _ONE
    return j, s, c


def sin(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        j, s, c = _octant(x)
        out = np.where((j == 2) | (j == 6), c, s)
        out = np.where(j >= 4, -out, out)
        out = np.where(np.signbit(x), -out, out)
        out = np.where(np.isfinite(j), out, np.float32(np.nan))
    return out.astype(np.float32, copy=False)


def cos(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        j, s, c = _octant(x)
        out = np.where((j == 2) | (j == 6), s, c)
        out = np.where((j == 2) | (j == 4), -out, out)
        out = np.where(np.isfinite(j), out, np.float32(np.nan))
    return out.astype(np.float32, copy=False)


# ---------------------------------------------------------------------------
# Elementwise operations on float32 (or on integer storage, which wraps).
# ---------------------------------------------------------------------------

def _zero_sign_fix(a, b, out, combine):
    """max/min of equal operands: combine the bits (+0 vs -0 differ only in
    the sign bit; equal non-zero operands have equal bits)."""
    eq = a == b
    if eq.any():
        bits = combine(a.view(np.uint32), b.view(np.uint32)).view(np.float32)
        out = np.where(eq, bits, out)
    return out


def _quiet(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) with every NaN quiet. docs/isa.md: max and min return
    the other operand for any NaN; NumPy's fmax/fmin (IEEE 754-2008 maxNum)
    return NaN for a signaling one, and in a reduction the result then
    depends on where it sits."""
    nan = x != x
    if not nan.any():
        return x
    return np.where(nan, (x.view(np.uint32) | np.uint32(0x00400000)).view(np.float32), x)


def fmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max: a NaN operand (quiet or signaling) yields the other; -0 < +0."""
    a, b = np.broadcast_arrays(_quiet(np.asarray(a, np.float32)),
                               _quiet(np.asarray(b, np.float32)))
    out = np.fmax(a, b)
    return _zero_sign_fix(np.ascontiguousarray(a), np.ascontiguousarray(b), out,
                          np.bitwise_and)


def fmin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(_quiet(np.asarray(a, np.float32)),
                               _quiet(np.asarray(b, np.float32)))
    out = np.fmin(a, b)
    return _zero_sign_fix(np.ascontiguousarray(a), np.ascontiguousarray(b), out,
                          np.bitwise_or)


UNARY_F32: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": exp,
    "log": log,
    "tanh": tanh,
    "erf": erf,
    "sin": sin,
    "cos": cos,
    "floor": np.floor,
    "gelu": gelu,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: _ONE / np.sqrt(x),
    "recip": lambda x: _ONE / x,
}

BINARY_F32: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": fmax, "min": fmin,
}
def _divide_int(a, b):
    """Integer division truncated toward zero, defined everywhere as RISC-V
    defines it: ``x / 0 = -1``, and the most negative value / -1 is itself
    (the quotient wraps)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    zero = b64 == 0
    wraps = (a64 == np.iinfo(np.int64).min) & (b64 == -1)
    divisor = np.where(zero | wraps, 1, b64)
    with np.errstate(all="ignore"):
        q = a64 // divisor
        inexact = (a64 % divisor != 0) & ((a64 < 0) != (divisor < 0))
    q = np.where(inexact, q + 1, q)
    return np.where(zero, -1, np.where(wraps, a64, q))


BINARY_INT = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
              "div": _divide_int, "max": np.maximum, "min": np.minimum}
COMPARE = {"lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}


def unary(op: str, raw: np.ndarray, in_dtype: str, out_dtype: str) -> np.ndarray:
    """``vector_unary`` on storage arrays."""
    if op == "copy":
        return raw.copy()
    if op == "cast":
        return cast(raw, in_dtype, out_dtype)
    if in_dtype in INTS:
        with np.errstate(all="ignore"):
            return (np.negative(raw) if op == "neg" else np.abs(raw)).astype(raw.dtype)
    with np.errstate(all="ignore"):
        return from_f32(UNARY_F32[op](to_f32(raw, in_dtype)), out_dtype)


def binary(op: str, lhs: np.ndarray, rhs: np.ndarray, dtype: str) -> np.ndarray:
    """``vector_binary`` on storage arrays of ``dtype``."""
    if dtype in INTS:
        with np.errstate(all="ignore"):
            return BINARY_INT[op](lhs, rhs).astype(STORAGE[dtype])
    with np.errstate(all="ignore"):
        return from_f32(BINARY_F32[op](to_f32(lhs, dtype), to_f32(rhs, dtype)), dtype)


def immediate(value: float, dtype: str):
    """The immediate of ``vector_binary_imm``: the f32 value itself for float
    types (not rounded to ``dtype``); for integers, converted as ``cast``."""
    if dtype in INTS:
        return _float_to_int(np.array([value], np.float64), dtype)[0]
    return np.float32(value)


def binary_imm(op: str, raw: np.ndarray, imm: float, imm_is_lhs: bool,
               dtype: str) -> np.ndarray:
    c = immediate(imm, dtype)
    if dtype in INTS:
        x = raw
        fn = BINARY_INT[op]
        with np.errstate(all="ignore"):
            res = fn(c, x) if imm_is_lhs else fn(x, c)
        return np.asarray(res).astype(STORAGE[dtype])
    x = to_f32(raw, dtype)
    fn = BINARY_F32[op]
    c_arr = np.full_like(x, c)
    with np.errstate(all="ignore"):
        res = fn(c_arr, x) if imm_is_lhs else fn(x, c_arr)
    return from_f32(res, dtype)


def fill(value: float, dtype: str, shape) -> np.ndarray:
    if dtype in INTS:
        return np.full(shape, immediate(value, dtype), STORAGE[dtype])
    return np.full(shape, from_f32(np.array([value], np.float32), dtype)[0],
                   STORAGE[dtype])


def compare(pred: str, lhs: np.ndarray, rhs: np.ndarray, dtype: str) -> np.ndarray:
    if dtype not in INTS:
        lhs, rhs = to_f32(lhs, dtype), to_f32(rhs, dtype)
    with np.errstate(invalid="ignore"):
        res = COMPARE[pred](lhs, rhs)
    if dtype in INTS:
        return res.astype(STORAGE[dtype])
    return from_f32(res.astype(np.float32), dtype)


def select(cond: np.ndarray, lhs: np.ndarray, rhs: np.ndarray, dtype: str) -> np.ndarray:
    """``lhs`` where ``cond != 0`` (a NaN condition is non-zero), else ``rhs``."""
    c = cond if dtype in INTS else to_f32(cond, dtype)
    out = np.where(c != 0, lhs, rhs)
    if dtype in INTS:
        return out
    return from_f32(to_f32(out, dtype), dtype)


def reduce(op: str, raw: np.ndarray, dim: int, dtype: str) -> np.ndarray:
    """``vector_reduce``: ``r = x[0]; r = r op x[i]`` in index order along
    ``dim``, in f32 (wrapping integers), rounded once to ``dtype``."""
    if dtype in INTS:
        if op == "add":
            return np.take(np.add.accumulate(raw, axis=dim, dtype=raw.dtype), -1, axis=dim)
        return np.max(raw, axis=dim)
    x = to_f32(raw, dtype)
    if op == "add":
        # accumulate is strictly sequential: every prefix is an output.
        with np.errstate(all="ignore"):
            r = np.take(np.add.accumulate(x, axis=dim, dtype=np.float32), -1, axis=dim)
    else:
        # max is order-independent under these rules (NaN, quiet or
        # signaling, is skipped; -0 < +0), so a reduction tree gives the
        # sequential result.
        x = _quiet(x)
        with np.errstate(invalid="ignore"):
            r = np.fmax.reduce(x, axis=dim)
        zero = r == 0
        if zero.any():
            pos = np.any(x.view(np.uint32) == 0, axis=dim)
            r = np.where(zero, np.where(pos, np.float32(0.0), np.float32(-0.0)), r)
    return from_f32(np.asarray(r, np.float32), dtype)


# Elements of the products of one chunk of k in :func:`matmul` (1 MiB).
_MATMUL_CHUNK = 1 << 18


def matmul(lhs: np.ndarray, rhs: np.ndarray, acc: np.ndarray, dtype: str) -> np.ndarray:
    """``acc + lhs @ rhs`` in the ISA's order: for each (i, j), ``a = a + p_k``
    for k = 0, 1, .. with each product and sum rounded to f32 (i32 wraps for
    i8). ``acc`` is float32 (int32 for i8); returns a new array."""
    if dtype == "i8":
        l32, r32 = lhs.astype(np.int32), rhs.astype(np.int32)
        a = acc.astype(np.int32, copy=True)
        with np.errstate(all="ignore"):
            for k in range(l32.shape[1]):
                a += l32[:, k:k + 1] * r32[k:k + 1, :]
        return a
    # a = a + p_k for k ascending, p_k = lhs[i, k] * rhs[k, j], each product
    # rounded to f32 before its add. Memory stays O(m * n) plus at most
    # _MATMUL_CHUNK elements, whatever m and k (weight-stationary blocks have
    # an unbounded m, output-stationary ones an unbounded k).
    l32, r32 = to_f32(lhs, dtype), to_f32(rhs, dtype)
    kk, (m, n) = l32.shape[1], acc.shape
    with np.errstate(all="ignore"):
        if m * n <= 8 * kk and (kk + 1) * m * n <= _MATMUL_CHUNK:
            # Small blocks: every product at once, [a, p_0, p_1, ...] summed
            # along the last axis by np.add.accumulate (strictly sequential:
            # every prefix is an output).
            buf = np.empty((m, n, kk + 1), np.float32)
            buf[:, :, 0] = acc
            np.multiply(l32[:, None, :], r32.T[None, :, :], out=buf[:, :, 1:])
            a = np.add.accumulate(buf, axis=2, dtype=np.float32)[:, :, kk].copy()
        else:
            # One k at a time: p_k for all (i, j) at once, then a = a + p_k.
            a = np.array(acc, dtype=np.float32, copy=True)
            p = np.empty_like(a)
            lt = l32.T
            for k in range(kk):
                np.multiply(lt[k, :, None], r32[k, None, :], out=p)
                np.add(a, p, out=a)
    return canonicalize(a)
