/* Tessel's emulator, part 1 of 3: the ISA's numerics as scalar functions
   (docs/isa.md), valid CUDA and host C++. tessel.runtime.emulator.kernel
   puts the #defines of the constants, opcodes and table columns before it,
   and rows.cuh and emulator.cu after it. */

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
    case U_GELU:
        return FMUL(x, FMUL(FADD(isa_erf(FDIV(x, KF(SQRT2))), KF(ONE)), KF(HALF)));
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

