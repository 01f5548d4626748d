"""The CUDA source of the emulator: the ISA's numerics as scalar functions,
the execution of one table row by numbered threads, and the persistent
kernel in which each group of thread blocks runs tiles.

The source is also valid host C++ (``__CUDACC__`` undefined): the scalar
numerics and :c:func:`exec_row` then run on one thread, and
``host_run_rows`` executes a table in a given order. The tests compile it
with the host compiler (``-ffp-contract=off``) and compare it with the
simulator, so the arithmetic the GPU runs is checked where there is no GPU.

Every float operation is an explicitly rounded IEEE operation
(``__fmul_rn``, ``__fadd_rn``, ``__fdiv_rn``, ``__fsqrt_rn``), which the
compiler never contracts into a fused multiply-add; the module is also
compiled with ``--fmad=false``. Constants are injected as bit patterns
computed the way :mod:`tessel.runtime.numerics` computes them.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .. import isa
from . import table as tb

# The decimals of docs/isa.md; each becomes np.float32(decimal), as in
# tessel.runtime.numerics.
_CONSTANTS = {
    "EXP_HI": 88.72283905206835, "EXP_LO": -103.97208,
    "LOG2E": 1.44269504088896341, "HALF": 0.5, "ONE": 1.0, "TWO": 2.0,
    "C1": 0.693359375, "C2": -2.12194440e-4,
    "EXP_P0": 1.9875691500e-4, "EXP_P1": 1.3981999507e-3,
    "EXP_P2": 8.3334519073e-3, "EXP_P3": 4.1665795894e-2,
    "EXP_P4": 1.6666665459e-1, "EXP_P5": 5.0000001201e-1,
    "SQRTH": 0.707106781186547524,
    "LOG_P0": 7.0376836292e-2, "LOG_P1": 1.1514610310e-1,
    "LOG_P2": 1.1676998740e-1, "LOG_P3": 1.2420140846e-1,
    "LOG_P4": 1.4249322787e-1, "LOG_P5": 1.6668057665e-1,
    "LOG_P6": 2.0000714765e-1, "LOG_P7": 2.4999993993e-1,
    "LOG_P8": 3.3333331174e-1,
    "ERF_A": 0.3275911, "ERF_P0": 1.061405429, "ERF_P1": 1.453152027,
    "ERF_P2": 1.421413741, "ERF_P3": 0.284496736, "ERF_P4": 0.254829592,
    "NINE": 9.0,
    "FOPI": 1.27323954473516, "SIN_MAX": 65536.0, "EIGHT": 8.0, "EIGHTH": 0.125,
    "DP1": 0.78515625, "DP2": 2.4187564849853515625e-4,
    "DP3": 3.77489497744594108e-8,
    "SIN_P0": -1.9515295891e-4, "SIN_P1": 8.3321608736e-3,
    "SIN_P2": -1.6666654611e-1,
    "COS_P0": 2.443315711809948e-5, "COS_P1": -1.388731625493765e-3,
    "COS_P2": 4.166664568298827e-2,
}


def _defines() -> str:
    lines = []
    for name, value in _CONSTANTS.items():
        bits = int(np.float32(value).view(np.uint32))
        lines.append(f"#define K_{name} 0x{bits:08x}u")
    for name, code in isa.OPCODES.items():
        lines.append(f"#define OP_{name.upper()} {code}")
    for name, code in isa.DTYPE_CODE.items():
        lines.append(f"#define DT_{name.upper()} {code}")
    for table, prefix in ((isa.UNARY_OPS, "U"), (isa.BINARY_OPS, "B"),
                          (isa.REDUCE_OPS, "R"), (isa.PREDICATES, "P")):
        for code, name in enumerate(table):
            lines.append(f"#define {prefix}_{name.upper()} {code}")
    for name in ("OP", "SUB", "DT_IN", "DT_OUT", "SIZE0", "IMM", "FLAG", "SEM",
                 "COUNT", "VIEW0", "VIEW_WIDTH", "WIDTH"):
        lines.append(f"#define COL_{name} {getattr(tb, name)}")
    return "\n".join(lines) + "\n"


_BODY = r"""
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef signed char i8;
typedef int i32;
typedef long long i64;
typedef unsigned long long u64;

#ifdef __CUDACC__
#define DEV __device__ __forceinline__
#define FMUL(a, b) __fmul_rn((a), (b))
#define FADD(a, b) __fadd_rn((a), (b))
#define FSUB(a, b) __fsub_rn((a), (b))
#define FDIV(a, b) __fdiv_rn((a), (b))
#define FSQRT(a) __fsqrt_rn(a)
#define UNROLL _Pragma("unroll")
#define UNROLL_K _Pragma("unroll 8")
DEV float bits_f(u32 b) { return __uint_as_float(b); }
DEV u32 f_bits(float f) { return __float_as_uint(f); }
DEV int clz64(u64 x) { return __clzll((long long)x); }
DEV float i32_to_f32_rn(i32 v) { return __int2float_rn(v); }
#else
#include <math.h>
#include <string.h>
#define DEV static inline
/* Compiled with -ffp-contract=off: each operator is one IEEE operation. */
#define FMUL(a, b) ((a) * (b))
#define FADD(a, b) ((a) + (b))
#define FSUB(a, b) ((a) - (b))
#define FDIV(a, b) ((a) / (b))
#define FSQRT(a) sqrtf(a)
#define UNROLL
#define UNROLL_K
DEV float bits_f(u32 b) { float f; memcpy(&f, &b, 4); return f; }
DEV u32 f_bits(float f) { u32 b; memcpy(&b, &f, 4); return b; }
DEV int clz64(u64 x) { return __builtin_clzll(x); }
DEV float i32_to_f32_rn(i32 v) { return (float)v; }
#endif

#define KF(name) bits_f(K_##name)
#define F32_INF bits_f(0x7f800000u)
#define CANON_F32 0x7fc00000u
#define CANON_F16 0x7e00u
#define CANON_BF16 0x7fc0u

/* ---- conversions ------------------------------------------------------ */

DEV int is_int(int dt) { return dt == DT_I8 || dt == DT_I32 || dt == DT_I64; }
DEV int dsize(int dt) {
    return dt == DT_I64 ? 8 : (dt == DT_F32 || dt == DT_I32 ? 4 : (dt == DT_I8 ? 1 : 2));
}

DEV float f16_to_f32(u16 h) {
    u32 s = ((u32)h & 0x8000u) << 16, e = ((u32)h >> 10) & 0x1fu, m = (u32)h & 0x3ffu;
    if (e == 0x1fu) return bits_f(s | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = FMUL((float)m, bits_f(0x33800000u));      /* m * 2^-24, exact */
        return bits_f(f_bits(v) | s);
    }
    return bits_f(s | ((e + 112u) << 23) | (m << 13));
}

/* Round to nearest even; overflow to infinity; NaN canonical. */
DEV u16 f32_to_f16(float f) {
    u32 x = f_bits(f), s = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (u16)CANON_F16;
    if (a >= 0x477ff000u) return (u16)(s | 0x7c00u);        /* >= 65520 */
    if (a < 0x38800000u) {                                   /* below 2^-14 */
        if (a <= 0x33000000u) return (u16)s;                  /* <= 2^-25 */
        u32 e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
        u32 shift = 126u - e, q = m >> shift, rem = m & ((1u << shift) - 1u);
        u32 half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (u16)(s | q);
    }
    u32 q = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13), rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++;
    return (u16)(s | q);
}

DEV float bf16_to_f32(u16 b) { return bits_f((u32)b << 16); }

DEV u16 f32_to_bf16(float f) {
    u32 x = f_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (u16)CANON_BF16;
    return (u16)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

DEV float canonical(float f) { return f != f ? bits_f(CANON_F32) : f; }

/* Nearest even, saturated to the type's range, NaN -> 0 (cast). */
DEV i64 f32_to_int(float x, int dt) {
    if (x != x) return 0;
    float r = rintf(x);
    if (dt == DT_I8) return r > 127.0f ? 127 : (r < -128.0f ? -128 : (i64)r);
    if (dt == DT_I32) {
        if (r >= 2147483648.0f) return 0x7fffffff;
        if (r < -2147483648.0f) return -2147483647LL - 1;
        return (i64)r;
    }
    if (r >= 9223372036854775808.0f) return (i64)0x7fffffffffffffffull;
    if (r < -9223372036854775808.0f) return (i64)0x8000000000000000ull;
    return (i64)r;
}

DEV float pow2f(int e) { return bits_f((u32)(e + 127) << 23); }   /* -126..127 */

/* |v| rounded to `bits` (at most 24) significant bits, nearest even, as an
   exact f32. */
DEV float round_magnitude(u64 u, int bits) {
    int p = 63 - clz64(u);
    if (p < bits) return (float)(u32)u;
    int shift = p - bits + 1;
    u64 kept = u >> shift, rem = u & ((1ull << shift) - 1ull), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (kept & 1ull))) kept++;
    return FMUL((float)(u32)kept, pow2f(shift));
}

/* An integer to f32 (24 bits), f16 (11) or bf16 (8) rounded once, not
   through f32. */
DEV float int_rounded(i64 v, int bits) {
    if (v == 0) return 0.0f;
    u64 u = v < 0 ? 0ull - (u64)v : (u64)v;
    float m = round_magnitude(u, bits);
    return v < 0 ? -m : m;
}

/* ---- loads and stores --------------------------------------------------- */

DEV float ld_f(const u8* p, int dt) {
    switch (dt) {
    case DT_F32: return *(const float*)p;
    case DT_F16: return f16_to_f32(*(const u16*)p);
    case DT_BF16: return bf16_to_f32(*(const u16*)p);
    case DT_I8: return (float)*(const i8*)p;
    case DT_I32: return i32_to_f32_rn(*(const i32*)p);
    default: return int_rounded(*(const i64*)p, 24);
    }
}

/* Integers are computed on in 64 bits; a store keeps the type's low bits. */
DEV i64 ld_i(const u8* p, int dt) {
    return dt == DT_I8 ? (i64)*(const i8*)p : (dt == DT_I32 ? (i64)*(const i32*)p : *(const i64*)p);
}

/* An f32 result written as `dt`: rounded, NaN canonical, integers saturated. */
DEV void st_f(u8* p, int dt, float v) {
    switch (dt) {
    case DT_F32: *(float*)p = canonical(v); break;
    case DT_F16: *(u16*)p = f32_to_f16(v); break;
    case DT_BF16: *(u16*)p = f32_to_bf16(v); break;
    case DT_I8: *(i8*)p = (i8)f32_to_int(v, DT_I8); break;
    case DT_I32: *(i32*)p = (i32)f32_to_int(v, DT_I32); break;
    default: *(i64*)p = f32_to_int(v, DT_I64); break;
    }
}

/* An integer result: i8 and i32 keep the low bits (two's complement wrap). */
DEV void st_i(u8* p, int dt, i64 v) {
    if (dt == DT_I8) *(i8*)p = (i8)(u8)((u64)v & 0xffu);
    else if (dt == DT_I32) *(i32*)p = (i32)(u32)((u64)v & 0xffffffffu);
    else *(i64*)p = v;
}

DEV void copy_bits(u8* dst, const u8* src, int size) {
    if (size == 8) *(u64*)dst = *(const u64*)src;
    else if (size == 4) *(u32*)dst = *(const u32*)src;
    else if (size == 2) *(u16*)dst = *(const u16*)src;
    else *dst = *src;
}

/* ---- exp, log, tanh, erf (docs/isa.md) ---------------------------------- */

/* y * 2^n rounded once (n in -252..254; the first product is exact). */
DEV float ldexp_rn(float y, int n) {
    if (n > 127) return FMUL(FMUL(y, pow2f(127)), pow2f(n - 127));
    if (n < -126) return FMUL(FMUL(y, pow2f(n + 126)), pow2f(-126));
    return FMUL(y, pow2f(n));
}

DEV float isa_exp(float x) {
    if (x != x) return x;
    if (x > KF(EXP_HI)) return F32_INF;
    if (x < KF(EXP_LO)) return 0.0f;
    float n = floorf(FADD(FMUL(x, KF(LOG2E)), KF(HALF)));
    float r = FSUB(FSUB(x, FMUL(n, KF(C1))), FMUL(n, KF(C2)));
    float z = FMUL(r, r);
    float p = KF(EXP_P0);
    p = FADD(FMUL(p, r), KF(EXP_P1));
    p = FADD(FMUL(p, r), KF(EXP_P2));
    p = FADD(FMUL(p, r), KF(EXP_P3));
    p = FADD(FMUL(p, r), KF(EXP_P4));
    p = FADD(FMUL(p, r), KF(EXP_P5));
    float y = FADD(FADD(FMUL(p, z), r), KF(ONE));
    return ldexp_rn(y, (int)n);
}

/* x positive, finite, non-zero: x = m * 2^e, 0.5 <= m < 1, exactly. */
DEV float frexp_exact(float x, int* e) {
    int adjust = 0;
    u32 b = f_bits(x);
    if (((b >> 23) & 0xffu) == 0) {                  /* subnormal: scale exactly */
        b = f_bits(FMUL(x, pow2f(25)));
        adjust = -25;
    }
    *e = (int)((b >> 23) & 0xffu) - 126 + adjust;
    return bits_f((b & 0x807fffffu) | (126u << 23));
}

DEV float isa_log(float x) {
    if (x != x || x < 0.0f) return bits_f(CANON_F32);
    if (x == 0.0f) return -F32_INF;
    if (x == F32_INF) return F32_INF;
    int e;
    float m = frexp_exact(x, &e);
    if (m < KF(SQRTH)) { e -= 1; m = FADD(m, m); }
    float f = FSUB(m, KF(ONE));
    float z = FMUL(f, f);
    float p = KF(LOG_P0);
    p = FSUB(FMUL(p, f), KF(LOG_P1));
    p = FADD(FMUL(p, f), KF(LOG_P2));
    p = FSUB(FMUL(p, f), KF(LOG_P3));
    p = FADD(FMUL(p, f), KF(LOG_P4));
    p = FSUB(FMUL(p, f), KF(LOG_P5));
    p = FADD(FMUL(p, f), KF(LOG_P6));
    p = FSUB(FMUL(p, f), KF(LOG_P7));
    p = FADD(FMUL(p, f), KF(LOG_P8));
    float ef = (float)e;
    float y = FSUB(FADD(FMUL(FMUL(p, f), z), FMUL(ef, KF(C2))), FMUL(KF(HALF), z));
    return FADD(FADD(f, y), FMUL(ef, KF(C1)));
}

DEV float isa_tanh(float x) {
    float s = copysignf(1.0f, x), a = fabsf(x);
    if (a > KF(NINE)) return s;
    float e = isa_exp(FADD(a, a));
    return FMUL(s, FSUB(KF(ONE), FDIV(KF(TWO), FADD(e, KF(ONE)))));
}

DEV float isa_erf(float x) {
    float s = copysignf(1.0f, x), a = fabsf(x);
    float t = FDIV(KF(ONE), FADD(KF(ONE), FMUL(KF(ERF_A), a)));
    float p = KF(ERF_P0);
    p = FSUB(FMUL(p, t), KF(ERF_P1));
    p = FADD(FMUL(p, t), KF(ERF_P2));
    p = FSUB(FMUL(p, t), KF(ERF_P3));
    p = FADD(FMUL(p, t), KF(ERF_P4));
    return FMUL(s, FSUB(KF(ONE), FMUL(FMUL(p, t), isa_exp(-FMUL(a, a)))));
}

/* ---- sin, cos (docs/isa.md) --------------------------------------------- */

/* |x|'s even octant mod 8 (NaN where |x| is not at most 65536), and the
   sine and cosine polynomials of the remainder. */
DEV float octant(float x, float* s, float* c) {
    float a = fabsf(x);
    float y = a <= KF(SIN_MAX) ? floorf(FMUL(a, KF(FOPI))) : bits_f(CANON_F32);
    if (FSUB(y, FMUL(KF(TWO), floorf(FMUL(y, KF(HALF))))) == KF(ONE))
        y = FADD(y, KF(ONE));
    float j = FSUB(y, FMUL(KF(EIGHT), floorf(FMUL(y, KF(EIGHTH)))));
    float r = FSUB(FSUB(FSUB(a, FMUL(y, KF(DP1))), FMUL(y, KF(DP2))),
                   FMUL(y, KF(DP3)));
    float z = FMUL(r, r);
    float p = FADD(FMUL(KF(SIN_P0), z), KF(SIN_P1));
    p = FADD(FMUL(p, z), KF(SIN_P2));
    *s = FADD(FMUL(FMUL(p, z), r), r);
    float q = FADD(FMUL(KF(COS_P0), z), KF(COS_P1));
    q = FADD(FMUL(q, z), KF(COS_P2));
    *c = FADD(FSUB(FMUL(FMUL(q, z), z), FMUL(KF(HALF), z)), KF(ONE));
    return j;
}

DEV float isa_sin(float x) {
    float s, c;
    float j = octant(x, &s, &c);
    if (j != j) return bits_f(CANON_F32);
    float out = (j == 2.0f || j == 6.0f) ? c : s;
    if (j >= 4.0f) out = -out;
    return (f_bits(x) >> 31) ? -out : out;
}

DEV float isa_cos(float x) {
    float s, c;
    float j = octant(x, &s, &c);
    if (j != j) return bits_f(CANON_F32);
    float out = (j == 2.0f || j == 6.0f) ? s : c;
    return (j == 2.0f || j == 4.0f) ? -out : out;
}

/* ---- elementwise operations -------------------------------------------- */

/* max/min: a NaN operand gives the other; -0 orders below +0. */
DEV float isa_max(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return bits_f(f_bits(a) & f_bits(b));
    return a > b ? a : b;
}

DEV float isa_min(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return bits_f(f_bits(a) | f_bits(b));
    return a < b ? a : b;
}

DEV float unary_f(int op, float x) {
    switch (op) {
    case U_NEG: return -x;
    case U_ABS: return fabsf(x);
    case U_EXP: return isa_exp(x);
    case U_LOG: return isa_log(x);
    case U_TANH: return isa_tanh(x);
    case U_ERF: return isa_erf(x);
    case U_SIN: return isa_sin(x);
    case U_COS: return isa_cos(x);
    case U_FLOOR: return floorf(x);
    case U_SQRT: return FSQRT(x);
    case U_RSQRT: return FDIV(1.0f, FSQRT(x));
    default: return FDIV(1.0f, x);                 /* U_RECIP */
    }
}

DEV float binary_f(int op, float a, float b) {
    switch (op) {
    case B_ADD: return FADD(a, b);
    case B_SUB: return FSUB(a, b);
    case B_MUL: return FMUL(a, b);
    case B_DIV: return FDIV(a, b);
    case B_MAX: return isa_max(a, b);
    default: return isa_min(a, b);
    }
}

/* Integers wrap: the arithmetic is done on u64, and a store keeps the low
   bits of the type (which are those of the narrower wrapping operation). */
DEV i64 binary_i(int op, i64 a, i64 b) {
    switch (op) {
    case B_ADD: return (i64)((u64)a + (u64)b);
    case B_SUB: return (i64)((u64)a - (u64)b);
    case B_MUL: return (i64)((u64)a * (u64)b);
    /* Truncated toward zero; x / 0 = -1 and MIN / -1 = MIN (RISC-V's). */
    case B_DIV: return b == 0 ? -1 : (b == -1 ? (i64)(0ull - (u64)a) : a / b);
    case B_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

// Ordered comparisons on floats (false with a NaN) and on integers alike.
template <typename T>
DEV int compare(int pred, T a, T b) {
    switch (pred) {
    case P_LT: return a < b;
    case P_LE: return a <= b;
    case P_GT: return a > b;
    case P_GE: return a >= b;
    case P_EQ: return a == b;
    default: return a != b;
    }
}

DEV void cast(const u8* src, int sd, u8* dst, int dd) {
    if (sd == dd && is_int(sd)) { copy_bits(dst, src, dsize(sd)); return; }
    if (is_int(sd) && is_int(dd)) { st_i(dst, dd, ld_i(src, sd)); return; }
    if (sd == DT_I32 || sd == DT_I64) {
        i64 v = ld_i(src, sd);
        if (dd == DT_F32) *(float*)dst = int_rounded(v, 24);
        else if (dd == DT_F16) *(u16*)dst = f32_to_f16(int_rounded(v, 11));
        else *(u16*)dst = f32_to_bf16(int_rounded(v, 8));
        return;
    }
    st_f(dst, dd, ld_f(src, sd));
}

/* One element of a vector instruction other than reduce. */
DEV void element(int op, int sub, int din, int dout, u32 imm, int imm_lhs,
                 const u8* a, const u8* b, const u8* c, u8* out) {
    if (op == OP_VECTOR_UNARY) {
        if (sub == U_COPY) copy_bits(out, a, dsize(din));
        else if (sub == U_CAST) cast(a, din, out, dout);
        else if (is_int(din)) {
            i64 x = ld_i(a, din), neg = (i64)(0ull - (u64)x);
            st_i(out, dout, sub == U_NEG ? neg : (x < 0 ? neg : x));
        } else st_f(out, dout, unary_f(sub, ld_f(a, din)));
    } else if (op == OP_VECTOR_BINARY) {
        if (is_int(din)) st_i(out, dout, binary_i(sub, ld_i(a, din), ld_i(b, din)));
        else st_f(out, dout, binary_f(sub, ld_f(a, din), ld_f(b, din)));
    } else if (op == OP_VECTOR_BINARY_IMM) {
        if (is_int(din)) {
            i64 k = f32_to_int(bits_f(imm), din), x = ld_i(a, din);
            st_i(out, dout, imm_lhs ? binary_i(sub, k, x) : binary_i(sub, x, k));
        } else {
            float k = bits_f(imm), x = ld_f(a, din);
            st_f(out, dout, imm_lhs ? binary_f(sub, k, x) : binary_f(sub, x, k));
        }
    } else if (op == OP_VECTOR_FILL) {
        if (is_int(dout)) st_i(out, dout, f32_to_int(bits_f(imm), dout));
        else st_f(out, dout, bits_f(imm));
    } else if (op == OP_VECTOR_COMPARE) {
        if (is_int(din)) st_i(out, dout, compare(sub, ld_i(a, din), ld_i(b, din)));
        else st_f(out, dout, compare(sub, ld_f(a, din), ld_f(b, din)) ? 1.0f : 0.0f);
    } else {                                                  /* select */
        if (is_int(din)) st_i(out, dout, ld_i(a, din) != 0 ? ld_i(b, din) : ld_i(c, din));
        else st_f(out, dout, ld_f(a, din) != 0.0f ? ld_f(b, din) : ld_f(c, din));
    }
}

/* ---- one row of the table, executed by threads tid of nt ---------------- */

struct View4 { i64 base; i64 s0, s1, s2, s3; };

DEV View4 view_of(const i64* r, int slot) {
    const i64* v = r + COL_VIEW0 + COL_VIEW_WIDTH * slot;
    View4 w; w.base = v[0]; w.s0 = v[1]; w.s1 = v[2]; w.s2 = v[3]; w.s3 = v[4];
    return w;
}

DEV i64 at(const View4& v, u32 i0, u32 i1, u32 i2, u32 i3, int size) {
    return v.base + ((i64)i0 * v.s0 + (i64)i1 * v.s1 + (i64)i2 * v.s2 + (i64)i3 * v.s3) * size;
}

DEV void split(u32 e, u32 s1, u32 s2, u32 s3, u32* i0, u32* i1, u32* i2, u32* i3) {
    u32 t = e / s3;
    *i3 = e - t * s3;
    u32 t2 = t / s2;
    *i2 = t - t2 * s2;
    *i0 = t2 / s1;
    *i1 = t2 - *i0 * s1;
}

/* Bits moved unchanged. Each thread loads DMA_BATCH elements before it
   stores them (source and destination never overlap, but for an exact
   alias, which is harmless), so the loads are in flight together. */
#define DMA_BATCH 4

template <typename T>
DEV void dma_copy(u8* mem, const View4& src, const View4& dst, u32 total, u32 s1,
                  u32 s2, u32 s3, int tid, int nt) {
    for (u32 e0 = (u32)tid; e0 < total; e0 += (u32)nt * DMA_BATCH) {
        T v[DMA_BATCH];
        i64 to[DMA_BATCH];
        UNROLL
        for (int q = 0; q < DMA_BATCH; q++) {
            u32 e = e0 + (u32)q * (u32)nt, i0, i1, i2, i3;
            split(e < total ? e : e0, s1, s2, s3, &i0, &i1, &i2, &i3);
            v[q] = *(const T*)(mem + at(src, i0, i1, i2, i3, (int)sizeof(T)));
            to[q] = at(dst, i0, i1, i2, i3, (int)sizeof(T));
        }
        UNROLL
        for (int q = 0; q < DMA_BATCH; q++)
            if (e0 + (u32)q * (u32)nt < total) *(T*)(mem + to[q]) = v[q];
    }
}

/* The same copy by rows of the innermost dimension: a warp takes a row,
   its lanes consecutive elements, so the index is split once per row. */
template <typename T>
DEV void dma_rows(u8* mem, const View4& src, const View4& dst, u32 rows, u32 s1,
                  u32 s2, u32 s3, int tid, int nt) {
    const int lane = tid & 31, warps = nt >> 5;
    for (u32 row = (u32)(tid >> 5); row < rows; row += (u32)warps) {
        u32 i0, i1, i2, i3;
        split(row * s3, s1, s2, s3, &i0, &i1, &i2, &i3);
        const u8* from = mem + at(src, i0, i1, i2, 0, (int)sizeof(T));
        u8* to = mem + at(dst, i0, i1, i2, 0, (int)sizeof(T));
        const i64 fs = src.s3 * (i64)sizeof(T), ts = dst.s3 * (i64)sizeof(T);
        for (u32 e0 = (u32)lane; e0 < s3; e0 += 32 * DMA_BATCH) {
            T v[DMA_BATCH];
            UNROLL
            for (int q = 0; q < DMA_BATCH; q++) {
                u32 e = e0 + 32u * (u32)q;
                v[q] = *(const T*)(from + (i64)(e < s3 ? e : e0) * fs);
            }
            UNROLL
            for (int q = 0; q < DMA_BATCH; q++) {
                u32 e = e0 + 32u * (u32)q;
                if (e < s3) *(T*)(to + (i64)e * ts) = v[q];
            }
        }
    }
}

/* dma_gather: element e of dst is the table element `index[e]` rows on
   (with wrap, a negative index counts from the end). An index outside
   its range is never read through: its element is left
   as it is and *fault set, and the host reports the index (the CPU
   backend, run again, names the first one). */
template <typename T>
DEV void dma_gather(const i64* r, u8* mem, int* fault, int tid, int nt) {
    const View4 table = view_of(r, 0), index = view_of(r, 1), dst = view_of(r, 3);
    const u32 s1 = (u32)r[COL_SIZE0 + 1], s2 = (u32)r[COL_SIZE0 + 2],
              s3 = (u32)r[COL_SIZE0 + 3];
    const u32 total = (u32)r[COL_SIZE0] * s1 * s2 * s3;
    const i64 step = r[COL_IMM] * (i64)sizeof(T), rows = r[COL_COUNT];
    const int wide = (int)r[COL_DT_OUT] == DT_I64, wrap = (int)r[COL_FLAG];
    for (u32 e = (u32)tid; e < total; e += (u32)nt) {
        u32 i0, i1, i2, i3;
        split(e, s1, s2, s3, &i0, &i1, &i2, &i3);
        const u8* p = mem + at(index, i0, i1, i2, i3, wide ? 8 : 4);
        i64 k = wide ? *(const i64*)p : (i64)*(const i32*)p;
        if (wrap && k < 0) k += rows;
        if (k < 0 || k >= rows) {
            *fault = 1;
            continue;
        }
        *(T*)(mem + at(dst, i0, i1, i2, i3, (int)sizeof(T))) =
            *(const T*)(mem + at(table, i0, i1, i2, i3, (int)sizeof(T)) + k * step);
    }
}

DEV void exec_gather(const i64* r, u8* mem, int* fault, int tid, int nt) {
    switch (dsize((int)r[COL_DT_IN])) {
    case 8: dma_gather<u64>(r, mem, fault, tid, nt); break;
    case 4: dma_gather<u32>(r, mem, fault, tid, nt); break;
    case 2: dma_gather<u16>(r, mem, fault, tid, nt); break;
    default: dma_gather<u8>(r, mem, fault, tid, nt); break;
    }
}

DEV void exec_elementwise(const i64* r, u8* mem, int tid, int nt) {
    int op = (int)r[COL_OP], sub = (int)r[COL_SUB];
    int din = (int)r[COL_DT_IN], dout = (int)r[COL_DT_OUT];
    u32 s1 = (u32)r[COL_SIZE0 + 1], s2 = (u32)r[COL_SIZE0 + 2], s3 = (u32)r[COL_SIZE0 + 3];
    u32 total = (u32)r[COL_SIZE0] * s1 * s2 * s3;
    u32 imm = (u32)r[COL_IMM];
    int imm_lhs = (int)r[COL_FLAG];
    int isz = dsize(din), osz = dsize(dout);
    View4 a = view_of(r, 0), b = view_of(r, 1), c = view_of(r, 2), o = view_of(r, 3);
    if (op == OP_DMA && s3 >= 32 && nt >= 32) {
        switch (isz) {
        case 8: dma_rows<u64>(mem, a, o, total / s3, s1, s2, s3, tid, nt); break;
        case 4: dma_rows<u32>(mem, a, o, total / s3, s1, s2, s3, tid, nt); break;
        case 2: dma_rows<u16>(mem, a, o, total / s3, s1, s2, s3, tid, nt); break;
        default: dma_rows<u8>(mem, a, o, total / s3, s1, s2, s3, tid, nt); break;
        }
        return;
    }
    if (op == OP_DMA) {
        switch (isz) {
        case 8: dma_copy<u64>(mem, a, o, total, s1, s2, s3, tid, nt); break;
        case 4: dma_copy<u32>(mem, a, o, total, s1, s2, s3, tid, nt); break;
        case 2: dma_copy<u16>(mem, a, o, total, s1, s2, s3, tid, nt); break;
        default: dma_copy<u8>(mem, a, o, total, s1, s2, s3, tid, nt); break;
        }
        return;
    }
    for (u32 e = (u32)tid; e < total; e += (u32)nt) {
        u32 i0, i1, i2, i3;
        split(e, s1, s2, s3, &i0, &i1, &i2, &i3);
        element(op, sub, din, dout, imm, imm_lhs, mem + at(a, i0, i1, i2, i3, isz),
                mem + at(b, i0, i1, i2, i3, isz), mem + at(c, i0, i1, i2, i3, isz),
                mem + at(o, i0, i1, i2, i3, osz));
    }
}

/* r = x[0]; r = r op x[j] in index order; f32 (wrapping integers) until the write. */
DEV void exec_reduce(const i64* r, u8* mem, int tid, int nt) {
    int sub = (int)r[COL_SUB], dt = (int)r[COL_DT_IN], size = dsize(dt);
    u32 s1 = (u32)r[COL_SIZE0 + 1], s2 = (u32)r[COL_SIZE0 + 2], n = (u32)r[COL_SIZE0 + 3];
    u32 total = (u32)r[COL_SIZE0] * s1 * s2;
    View4 in = view_of(r, 0), o = view_of(r, 3);
    i64 step = in.s3 * size;
    for (u32 e = (u32)tid; e < total; e += (u32)nt) {
        u32 i2 = e % s2, t = e / s2, i1 = t % s1, i0 = t / s1;
        const u8* p = mem + at(in, i0, i1, i2, 0, size);
        u8* out = mem + at(o, i0, i1, i2, 0, size);
        if (is_int(dt)) {
            i64 acc = ld_i(p, dt);
            for (u32 j = 1; j < n; j++)
                acc = binary_i(sub == R_ADD ? B_ADD : B_MAX, acc, ld_i(p + j * step, dt));
            st_i(out, dt, acc);
        } else {
            float acc = ld_f(p, dt);
            for (u32 j = 1; j < n; j++) {
                float x = ld_f(p + j * step, dt);
                acc = sub == R_ADD ? FADD(acc, x) : isa_max(acc, x);
            }
            st_f(out, dt, acc);
        }
    }
}

/* Each thread computes an R x C block of outputs, so a value loaded from lhs
   or rhs serves several products; the block shrinks when that would leave
   threads idle (a tile spread over several thread blocks has many). */
template <int DT>
DEV float ld_mm(const u8* p) {
    if (DT == DT_F32) return *(const float*)p;
    if (DT == DT_F16) return f16_to_f32(*(const u16*)p);
    return bf16_to_f32(*(const u16*)p);
}

/* acc[i][j] = acc[i][j] + lhs[i][k] * rhs[k][j], k = 0, 1, .. in order, every
   product and sum rounded to f32. The result goes to acc, or to scratch when
   lhs or rhs is acc itself (every read before a write; matmul_copy_back
   moves it to acc after a barrier). */
template <int DT, int R, int C>
DEV void matmul_blocks(const i64* r, u8* mem, u8* scratch, int tid, int nt) {
    u32 m = (u32)r[COL_SIZE0], k = (u32)r[COL_SIZE0 + 1], n = (u32)r[COL_SIZE0 + 2];
    const i64 size = DT == DT_F32 ? 4 : 2;
    int buffered = (int)r[COL_FLAG];
    View4 l = view_of(r, 0), w = view_of(r, 1), a = view_of(r, 2);
    const i64 lk = l.s1 * size, wk = w.s0 * size;
    u32 col_groups = (n + C - 1) / C;
    u32 groups = ((m + R - 1) / R) * col_groups;
    for (u32 g = (u32)tid; g < groups; g += (u32)nt) {
        u32 i0 = (g / col_groups) * R, j0 = (g % col_groups) * C;
        const u8* lp[R];
        const u8* wp[C];
        float acc[R][C];
        UNROLL
        for (int q = 0; q < R; q++) {
            u32 i = i0 + q < m ? i0 + q : m - 1;      /* past the edge: read, never write */
            lp[q] = mem + l.base + (i64)i * l.s0 * size;
        }
        UNROLL
        for (int c = 0; c < C; c++) {
            u32 j = j0 + c < n ? j0 + c : n - 1;
            wp[c] = mem + w.base + (i64)j * w.s1 * size;
        }
        UNROLL
        for (int q = 0; q < R; q++) {
            u32 i = i0 + q < m ? i0 + q : m - 1;
            UNROLL
            for (int c = 0; c < C; c++) {
                u32 j = j0 + c < n ? j0 + c : n - 1;
                acc[q][c] = *(const float*)(mem + a.base + ((i64)i * a.s0 + (i64)j * a.s1) * 4);
            }
        }
        UNROLL_K
        for (u32 kk = 0; kk < k; kk++) {
            float x[R], y[C];
            UNROLL
            for (int q = 0; q < R; q++) { x[q] = ld_mm<DT>(lp[q]); lp[q] += lk; }
            UNROLL
            for (int c = 0; c < C; c++) { y[c] = ld_mm<DT>(wp[c]); wp[c] += wk; }
            UNROLL
            for (int q = 0; q < R; q++)
                UNROLL
                for (int c = 0; c < C; c++)
                    acc[q][c] = FADD(acc[q][c], FMUL(x[q], y[c]));
        }
        UNROLL
        for (int q = 0; q < R; q++) {
            UNROLL
            for (int c = 0; c < C; c++) {
                u32 i = i0 + q, j = j0 + c;
                if (i >= m || j >= n) continue;
                float* dst = buffered ? (float*)scratch + (i * n + j)
                                      : (float*)(mem + a.base + ((i64)i * a.s0 + (i64)j * a.s1) * 4);
                *dst = canonical(acc[q][c]);
            }
        }
    }
}

/* 4 x 4 blocks while they keep at least half the threads busy, else 2 x 2,
   else one output per thread: the same sums in the same order either way. */
template <int DT>
DEV void matmul_float(const i64* r, u8* mem, u8* scratch, int tid, int nt) {
    u32 outputs = (u32)r[COL_SIZE0] * (u32)r[COL_SIZE0 + 2];
    if (outputs >= 8u * (u32)nt) matmul_blocks<DT, 4, 4>(r, mem, scratch, tid, nt);
    else if (outputs >= 2u * (u32)nt) matmul_blocks<DT, 2, 2>(r, mem, scratch, tid, nt);
    else matmul_blocks<DT, 1, 1>(r, mem, scratch, tid, nt);
}

/* The second half of a buffered matmul (FLAG set), after a barrier. */
DEV void matmul_copy_back(const i64* r, u8* mem, const u8* scratch, int tid, int nt) {
    u32 m = (u32)r[COL_SIZE0], n = (u32)r[COL_SIZE0 + 2];
    View4 a = view_of(r, 2);
    for (u32 e = (u32)tid; e < m * n; e += (u32)nt) {
        u32 i = e / n, j = e % n;
        *(float*)(mem + a.base + ((i64)i * a.s0 + (i64)j * a.s1) * 4) = ((const float*)scratch)[e];
    }
}

/* i8 inputs, i32 accumulator: exact products, wrapping sums. */
DEV void matmul_i8(const i64* r, u8* mem, u8* scratch, int tid, int nt) {
    u32 m = (u32)r[COL_SIZE0], k = (u32)r[COL_SIZE0 + 1], n = (u32)r[COL_SIZE0 + 2];
    View4 l = view_of(r, 0), w = view_of(r, 1), a = view_of(r, 2);
    u32 total = m * n;
    for (u32 e = (u32)tid; e < total; e += (u32)nt) {
        u32 i = e / n, j = e % n;
        i32* dst = (i32*)(mem + a.base + ((i64)i * a.s0 + (i64)j * a.s1) * 4);
        u32 acc = (u32)*dst;
        for (u32 kk = 0; kk < k; kk++) {
            i32 x = *(const i8*)(mem + l.base + (i64)i * l.s0 + (i64)kk * l.s1);
            i32 y = *(const i8*)(mem + w.base + (i64)kk * w.s0 + (i64)j * w.s1);
            acc += (u32)(x * y);
        }
        *dst = (i32)acc;
    }
    (void)scratch;
}

DEV void exec_row(const i64* r, u8* mem, u8* scratch, int* fault, int tid, int nt) {
    int op = (int)r[COL_OP];
    if (op == OP_DMA_GATHER) {
        exec_gather(r, mem, fault, tid, nt);
    } else if (op == OP_MATMUL) {
        switch ((int)r[COL_DT_IN]) {
        case DT_F32: matmul_float<DT_F32>(r, mem, scratch, tid, nt); break;
        case DT_F16: matmul_float<DT_F16>(r, mem, scratch, tid, nt); break;
        case DT_BF16: matmul_float<DT_BF16>(r, mem, scratch, tid, nt); break;
        default: matmul_i8(r, mem, scratch, tid, nt); break;
        }
    } else if (op == OP_VECTOR_REDUCE) {
        exec_reduce(r, mem, tid, nt);
    } else {
        exec_elementwise(r, mem, tid, nt);
    }
}
"""

_KERNEL = r"""
DEV int buffered_matmul(const i64* r) { return r[COL_OP] == OP_MATMUL && r[COL_FLAG]; }

#ifdef __CUDACC__
/* Tiles one group can own: pcs are kept per thread. */
#define MAX_OWNED 64
/* Words of global memory per group: the barrier count, two flags. */
#define GROUP_WORDS 32

DEV u32 load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

DEV u64 global_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The `size` thread blocks that run one tile together. `bar[0]` counts
   arrivals at its barriers; rank 0 publishes a flag with each barrier in
   bar[1] or bar[2] (by parity: a block reads barrier b's flag before it
   arrives at b + 1, and rank 0 writes b + 2's only after b + 1). */
struct Group {
    u32* bar;
    u32 size, rank, passed;          /* passed: barriers behind (thread 0) */
    int* stuck;
    i64 timeout_ns;
};

/* Every thread of the group's blocks waits here; then each sees every write
   the others made before it (release: fence then arrive; acquire: the
   ld.acquire of the count, then a fence) and rank 0's `flag`. Returns the
   flag, or -1 for every block once a run is abandoned (a block of the group
   not resident for timeout_ns, or another group giving up). */
DEV int group_sync(Group& g, int flag) {
    __shared__ int s_flag;
    __syncthreads();
    if (threadIdx.x == 0) {
        if (g.size > 1) {
            u32 b = ++g.passed, target = b * g.size;
            volatile u32* slot = g.bar + 1 + (b & 1u);
            if (g.rank == 0) *slot = (u32)flag;
            __threadfence();
            atomicAdd(g.bar, 1u);
            u64 since = 0;
            for (u32 spin = 0; (i32)(load_acquire(g.bar) - target) < 0; spin++) {
                if ((spin & 1023u) != 1023u) continue;
                u64 now = global_ns();
                if (since == 0) since = now;
                if (*(volatile int*)g.stuck || (i64)(now - since) > g.timeout_ns) {
                    atomicExch(g.stuck, 1);
                    flag = -1;
                    break;
                }
            }
            __threadfence();
            if (flag != -1) flag = (int)*slot;
        }
        s_flag = flag;
    }
    __syncthreads();
    return s_flag;
}

/* Group q (blocks q * size .. q * size + size - 1) runs tiles q, q + groups,
   ..: each until it finishes or waits for a semaphore that is short, then
   the next. A tile's rows run in order, every thread of the group's blocks
   on each row, a group barrier between rows (but chained ones). */
extern "C" __global__ void __launch_bounds__(BLOCK)
tessel_run(const i64* __restrict__ rows, const u8* __restrict__ chained,
           const i64* __restrict__ first, int ntiles,
           u8* mem, u32* sems, u8* scratch, i64 scratch_stride, i64* pcs_out,
           u64* progress, int* stuck, i64 timeout_ns, int group_size, u32* group_words,
           int* fault) {
    /* The current row and the next, fetched while the current one runs. */
    __shared__ i64 s_rows[2][COL_WIDTH];
    const int tid = threadIdx.x;
    const int q = blockIdx.x / group_size, groups = gridDim.x / group_size;
    Group g;
    g.bar = group_words + (i64)q * GROUP_WORDS;
    g.size = (u32)group_size;
    g.rank = blockIdx.x % group_size;
    g.passed = 0;
    g.stuck = stuck;
    g.timeout_ns = timeout_ns;
    /* Threads are numbered across the group: each row's work is split over
       all of them. */
    const int gtid = (int)g.rank * blockDim.x + tid, gnt = group_size * blockDim.x;
    u8* my_scratch = scratch + (i64)q * scratch_stride;
    i64 pcs[MAX_OWNED];
    int owned = 0;
    for (int t = q; t < ntiles && owned < MAX_OWNED; t += groups) pcs[owned++] = first[t];
    u64 seen = 0, since = global_ns();
    int abandoned = 0;
    for (;;) {
        int done = 1, moved = 0;
        for (int w = 0; w < owned && !abandoned; w++) {
            int t = q + w * groups;
            i64 pc = pcs[w], end = first[t + 1];
            if (pc < end) {
                if (tid < COL_WIDTH) s_rows[pc & 1][tid] = rows[pc * COL_WIDTH + tid];
                __syncthreads();
            }
            while (pc < end) {
                const i64* r = s_rows[pc & 1];
                /* Every path below passes a barrier before the next row is read. */
                if (pc + 1 < end && tid < COL_WIDTH)
                    s_rows[(pc + 1) & 1][tid] = rows[(pc + 1) * COL_WIDTH + tid];
                int op = (int)r[COL_OP], ok = 1;
                /* Read before a barrier, after which the slot may be refilled. */
                const i64 sem = r[COL_SEM];
                const u32 count = (u32)r[COL_COUNT];
                if (op == OP_WAIT_SEMAPHORE) {
                    /* Rank 0 decides for the group. */
                    if (g.rank == 0 && tid == 0) {
                        u32* s = sems + sem;
                        u32 need = count;
                        ok = load_acquire(s) >= need;
                        if (ok) atomicSub(s, need);
                        __threadfence();
                    }
                    ok = group_sync(g, ok);
                } else if (op == OP_SIGNAL) {
                    /* Every thread's writes, then the count: a tile that sees
                       the count sees the data (release / acquire). */
                    ok = group_sync(g, 1);
                    if (ok == 1 && g.rank == 0 && tid == 0) {
                        __threadfence();
                        atomicAdd(sems + sem, count);
                    }
                } else if (op == OP_WAIT) {
                    __syncthreads();         /* transfers completed at issue */
                } else {
                    exec_row(r, mem, my_scratch, fault, gtid, gnt);
                    if (buffered_matmul(r)) {
                        ok = group_sync(g, 1);
                        if (ok == 1) matmul_copy_back(r, mem, my_scratch, gtid, gnt);
                    }
                    /* A chained row's threads read back only their own
                       writes (cuda.chained_rows); the block barrier guards
                       the row buffer. */
                    if (ok == 1) {
                        if (chained[pc]) __syncthreads();
                        else ok = group_sync(g, 1);
                    }
                }
                if (ok == -1) { abandoned = 1; break; }
                if (!ok) break;
                pc++;
            }
            if (pc != pcs[w]) moved = 1;
            pcs[w] = pc;
            if (pc < end) done = 0;
        }
        if (done || abandoned) break;
        /* Nothing here can move: give up once no block has moved for
           timeout_ns (the host proved the program deadlock-free, so this
           only happens if blocks are not all resident). Rank 0 decides. */
        int give_up = 0;
        if (g.rank == 0 && tid == 0) {
            u64 now = global_ns();
            if (moved) atomicAdd(progress, 1ull);
            u64 p = *(volatile u64*)progress;
            if (moved || p != seen) { seen = p; since = now; }
            else if ((i64)(now - since) > timeout_ns) { give_up = 1; atomicExch(stuck, 1); }
            if (*(volatile int*)stuck) give_up = 1;
            if (!moved) __nanosleep(256);
        }
        if (group_sync(g, give_up) != 0) break;
    }
    if (g.rank == 0 && tid == 0)
        for (int w = 0; w < owned; w++) pcs_out[q + w * groups] = pcs[w];
}
#else
/* Host build for the tests: execute rows in the given order, each by
   `threads` numbered threads one after the other (a buffered matmul's copy
   after all of them computed), as the threads of a group split a row. */
extern "C" void host_run_rows(const i64* rows, const i64* order, i64 count, u8* mem,
                              u8* scratch, int threads, int* fault) {
    for (i64 i = 0; i < count; i++) {
        const i64* r = rows + order[i] * COL_WIDTH;
        for (int t = 0; t < threads; t++) exec_row(r, mem, scratch, fault, t, threads);
        if (buffered_matmul(r))
            for (int t = 0; t < threads; t++) matmul_copy_back(r, mem, scratch, t, threads);
    }
}
#endif
"""


def source() -> str:
    """The complete CUDA (and host C++) source."""
    return ("/* Tessel emulator: generated by tessel.runtime.emulator.kernel */\n"
            + _defines() + _BODY + _KERNEL)


def source_hash() -> str:
    return hashlib.sha256(source().encode()).hexdigest()[:16]
