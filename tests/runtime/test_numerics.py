"""Numerics: the exact sequences of docs/isa.md, checked bit for bit against an
independent scalar implementation (Python floats rounded to f32 after every
step: for +, -, *, / a double result rounded once to f32 is the correctly
rounded f32 result), and against float64 references within the accuracy the
sequences promise."""

import math
import numpy as np
import pytest

from tessel.runtime import numerics as nx


def f32(x: float) -> float:
    """The double ``x`` rounded to the nearest f32 (ties to even, overflow to
    infinity)."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def bits(x) -> int:
    return int(np.asarray(x, np.float32).view(np.uint32))


# ---- scalar references of the ISA sequences ---------------------------------

def ref_exp(x: float) -> float:
    if x > f32(88.72283905206835):
        return math.inf
    if x < f32(-103.97208):
        return 0.0
    n = math.floor(f32(f32(x * f32(1.44269504088896341)) + 0.5))
    r = f32(f32(x - f32(n * f32(0.693359375))) - f32(n * f32(-2.12194440e-4)))
    z = f32(r * r)
    p = f32(1.9875691500e-4)
    for c in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
              5.0000001201e-1):
        p = f32(f32(p * r) + f32(c))
    y = f32(f32(f32(p * z) + r) + 1.0)
    try:
        return f32(math.ldexp(y, n))          # exact in double, one rounding
    except OverflowError:
        return math.inf


def ref_log(x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if x == math.inf:
        return math.inf
    m, e = math.frexp(x)
    if m < f32(0.707106781186547524):
        e -= 1
        m = m + m
    f = f32(m - 1.0)
    z = f32(f * f)
    p = f32(7.0376836292e-2)
    for sign, c in ((-1, 1.1514610310e-1), (1, 1.1676998740e-1), (-1, 1.2420140846e-1),
                    (1, 1.4249322787e-1), (-1, 1.6668057665e-1), (1, 2.0000714765e-1),
                    (-1, 2.4999993993e-1), (1, 3.3333331174e-1)):
        p = f32(f32(p * f) + sign * f32(c))
    y = f32(f32(f32(f32(p * f) * z) + f32(e * f32(-2.12194440e-4))) - f32(0.5 * z))
    return f32(f32(f + y) + f32(e * f32(0.693359375)))


def ref_tanh(x: float) -> float:
    s = math.copysign(1.0, x)
    a = abs(x)
    if a > 9:
        return s
    e = ref_exp(f32(a + a))
    return f32(s * f32(1.0 - f32(2.0 / f32(e + 1.0))))


def ref_erf(x: float) -> float:
    s = math.copysign(1.0, x)
    a = abs(x)
    t = f32(1.0 / f32(1.0 + f32(f32(0.3275911) * a)))
    p = f32(1.061405429)
    for sign, c in ((-1, 1.453152027), (1, 1.421413741), (-1, 0.284496736),
                    (1, 0.254829592)):
        p = f32(f32(p * t) + sign * f32(c))
    return f32(s * f32(1.0 - f32(f32(p * t) * ref_exp(-f32(a * a)))))


def _octant(x: float):
    """docs/isa.md's reduction for sin and cos, one f32 rounding per step."""
    a = abs(x)
    if not a <= 65536.0:
        return math.nan, math.nan, math.nan
    y = float(math.floor(f32(a * f32(1.27323954473516))))
    if f32(y - f32(2.0 * math.floor(f32(y * 0.5)))) == 1.0:
        y = f32(y + 1.0)
    j = f32(y - f32(8.0 * math.floor(f32(y * 0.125))))
    r = f32(f32(f32(a - f32(y * f32(0.78515625))) - f32(y * f32(2.4187564849853515625e-4)))
            - f32(y * f32(3.77489497744594108e-8)))
    z = f32(r * r)
    p = f32(f32(f32(-1.9515295891e-4) * z) + f32(8.3321608736e-3))
    p = f32(f32(p * z) + f32(-1.6666654611e-1))
    s = f32(f32(f32(p * z) * r) + r)
    q = f32(f32(f32(2.443315711809948e-5) * z) + f32(-1.388731625493765e-3))
    q = f32(f32(q * z) + f32(4.166664568298827e-2))
    c = f32(f32(f32(f32(q * z) * z) - f32(0.5 * z)) + 1.0)
    return j, s, c


def ref_sin(x: float) -> float:
    j, s, c = _octant(x)      # NaN for NaN, infinities and |x| > 65536
    if math.isnan(j):
        return math.nan
    out = c if j in (2.0, 6.0) else s
    out = -out if j >= 4.0 else out
    return -out if math.copysign(1.0, x) < 0 else out


def ref_cos(x: float) -> float:
    j, s, c = _octant(x)      # NaN for NaN, infinities and |x| > 65536
    if math.isnan(j):
        return math.nan
    out = s if j in (2.0, 6.0) else c
    return -out if j in (2.0, 4.0) else out


def ref_gelu(x: float) -> float:
    """PyTorch's erf GELU as the ISA chains it: x * ((erf(x / sqrt(2)) + 1)
    * 0.5), each step rounded to f32."""
    e = ref_erf(f32(x / f32(math.sqrt(2.0))))
    return f32(x * f32(f32(e + 1.0) * 0.5))


def sample_points(seed=0):
    rng = np.random.default_rng(seed)
    pts = np.concatenate([
        rng.uniform(-110, 95, 300), rng.uniform(-3, 3, 300), rng.standard_normal(100) * 1e-3,
        [0.0, -0.0, 1.0, -1.0, 0.5, 88.7, 88.72283, 88.8, -87.5, -100.0, -103.9, -104,
         1e-40, -1e-40, 2.0 ** -149, 9.0, 9.5, -9.5, 3.4e38, 1e-30, 65536.0, -70000.0],
    ]).astype(np.float32)
    return pts


@pytest.mark.parametrize("fn, ref", [(nx.exp, ref_exp), (nx.log, ref_log),
                                     (nx.tanh, ref_tanh), (nx.erf, ref_erf),
                                     (nx.sin, ref_sin), (nx.cos, ref_cos),
                                     (nx.gelu, ref_gelu)])
def test_transcendentals_follow_the_isa_sequence_bit_for_bit(fn, ref):
    pts = sample_points()
    if fn is nx.log:
        pts = np.abs(pts)
    got = fn(pts)
    for x, y in zip(pts, got):
        want = ref(float(x))
        if math.isnan(want):
            assert math.isnan(y), x
        else:
            assert bits(y) == bits(want), (float(x), float(y), want)


def test_exp_of_one_has_fixed_bits():
    # Regression value: the sequence gives e rounded to f32 (0x402df854).
    assert bits(nx.exp(np.float32([1.0]))[0]) == 0x402DF854
    assert bits(nx.exp(np.float32([0.0]))[0]) == 0x3F800000
    assert nx.exp(np.float32([89.0]))[0] == np.inf
    assert nx.exp(np.float32([-104.0]))[0] == 0.0
    assert np.isnan(nx.exp(np.float32([np.nan]))[0])


def test_transcendentals_against_float64_within_tolerance():
    x = np.linspace(-20, 20, 4001, dtype=np.float32)
    e = nx.exp(x)
    np.testing.assert_allclose(e, np.exp(x.astype(np.float64)), rtol=3e-7)
    pos = np.linspace(1e-6, 1e6, 4001, dtype=np.float32)
    np.testing.assert_allclose(nx.log(pos), np.log(pos.astype(np.float64)),
                               rtol=2e-7, atol=2e-7)
    np.testing.assert_allclose(nx.tanh(x), np.tanh(x.astype(np.float64)), atol=3e-7)
    erf64 = np.vectorize(math.erf)(x.astype(np.float64))
    # Abramowitz and Stegun 7.1.26: |error| < 1.5e-7, plus f32 rounding.
    np.testing.assert_allclose(nx.erf(x), erf64, atol=3e-7)
    # GELU inherits erf's error, scaled by |x| / 2.
    gelu64 = x.astype(np.float64) * 0.5 * (1.0 + np.vectorize(math.erf)(
        x.astype(np.float64) / math.sqrt(2.0)))
    np.testing.assert_allclose(nx.gelu(x), gelu64, atol=3e-6, rtol=3e-7)
    # log special cases
    got = nx.log(np.float32([0.0, -0.0, -1.0, np.inf, np.nan]))
    assert got[0] == -np.inf and got[1] == -np.inf and np.isnan(got[2])
    assert got[3] == np.inf and np.isnan(got[4])


def test_sin_and_cos_against_float64():
    """Within 1.5 units in the last place for |x| <= 20, within 1e-6 up to
    65536 (rotary embeddings' angles are position x frequency); beyond,
    where the reduction by pi/4 in three f32 parts can no longer keep the
    remainder, the result is NaN."""
    x = np.concatenate([np.linspace(-20, 20, 40001, dtype=np.float32),
                        np.float32([np.pi, np.pi / 2, -np.pi / 4, 1e-30])])
    for fn, ref in ((nx.sin, np.sin), (nx.cos, np.cos)):
        want = ref(x.astype(np.float64))
        ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        assert np.all(np.abs(fn(x) - want) <= 1.5 * ulp), fn.__name__
        far = np.float32([100.0, 1000.5, 2047.9, 4095.3, 8191.7, 65535.9, 65536.0])
        np.testing.assert_allclose(fn(far), ref(far.astype(np.float64)), atol=1e-6)
        assert np.isnan(fn(np.float32([65536.01, -1e5, 3.4e38]))).all()
    assert bits(nx.sin(np.float32([-0.0]))[0]) == 0x80000000
    assert nx.cos(np.float32([0.0]))[0] == 1.0
    for special in (np.inf, -np.inf, np.nan):
        assert np.isnan(nx.sin(np.float32([special]))[0])
        assert np.isnan(nx.cos(np.float32([special]))[0])


def test_gelu_of_infinities_nan_and_zeros():
    # As its five operations give them: -inf * 0 is NaN, -0 stays -0.
    x = np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0, 3.4e38, -3.4e38, 1e-45])
    got = nx.unary("gelu", x, "f32", "f32")
    assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2])
    assert bits(got[3]) == 0 and bits(got[4]) == 0x80000000
    for v, y in zip(x[5:], got[5:]):
        assert bits(y) == bits(ref_gelu(float(v))), float(v)


def test_tanh_and_erf_keep_the_sign_of_zero():
    assert bits(nx.tanh(np.float32([-0.0]))[0]) == 0x80000000
    assert nx.tanh(np.float32([-12.0]))[0] == -1.0


# ---- rounding and conversions ---------------------------------------------------

def test_bf16_rounds_to_nearest_even():
    vals = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0x3F80FFFF, 0x7F7FFFFF,
                     0xFFC12345, 0x00000001], np.uint32).view(np.float32)
    got = nx.f32_to_bf16(vals)
    #      tie->even(0)  tie->even(up) above tie  rounds up  overflow->inf
    assert list(got) == [0x3F80, 0x3F82, 0x3F81, 0x3F81, 0x7F80, 0x7FC0, 0x0000]


def test_f16_rounding_overflow_and_canonical_nan():
    got = nx.from_f32(np.float32([1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000.0, np.nan]), "f16")
    assert list(got.view(np.uint16)) == [0x3C00, 0x3C02, 0x7C00, 0x7E00]


def test_nan_results_are_canonical():
    inf = np.float32([np.inf])
    r = nx.binary("sub", inf, inf, "f32")         # x86 makes 0xffc00000 here
    assert bits(r[0]) == 0x7FC00000
    payload = np.uint32([0xFFC12345]).view(np.float32)
    assert bits(nx.unary("neg", payload, "f32", "f32")[0]) == 0x7FC00000
    assert int(nx.unary("copy", payload, "f32", "f32").view(np.uint32)[0]) == 0xFFC12345


def test_casts():
    x = np.float32([2.5, 3.5, -2.5, 200.0, -300.0, np.nan, 127.49])
    assert list(nx.cast(x, "f32", "i8")) == [2, 4, -2, 127, -128, 0, 127]
    i = np.int32([16777217, -16777219, 2 ** 31 - 1])
    assert list(nx.cast(i, "i32", "f32")) == [16777216.0, -16777220.0, 2.0 ** 31]
    # i32 -> bf16 rounds once: 0x01018000 lies just above the tie between
    # bf16 neighbours, which a rounding through f32 would turn into an exact tie.
    v = np.int32([(1 << 24) + (1 << 16) + (1 << 15) + 1])
    want = nx.f32_to_bf16(np.float32([float(2 ** 24 + 2 ** 17)]))
    assert nx.cast(v, "i32", "bf16")[0] == want[0]
    assert list(nx.cast(np.int8([-128, 5]), "i8", "i32")) == [-128, 5]
    assert list(nx.cast(np.int32([300, -129]), "i32", "i8")) == [44, 127]


def test_max_min_nan_and_signed_zero():
    a = np.float32([np.nan, 1.0, np.nan, 0.0, -0.0, 2.0])
    b = np.float32([3.0, np.nan, np.nan, -0.0, 0.0, 2.0])
    mx, mn = nx.binary("max", a, b, "f32"), nx.binary("min", a, b, "f32")
    assert list(mx[:2]) == [3.0, 1.0] and np.isnan(mx[2])
    assert [bits(v) for v in mx[3:5]] == [0, 0]
    assert [bits(v) for v in mn[3:5]] == [0x80000000, 0x80000000]
    r = nx.reduce("max", np.float32([[np.nan, -0.0, 0.0, -5.0]]), 1, "f32")
    assert bits(r[0]) == 0


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_max_min_skip_signaling_nans_wherever_they_sit(dtype):
    # docs/isa.md: the other operand for any NaN. NumPy's fmax/fmin return
    # NaN for a signaling one, and fmax.reduce only at some positions.
    snan = {"f32": np.uint32(0x7F800001), "f16": np.uint16(0x7C01),
            "bf16": np.uint16(0x7F81)}[dtype]
    two = nx.to_storage(np.float32([2.0]), dtype)[0]
    for pos in range(5):
        raw = np.full((1, 5), two, nx.STORAGE[dtype])
        raw.view(snan.dtype)[0, pos] = snan
        got = nx.to_f32(nx.reduce("max", raw, 1, dtype), dtype)
        assert got.tolist() == [2.0], pos
        other = np.roll(raw, 1, axis=1)
        for op in ("max", "min"):
            both = nx.to_f32(nx.binary(op, raw, other, dtype), dtype)
            assert both.tolist() == [[2.0] * 5], (op, pos)
            imm = nx.to_f32(nx.binary_imm(op, raw, 1.0, pos % 2 == 0, dtype), dtype)
            want = 2.0 if op == "max" else 1.0
            assert imm[0, pos] == 1.0 and imm[0, pos - 1] == want, (op, pos)


def test_compare_with_nan():
    a = np.float32([np.nan, 1.0, 2.0])
    b = np.float32([np.nan, 1.0, 1.0])
    for pred, want in [("lt", [0, 0, 0]), ("le", [0, 1, 0]), ("gt", [0, 0, 1]),
                       ("ge", [0, 1, 1]), ("eq", [0, 1, 0]), ("ne", [1, 0, 1])]:
        assert list(nx.compare(pred, a, b, "f32")) == want, pred


# ---- elementwise and reductions against float64 ----------------------------------

@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min"])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_binary_ops_against_float64(op, dtype):
    rng = np.random.default_rng(1)
    a64, b64 = rng.standard_normal(500), rng.standard_normal(500) + 3
    a, b = nx.to_storage(a64, dtype), nx.to_storage(b64, dtype)
    af, bf = nx.to_f32(a, dtype).astype(np.float64), nx.to_f32(b, dtype).astype(np.float64)
    want = {"add": af + bf, "sub": af - bf, "mul": af * bf, "div": af / bf,
            "max": np.maximum(af, bf), "min": np.minimum(af, bf)}[op]
    got = nx.to_f32(nx.binary(op, a, b, dtype), dtype)
    # One rounding to the type (f32 then the type: at most one ulp of it).
    rtol = {"f32": 2 ** -24, "f16": 2 ** -10, "bf16": 2 ** -7}[dtype]
    np.testing.assert_allclose(got, want, rtol=rtol * 1.01, atol=1e-30)


def test_unary_ops_against_float64():
    x = np.float32(np.random.default_rng(2).uniform(0.1, 4, 300))
    x64 = x.astype(np.float64)
    for op, ref in [("neg", -x64), ("abs", x64), ("sqrt", np.sqrt(x64)),
                    ("rsqrt", 1 / np.sqrt(x64)), ("recip", 1 / x64)]:
        np.testing.assert_allclose(nx.unary(op, x, "f32", "f32"), ref, rtol=2.5e-7)
    # sqrt is the correctly rounded IEEE operation.
    assert np.array_equal(nx.unary("sqrt", x, "f32", "f32"), np.sqrt(x))


def test_reduce_is_sequential_in_index_order():
    # 1e8 + 1 + 1 ... : sequential f32 addition loses every 1; pairwise does not.
    x = np.float32([1e8] + [1.0] * 15)
    assert nx.reduce("add", x[None, :], 1, "f32")[0] == np.float32(1e8)
    y = np.float32(np.random.default_rng(3).standard_normal((3, 50)))
    want = []
    for row in y:
        r = row[0]
        for v in row[1:]:
            r = np.float32(r + v)
        want.append(r)
    assert np.array_equal(nx.reduce("add", y, 1, "f32"), np.float32(want))
    np.testing.assert_allclose(nx.reduce("add", y, 0, "f32"), y.astype(np.float64).sum(0),
                               rtol=1e-5)
    # bf16 accumulates in f32 and rounds once.
    h = nx.to_storage(np.float32([256.0] + [1.0] * 8), "bf16")
    assert nx.to_f32(nx.reduce("add", h[None, :], 1, "bf16"), "bf16")[0] == 264.0


# ---- matmul ---------------------------------------------------------------------

def test_matmul_against_float64():
    rng = np.random.default_rng(4)
    a, b = np.float32(rng.standard_normal((20, 16))), np.float32(rng.standard_normal((16, 12)))
    acc = np.float32(rng.standard_normal((20, 12)))
    got = nx.matmul(a, b, acc, "f32")
    want = acc.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    # K = 16 f32 additions: |error| <= 16 * 2^-24 * sum |terms|.
    bound = 16 * 2 ** -24 * (np.abs(acc) + np.abs(a) @ np.abs(b))
    assert np.all(np.abs(got - want) <= bound)


def test_matmul_order_and_k_split_invariance():
    rng = np.random.default_rng(5)
    for dtype in ("f32", "bf16", "f16"):
        a = nx.to_storage(rng.standard_normal((8, 32)), dtype)
        b = nx.to_storage(rng.standard_normal((32, 8)), dtype)
        acc = np.float32(rng.standard_normal((8, 8)))
        whole = nx.matmul(a, b, acc, dtype)
        half = nx.matmul(a[:, :16], b[:16], acc, dtype)
        split = nx.matmul(a[:, 16:], b[16:], half, dtype)
        assert whole.tobytes() == split.tobytes()
        # The explicit order: a = a + p_k, k ascending.
        af, bf = nx.to_f32(a, dtype), nx.to_f32(b, dtype)
        ref = acc.copy()
        for k in range(32):
            ref = np.float32(ref + np.float32(af[:, k:k + 1] * bf[k:k + 1, :]))
        assert whole.tobytes() == ref.tobytes()


def test_matmul_i8_accumulates_in_i32():
    a = np.full((2, 16), 127, np.int8)
    b = np.full((16, 3), -128, np.int8)
    got = nx.matmul(a, b, np.zeros((2, 3), np.int32), "i8")
    assert got.dtype == np.int32 and (got == 16 * 127 * -128).all()


def _matmul_all_products(a, b, acc, dtype):
    """The same sum through an m x k x n array of products (each rounded to
    f32), added in k order."""
    af, bf = nx.to_f32(a, dtype), nx.to_f32(b, dtype)
    out = np.array(acc, np.float32)
    with np.errstate(all="ignore"):
        prods = af[:, :, None] * bf[None, :, :]
        for k in range(prods.shape[1]):
            out += prods[:, k, :]
    return nx.canonicalize(out)


def test_matmul_large_m_bit_exact_in_bounded_memory():
    import tracemalloc
    rng = np.random.default_rng(6)
    m, k, n = 2048, 128, 128             # a weight-stationary block: m unbounded
    a = np.float32(rng.standard_normal((m, k)))
    b = np.float32(rng.standard_normal((k, n)))
    acc = np.float32(rng.standard_normal((m, n)))
    tracemalloc.start()
    try:
        got = nx.matmul(a, b, acc, "f32")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Output, accumulator, one product row block and lhs transposed: 4 MiB;
    # all the products at once would be m * k * n * 4 = 128 MiB.
    assert peak < 8 * 2 ** 20, peak
    assert got.tobytes() == _matmul_all_products(a, b, acc, "f32").tobytes()
    # Strided operands (views into a larger SRAM image), specials, bf16 and f16.
    big = np.float32(rng.standard_normal((64, 96)))
    big[3, 5], big[7, 2], big[1, 1] = np.inf, np.nan, -np.inf
    # Both ways of summing: a k loop (large m * n), all products at once
    # (m * n small against k), and a long k (output-stationary) in between.
    for lhs, rhs in ((big[::2, 1:41:2], big[1:21, 50:90:2]),
                     (big[:4, ::2], big[16:64, 3:7]),
                     (big[5:9, 1:41], big[10:50, ::24])):
        for dtype in ("f32", "bf16", "f16"):
            la, rb = nx.to_storage(lhs, dtype), nx.to_storage(rhs, dtype)
            c0 = np.float32(rng.standard_normal((lhs.shape[0], rhs.shape[1])))
            assert nx.matmul(la, rb, c0, dtype).tobytes() == \
                _matmul_all_products(la, rb, c0, dtype).tobytes()
    a = np.float32(rng.standard_normal((4, 20000)))
    b = np.float32(rng.standard_normal((20000, 4)))
    tracemalloc.start()
    try:
        got = nx.matmul(a, b, np.zeros((4, 4), np.float32), "f32")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2 ** 20, peak
    zero = np.zeros((4, 4), np.float32)
    half = nx.matmul(a[:, :10000], b[:10000], zero, "f32")
    assert got.tobytes() == nx.matmul(a[:, 10000:], b[10000:], half, "f32").tobytes()
    ref = zero
    for k in range(0, 20000, 1000):
        ref = _matmul_all_products(a[:, k:k + 1000], b[k:k + 1000], ref, "f32")
    assert got.tobytes() == ref.tobytes()
