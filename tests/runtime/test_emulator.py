"""The emulation target against the simulator, byte for byte: every
instruction kind on every dtype with special values (NaN payloads, infinities,
signed zeros, subnormals, saturating casts, rounding ties), multi-tile
programs with transfers and semaphores, the bench layers, deadlock reports,
errors and the command line.

Three executors run each program: ``cpu`` (the NumPy interpreter of the
table), ``kernel`` (the CUDA source compiled for the host with the host C++
compiler: the GPU's arithmetic and addressing where there is no GPU) and
``cuda`` (on a GPU, skipped without one)."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import arch_with
from test_dma_wait_semaphore import handover_program
from test_simulator import pipeline_program

from tessel.runtime import isa
from tessel.runtime import numerics as nx
from tessel.runtime.emulator import (DeadlockError, EmulationError, cuda, emulate,
                                     initial_arena, input_regions, kernel,
                                     read_outputs)
from tessel.runtime.emulator.schedule import run_tiles
from tessel.runtime.emulator.table import build_table
from tessel.runtime.builder import ProgramBuilder, dram, sram
from tessel.runtime.inputs import check_inputs
from tessel.runtime.simulator import SimulationError, simulate

CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")


# ---------------------------------------------------------------------------
# Executors.
# ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def host_kernel(tmp_path_factory):
    """The emulator's CUDA source built for the host, or None without a C++
    compiler."""
    if CXX is None:
        return None
    work = tmp_path_factory.mktemp("kernel")
    src, lib = work / "kernel.cpp", work / "kernel.so"
    src.write_text(kernel.source())
    subprocess.run([CXX, "-O2", "-ffp-contract=off", "-fno-fast-math", "-shared",
                    "-fPIC", "-o", str(lib), str(src)], check=True)
    return ctypes.CDLL(str(lib))


def test_kernel_source_is_its_files_in_order():
    # The CUDA source lives in kernels/ beside the module, in the package
    # as installed: the numerics, a row's execution, the kernel, after the
    # #defines the module writes.
    from importlib import resources
    kernels = resources.files("tessel.runtime.emulator") / "kernels"
    parts = [(kernels / name).read_text(encoding="utf-8") for name in kernel._PARTS]
    source = kernel.source()
    assert source.endswith("".join(parts))
    assert "#define OP_MATMUL" in source[:source.index(parts[0])]
    assert "DEV float isa_exp" in parts[0] and "exec_row" in parts[1]
    assert "__global__" in parts[2] and "host_run_rows" in parts[2]


def run_host_kernel(lib, program, inputs, threads: int = 1) -> dict:
    """The program through the kernel's exec_row on the host, rows in the
    cooperative schedule's order, each row's work split over ``threads``
    numbered threads as a group of thread blocks splits it on the GPU."""
    table = build_table(program)
    order: list[int] = []
    run_tiles(table, order.append)
    arena = initial_arena(program, table)
    for offset, data in input_regions(program, check_inputs(program, inputs)):
        arena[offset:offset + data.size] = data
    rows = np.ascontiguousarray(table.rows)
    order_arr = np.array(order, np.int64)
    scratch = np.zeros(max(4, table.max_buffered_acc * 4), np.uint8)
    fault = np.zeros(1, np.int32)
    ptr = ctypes.c_void_p
    lib.host_run_rows(ptr(rows.ctypes.data), ptr(order_arr.ctypes.data),
                      ctypes.c_longlong(len(order)), ptr(arena.ctypes.data),
                      ptr(scratch.ctypes.data), ctypes.c_int(threads),
                      ptr(fault.ctypes.data))
    if fault[0]:
        raise EmulationError("kernel: a dma_gather met an index outside its table")
    return read_outputs(program, lambda offset, size: arena[offset:offset + size])


EXECUTORS = ["cpu", "kernel", "cuda"]
# The kernel on the host with each row split over this many threads: the 16 x
# 16 matmuls below then take 4 x 4 outputs per thread (1 thread), 2 x 2 (64)
# and 1 (160), and transfers go by rows of a warp (64, 160).
HOST_THREADS = {"kernel": 1, "kernel-64": 64, "kernel-160": 160}
SPLIT_EXECUTORS = EXECUTORS + ["kernel-64", "kernel-160"]


def run_on(executor: str, program, inputs, host_kernel) -> dict:
    if executor in HOST_THREADS:
        if host_kernel is None:
            pytest.skip("no host C++ compiler to build the kernel source")
        return run_host_kernel(host_kernel, program, inputs, HOST_THREADS[executor])
    if executor == "cuda" and not cuda.available():
        pytest.skip("no CUDA device with CuPy here (CI has none)")
    return emulate(program, inputs, device=executor).outputs


def assert_same_bytes(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for name in want:
        g, w = np.ascontiguousarray(got[name]), np.ascontiguousarray(want[name])
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if g.tobytes() != w.tobytes():
            gb = g.reshape(-1).view(np.uint8).reshape(g.size, -1)
            wb = w.reshape(-1).view(np.uint8).reshape(w.size, -1)
            bad = np.nonzero((gb != wb).any(axis=1))[0]
            pytest.fail(f"output {name!r}: {bad.size} of {w.size} elements differ, "
                        f"first at flat index {bad[0]}: {g.reshape(-1)[bad[0]]!r} "
                        f"vs the simulator's {w.reshape(-1)[bad[0]]!r}")


def check(executor, program, inputs, host_kernel) -> None:
    got = run_on(executor, program, inputs, host_kernel)
    assert_same_bytes(got, simulate(program, inputs).outputs)


# ---------------------------------------------------------------------------
# Every operation on every dtype.
# ---------------------------------------------------------------------------

N = 256                     # elements of each operand: a 16 x 16 block
ALL_DTYPES = list(isa.DTYPES)
# The vector unit of this arch takes every type.
ARCH = arch_with(**{"tile.vector.dtypes": ALL_DTYPES})

_F32_SPECIAL_BITS = [
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x80000001,
    0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
    0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FBFFFFF, 0x33000000, 0x33000001,
    0x387FC000, 0x38800000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x4F000000,
    0xCF000000, 0x4EFFFFFF, 0x3F7FFFFF, 0x3F3504F3, 0x3F3504F4,
]
_F32_SPECIAL_VALUES = [
    88.72283, 88.72284, 89.0, -103.97, -103.98, -104.0, -87.5, -100.0, 50.0,
    9.0, 9.0000001, -9.5, 8.99, 0.5, 1.5, 2.5, 3.5, -2.5, 127.5, 128.5, -128.5,
    -129.0, 65504.0, 65519.0, 65520.0, 1e-8, 6e-8, 2.9e-8, 1e10, -1e10,
    2147483520.0, -2147483648.0, 1e-3, -1e-3, 0.3275911, 3.0, -3.0, 1e-38,
]


def float_inputs(rng, dtype: str, count: int) -> np.ndarray:
    """Special values first, then random bits and random normals of several
    scales, as the host array an input of ``dtype`` takes."""
    if dtype == "f32":
        special = np.concatenate([np.array(_F32_SPECIAL_BITS, np.uint32).view(np.float32),
                                  np.float32(_F32_SPECIAL_VALUES)])
        rand_bits = rng.integers(0, 2 ** 32, count, dtype=np.uint64).astype(np.uint32)
        rand = np.concatenate([rand_bits.view(np.float32)[:count // 4],
                               np.float32(rng.standard_normal(count)
                                          * 10.0 ** rng.integers(-3, 3, count))])
        return np.concatenate([special, rand])[:count].astype(np.float32)
    bits16 = rng.integers(0, 2 ** 16, count, dtype=np.uint32).astype(np.uint16)
    f32 = float_inputs(rng, "f32", count)
    if dtype == "f16":
        with np.errstate(over="ignore"):
            mixed = np.where(np.arange(count) % 3 == 0, bits16.view(np.float16),
                             f32.astype(np.float16))
        mixed[:4] = np.array([0x7C01, 0xFE00, 0x0001, 0x8000], np.uint16).view(np.float16)
        return mixed
    mixed = np.where(np.arange(count) % 3 == 0, bits16, nx.f32_to_bf16(f32))
    mixed[:4] = [0x7F81, 0xFFC1, 0x0001, 0x8000]
    return mixed.astype(np.uint16)


def int_inputs(rng, dtype: str, count: int) -> np.ndarray:
    info = np.iinfo(nx.STORAGE[dtype])
    special = [info.min, info.max, 0, -1, 1, info.min + 1]
    if dtype == "i64":
        # Rounding ties and near-ties of i64 -> f32 / f16 / bf16, above 2^53
        # (where float64 is not exact) and below.
        special += [(1 << 53) + 1, -(1 << 53) - 1, ((1 << 24) + 1) << 30,
                    (((1 << 24) + 1) << 30) + 1, ((1 << 24) + 3) << 38,
                    (257 << 8 | 0x80) << 32, ((1 << 8) + 1) << 54, 2 ** 63 - 1024,
                    16777217, 65520, -65520, 2 ** 31, -(2 ** 31) - 1]
        odd = rng.integers(1, 1 << 30, count // 4) * 2 + 1
        special += [int(o) << int(s) for o, s in zip(odd, rng.integers(0, 32, odd.size))]
    if dtype == "i32":
        # Rounding ties and near-ties of i32 -> f32 / f16 / bf16.
        special += [65520, 65519, 65504, -65520, 16777217, 16777219, 257 << 8 | 0x80,
                    385 << 20, 2 ** 31 - 64, -(2 ** 31) + 64, 0x01018000]
        odd = rng.integers(1, 1 << 10, count // 4) * 2 + 1
        special += [int(o) << int(s) for o, s in zip(odd, rng.integers(0, 20, odd.size))]
    rand = rng.integers(info.min, info.max, count, dtype=np.int64, endpoint=True)
    return np.concatenate([np.array(special, np.int64), rand])[:count].astype(info.dtype)


class Kit:
    """One tile (not at (0,0), so SRAM addresses are relocated) loading
    operands from DRAM and storing each result as a row of one output buffer
    per dtype."""

    ROWS = 160

    def __init__(self, arch=ARCH, tile=(1, 2)):
        self.b = ProgramBuilder(arch)
        self.t = self.b.tile(*tile, tokens=2)
        self.top = 0
        self.inputs: dict[str, np.ndarray] = {}
        self.outs = {dt: [self.b.add_buffer(f"out_{dt}", "output", (self.ROWS, N), dt), 0]
                     for dt in ALL_DTYPES}
        self.result = {dt: self.alloc(N, dt) for dt in ALL_DTYPES}

    def alloc(self, count: int, dtype: str) -> int:
        addr = self.top
        self.top += -(-count * isa.DTYPE_SIZE[dtype] // 64) * 64
        return addr

    def load(self, name: str, values: np.ndarray, dtype: str) -> int:
        buf = self.b.add_buffer(name, "input", values.shape, dtype)
        self.inputs[name] = values
        addr = self.alloc(values.size, dtype)
        self.t.dma(0, 0, dtype, (values.size,), dram(buf.offset, (1,)), sram(addr, (1,)))
        self.t.wait(0)
        return addr

    def store(self, addr: int, dtype: str, count: int = N) -> None:
        buf, row = self.outs[dtype]
        assert row < self.ROWS
        self.outs[dtype][1] += 1
        off = buf.offset + row * N * isa.DTYPE_SIZE[dtype]
        self.t.dma(1, 1, dtype, (count,), sram(addr, (1,)), dram(off, (1,)))
        self.t.wait(1)

    def build(self):
        return self.b.build(), self.inputs


FLOAT_IMMEDIATES = [0.0, -0.0, 2.5, -3.0, float("inf"), float("nan"), 1e-40, 70000.0]
INT_IMMEDIATES = [0.0, -1.0, 2.5, 3.5, -129.6, 1e10, float("nan"), 100.0, -1e19]


def every_operation_program(dtype: str):
    rng = np.random.default_rng(abs(hash(dtype)) % 1000)
    k = Kit()
    t = k.t
    is_int = dtype in isa.INT_DTYPES
    make = (lambda n: int_inputs(rng, dtype, n)) if is_int else (
        lambda n: float_inputs(rng, dtype, n))
    xv, yv = make(N), make(N)[::-1].copy()
    X, Y = k.load("x", xv, dtype), k.load("y", yv, dtype)
    s = isa.DTYPE_SIZE[dtype]
    flat = (N,)
    R = k.result[dtype]
    for out in ALL_DTYPES:
        t.vector_unary("cast", dtype, out, flat, (X, (1,)), (k.result[out], (1,)))
        k.store(k.result[out], out)
    unary = isa.INT_UNARY_OPS if is_int else isa.UNARY_OPS
    for op in unary:
        if op == "cast":
            continue
        t.vector_unary(op, dtype, dtype, flat, (X, (1,)), (R, (1,)))
        k.store(R, dtype)
    # A negative stride, and in place (out aliases in exactly).
    t.vector_unary("neg", dtype, dtype, flat, (X + (N - 1) * s, (-1,)), (R, (1,)))
    t.vector_unary("abs", dtype, dtype, flat, (R, (1,)), (R, (1,)))
    k.store(R, dtype)
    for op in (isa.INT_BINARY_OPS if is_int else isa.BINARY_OPS):
        t.vector_binary(op, dtype, flat, (X, (1,)), (Y, (1,)), (R, (1,)))
        k.store(R, dtype)
        # rhs broadcast along rows (stride 0), 2-D.
        t.vector_binary(op, dtype, (16, 16), (X, (16, 1)), (Y, (0, 1)), (R, (16, 1)))
        k.store(R, dtype)
        for imm in (INT_IMMEDIATES if is_int else FLOAT_IMMEDIATES):
            for lhs in (False, True):
                t.vector_binary_imm(op, dtype, imm, flat, (X, (1,)), (R, (1,)),
                                    imm_is_lhs=lhs)
                k.store(R, dtype)
    for pred in isa.PREDICATES:
        t.vector_compare(pred, dtype, flat, (X, (1,)), (Y, (1,)), (R, (1,)))
        k.store(R, dtype)
    t.vector_select(dtype, flat, (X, (1,)), (Y, (1,)), (X, (1,)), (R, (1,)))
    k.store(R, dtype)
    t.vector_select(dtype, (16, 16), (Y, (16, 1)), (X, (1, 16)), (Y, (0, 1)), (R, (16, 1)))
    k.store(R, dtype)
    for value in (INT_IMMEDIATES if is_int else FLOAT_IMMEDIATES + [3e-39, 0.1]):
        t.vector_fill(dtype, value, flat, (R, (1,)))
        k.store(R, dtype)
    for op in isa.REDUCE_OPS:
        t.vector_reduce(op, dtype, flat, 0, (X, (1,)), (R, ()))
        k.store(R, dtype, 1)
        for dim in (0, 1):
            t.vector_reduce(op, dtype, (16, 16), dim, (X, (16, 1)), (R, (1,)))
            k.store(R, dtype, 16)
        t.vector_reduce(op, dtype, (4, 8, 8), 1, (Y, (64, 8, 1)), (R, (8, 1)))
        k.store(R, dtype, 32)
    if dtype in ARCH.tile.mac.macs_per_cycle:
        matmuls(k, dtype, X, Y, rng)
    return k.build()


def matmuls(k: Kit, dtype: str, X: int, Y: int, rng) -> None:
    """acc (16 x 16, f32 or i32) += X (16 x 16) @ Y^T, with K split in two
    blocks that continue the same order; for f32 also lhs = acc exactly."""
    t = k.t
    acc_dt = isa.acc_dtype(dtype)
    init = (int_inputs(rng, "i32", N) if acc_dt == "i32"
            else float_inputs(rng, "f32", N))
    A = k.load("acc0", init, acc_dt)
    t.matmul(dtype, 16, 16, 16, (X, (16, 1)), (Y, (1, 16)), (A, (16, 1)))
    k.store(A, acc_dt)
    t.matmul(dtype, 16, 7, 16, (X, (16, 1)), (Y, (16, 1)), (A, (16, 1)))
    t.matmul(dtype, 16, 9, 16, (X + 7 * isa.DTYPE_SIZE[dtype], (16, 1)),
             (Y + 7 * 16 * isa.DTYPE_SIZE[dtype], (16, 1)), (A, (16, 1)))
    k.store(A, acc_dt)
    # matmul_init: the sums start at +0 whatever A holds (NaNs included).
    t.matmul(dtype, 16, 16, 16, (X, (16, 1)), (Y, (1, 16)), (A, (16, 1)),
             init=True)
    k.store(A, acc_dt)
    # Groups of rows (a convolution's output rows in its window): 3 groups
    # of 4 rows, 5 rows apart in X and 4 in A, with init and without.
    for init in (True, False):
        t.matmul(dtype, 4, 16, 16, (X, (5 * 16, 16, 1)), (Y, (1, 16)),
                 (A, (4 * 16, 16, 1)), g=3, init=init)
        k.store(A, acc_dt)
    if dtype == "f32":
        # Finite operands, so the alias is visible in the values: A @ Y with
        # A read entirely before it is written.
        t.vector_fill("f32", 0.25, (N,), (A, (1,)))
        t.vector_binary("min", "f32", (N,), (A, (1,)), (Y, (1,)), (A, (1,)))
        t.vector_binary_imm("max", "f32", -2.0, (N,), (A, (1,)), (A, (1,)))
        t.matmul("f32", 16, 16, 16, (A, (16, 1)), (A, (16, 1)), (A, (16, 1)))
        k.store(A, "f32")


@pytest.mark.parametrize("executor", SPLIT_EXECUTORS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_operation_matches_the_simulator(dtype, executor, host_kernel):
    program, inputs = every_operation_program(dtype)
    check(executor, program, inputs, host_kernel)


def test_the_special_values_reach_every_path():
    # The programs above are only as good as their operands: they hold NaN
    # payloads, infinities, signed zeros and subnormals of every float type.
    rng = np.random.default_rng(0)
    for dtype in ("f32", "f16", "bf16"):
        raw = nx.to_storage(float_inputs(rng, dtype, N), dtype)
        f = nx.to_f32(raw, dtype)
        bits = raw.view(np.uint16 if dtype != "f32" else np.uint32)
        assert np.isnan(f).sum() >= 3 and np.isinf(f).sum() >= 2, dtype
        assert (np.signbit(f) & (f == 0)).any() and (f == 0).sum() >= 2, dtype
        tiny = np.finfo(np.float16 if dtype == "f16" else np.float32).tiny
        assert ((np.abs(f) < tiny) & (f != 0)).any(), dtype
        assert len(set(bits[np.isnan(f)].tolist())) >= 2, dtype
        # Signaling NaNs (quiet bit clear), which every operation, max and
        # min included, sees.
        quiet = {"f32": 0x00400000, "f16": 0x0200, "bf16": 0x0040}[dtype]
        assert (np.isnan(f) & ((bits & quiet) == 0)).any(), dtype


@pytest.mark.parametrize("executor", EXECUTORS)
def test_max_and_min_skip_signaling_nans(executor, host_kernel):
    # docs/isa.md: "max/min return the other operand if one is NaN", any NaN.
    b = ProgramBuilder(ARCH)
    x = b.add_buffer("x", "input", (4,), "f32")
    y = b.add_buffer("y", "output", (3, 4), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (4,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.vector_binary_imm("max", "f32", 1.0, (4,), (0, (1,)), (64, (1,)))
    t.vector_binary_imm("min", "f32", 1.0, (4,), (0, (1,)), (80, (1,)))
    t.vector_reduce("max", "f32", (4,), 0, (0, (1,)), (96, ()))
    t.dma(0, 0, "f32", (12,), sram(64, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    snan = np.array([0x7F800001, 0xFF800001, 0x7FA00000, 0x7F800002], np.uint32)
    out = run_on(executor, b.build(), {"x": snan.view(np.float32)},
                 host_kernel)["y"].reshape(-1)
    assert out[:8].tolist() == [1.0] * 8
    assert np.isnan(out[8]) and out[8:9].view(np.uint32)[0] == 0x7FC00000


def test_the_simulator_skips_signaling_nans_in_max():
    # Regression: numerics.fmax/fmin and the max reduction used NumPy's
    # fmax/fmin, which return NaN for a signaling NaN operand, and in a
    # reduction only where the signaling NaN sits first.
    b = ProgramBuilder(ARCH)
    x = b.add_buffer("x", "input", (4, 4), "f32")
    y = b.add_buffer("y", "output", (3, 4), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (16,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.vector_binary_imm("max", "f32", 1.0, (4,), (0, (1,)), (64, (1,)))
    t.vector_binary("min", "f32", (4,), (0, (1,)), (16, (1,)), (80, (1,)))
    # Row r holds its signaling NaN at column r.
    t.vector_reduce("max", "f32", (4, 4), 1, (0, (4, 1)), (96, (1,)))
    t.dma(0, 0, "f32", (12,), sram(64, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    xs = np.full((4, 4), 2.0, np.float32)
    xs[np.arange(4), np.arange(4)] = np.array([0x7F800001] * 4, np.uint32).view(np.float32)
    xs[1, 0] = -3.0
    y = simulate(b.build(), {"x": xs}).outputs["y"]
    assert y[0].tolist() == [1.0, 2.0, 2.0, 2.0]
    assert y[1].tolist() == [-3.0, 2.0, 2.0, 2.0]
    assert y[2].tolist() == [2.0] * 4


# ---------------------------------------------------------------------------
# Tiles, transfers and semaphores.
# ---------------------------------------------------------------------------

def pull_and_barrier_program():
    """Four tiles each compute a slice of y = tanh(x) * 2; tile (3,3) pulls the
    slices from their SRAMs (a dma whose source is another tile) after they
    signal, reduces, and every tile waits on a barrier before writing."""
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (4, 64), "f32")
    y = b.add_buffer("y", "output", (4, 64), "f32")
    total = b.add_buffer("total", "output", (4,), "f32")
    workers = [(0, 0), (1, 2), (2, 1), (0, 3)]
    sink = b.tile(3, 3, semaphores=1, tokens=4)
    for i, rc in enumerate(workers):
        t = b.tile(*rc, semaphores=1, tokens=1)
        t.dma(0, 0, "f32", (64,), dram(x.offset + i * 256, (1,)), sram(0, (1,)))
        t.wait(0)
        t.vector_unary("tanh", "f32", "f32", (64,), (0, (1,)), (256, (1,)))
        t.vector_binary_imm("mul", "f32", 2.0, (64,), (256, (1,)), (256, (1,)))
        t.signal(3, 3, 0)
        t.wait_semaphore(0)              # released by the sink
        t.dma(0, 0, "f32", (64,), sram(256, (1,)), dram(y.offset + i * 256, (1,)))
        t.wait(0)
    sink.wait_semaphore(0, len(workers))
    for i, rc in enumerate(workers):
        sink.dma(i % 2, i, "f32", (64,), sram(256, (1,), tile=rc), sram(i * 256, (1,)))
    sink.wait(0, 1, 2, 3)
    for rc in workers:
        sink.signal(*rc, 0)
    sink.vector_reduce("add", "f32", (4, 64), 1, (0, (64, 1)), (2048, (1,)))
    sink.dma(0, 0, "f32", (4,), sram(2048, (1,)), dram(total.offset, (1,)))
    sink.wait(0)
    return b.build()


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pipeline_with_a_pushed_transfer(executor, host_kernel):
    program, _ = pipeline_program()
    x = np.float32(np.random.default_rng(8).standard_normal((32, 16)))
    check(executor, program, {"x": x}, host_kernel)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_dma_channels_wait_for_a_credit(executor, host_kernel):
    # The executors take a dma_wait_semaphore on the core (docs/isa.md).
    program = handover_program(arch_with("tessel-4x4"))
    x = np.arange(256, dtype=np.float32) - 100.5
    check(executor, program, {"x": x}, host_kernel)


@pytest.mark.parametrize("executor", SPLIT_EXECUTORS)
def test_pulled_transfers_and_a_barrier(executor, host_kernel):
    program = pull_and_barrier_program()
    x = np.float32(np.random.default_rng(3).standard_normal((4, 64)) * 3)
    check(executor, program, {"x": x}, host_kernel)


@pytest.mark.parametrize("executor", SPLIT_EXECUTORS)
def test_resnet18_conv_layer(bench, executor, host_kernel):
    program, _, _ = bench.conv_program()
    check(executor, program, bench.conv_inputs(program), host_kernel)


MULTICAST_RECEIVERS = [(0, 1), (0, 2), (1, 2)]


def multicast_program():
    """Tile (0,0) multicasts rows 4..11 of x into three tiles and into (3,3),
    which runs no code, then signals each receiver; a receiver waits for its
    signal, computes exp and stores its result. (0,0) then stores what (3,3)
    received."""
    b = ProgramBuilder("tessel-4x4")
    x = b.add_buffer("x", "input", (16, 16), "f32")
    y = b.add_buffer("y", "output", (len(MULTICAST_RECEIVERS), 8, 16), "f32")
    echo = b.add_buffer("echo", "output", (8, 16), "f32")
    src = b.tile(0, 0, tokens=1)
    src.dma_multicast(0, 0, "f32", (8, 16), dram(x.offset + 4 * 16 * 4, (16, 1)),
                      [sram(512 * i, (16, 1), tile=rc)
                       for i, rc in enumerate(MULTICAST_RECEIVERS + [(3, 3)])])
    for rc in MULTICAST_RECEIVERS:
        src.signal(*rc, 0)
    src.wait(0)
    src.dma(1, 0, "f32", (8, 16),
            sram(512 * len(MULTICAST_RECEIVERS), (16, 1), tile=(3, 3)), sram(0, (16, 1)))
    src.wait(0)
    src.dma(0, 0, "f32", (8, 16), sram(0, (16, 1)), dram(echo.offset, (16, 1)))
    src.wait(0)
    for i, rc in enumerate(MULTICAST_RECEIVERS):
        t = b.tile(*rc, semaphores=1, tokens=1)
        t.wait_semaphore(0)
        t.vector_unary("exp", "f32", "f32", (8, 16), (512 * i, (16, 1)), (4096, (16, 1)))
        t.dma(0, 0, "f32", (8, 16), sram(4096, (16, 1)), dram(y.offset + i * 512, (16, 1)))
        t.wait(0)
    return b.build()


@pytest.mark.parametrize("executor", SPLIT_EXECUTORS)
def test_a_multicast_and_its_signals(executor, host_kernel):
    program = multicast_program()
    x = np.float32(np.random.default_rng(11).standard_normal((16, 16)) * 4)
    check(executor, program, {"x": x}, host_kernel)


def test_a_multicast_is_one_dma_row_per_destination():
    program = multicast_program()
    x = np.float32(np.random.default_rng(12).standard_normal((16, 16)))
    out = emulate(program, {"x": x}, device="cpu")
    assert out.outputs["echo"].tobytes() == x[4:12].tobytes()
    assert out.outputs["y"].tobytes() == nx.unary(
        "exp", np.stack([x[4:12]] * 3), "f32", "f32").tobytes()
    table = build_table(program)
    # Four dma rows for the multicast, each naming it; a row per instruction
    # for the rest. (3,3) runs no code but holds an arena region.
    assert table.rows.shape[0] == program.num_instructions + 3
    assert out.instructions == program.num_instructions == table.instructions
    mc = program.instructions(0, 0)[0]
    assert table.where[:4] == (mc,) * 4 and table.index[:5] == (0, 0, 0, 0, 1)
    assert (table.rows[:4, 0] == isa.OPCODES["dma"]).all()
    assert (3, 3) in table.sram_base


def test_the_receivers_of_a_multicast_resume_after_it_completes():
    # docs/isa.md: a signal is ordered after every transfer the signalling
    # tile started earlier whose destinations include the target's SRAM. In
    # the simulator each receiver resumes when the multicast has completed
    # and the signal crossed the NoC, whatever its place among the
    # destinations.
    program = multicast_program()
    x = np.float32(np.random.default_rng(13).standard_normal((16, 16)))
    r = simulate(program, {"x": x}, trace=True)
    us = 1.0 / program.arch.clock_mhz
    mc = next(e for e in r.trace_events
              if e["ph"] == "X" and e["name"] == "dma (dram)" and e["pid"] == 1)
    assert mc["args"]["offset"] == 16
    done = (mc["ts"] + mc["dur"]) / us
    hop = program.arch.noc.hop_cycles
    assert done == 20 + 512 / 32 + 6 * hop + program.arch.dram.latency_cycles
    for rc in MULTICAST_RECEIVERS:
        # wait_semaphore issued at 0 (its issue cycle ends at 1).
        resumed = 1 + r.tiles[rc].stalls["tile"]
        assert resumed == done + (rc[0] + rc[1]) * hop, rc


def test_deadlock_report_counts_instructions_not_rows():
    # The multicast is three rows of the table; the report still names the
    # wait_semaphore as instruction 1.
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(0, 0, semaphores=1, tokens=1)
    t.dma_multicast(0, 0, "f32", (4,), sram(0, (1,)),
                    [sram(0, (1,), tile=(0, c)) for c in (1, 2, 3)])
    t.wait_semaphore(0)
    u = b.tile(0, 1, semaphores=1)
    u.wait_semaphore(0)
    u.signal(0, 0, 0)
    with pytest.raises(DeadlockError) as info:
        emulate(b.build(), device="cpu")
    msg = str(info.value)
    assert "tile (0, 0) at offset 120 (instruction 1): wait_semaphore sem0 1" in msg
    assert "tile (0, 1) at offset 16 (instruction 0): wait_semaphore sem0 1" in msg
    assert ("signalled by tile (0, 1) at offset 28 (+1), which is blocked at "
            "offset 16: wait_semaphore sem0 1") in msg


def test_chained_matmuls_skip_the_barrier_only_into_the_same_acc(bench):
    # On the GPU a tile's blocks meet at a barrier after every row except a
    # matmul followed by one into the same acc with the same shape (each
    # thread then reads back only its own outputs).
    b = ProgramBuilder(ARCH)
    t = b.tile(0, 0)
    t.matmul("f32", 16, 16, 16, (0, (16, 1)), (1024, (16, 1)), (2048, (16, 1)))
    t.matmul("f32", 16, 16, 16, (1024, (16, 1)), (0, (16, 1)), (2048, (16, 1)))
    t.matmul("f32", 16, 8, 16, (0, (16, 1)), (1024, (16, 1)), (2048, (16, 1)))
    t.matmul("f32", 16, 8, 16, (0, (16, 1)), (1024, (16, 1)), (3072, (16, 1)))
    t.matmul("f32", 16, 16, 16, (3072, (16, 1)), (1024, (16, 1)), (3072, (16, 1)))
    t.matmul("f32", 16, 8, 16, (0, (16, 1)), (1024, (16, 1)), (3072, (16, 1)))
    u = b.tile(0, 1)
    u.matmul("f32", 16, 8, 16, (0, (16, 1)), (1024, (16, 1)), (3072, (16, 1)))
    table = build_table(b.build())
    # k may differ; acc, m and n may not; a buffered one (lhs = acc) breaks
    # the chain on both sides; a tile's last row is never chained.
    assert cuda.chained_rows(table).tolist() == [1, 1, 0, 0, 0, 0, 0]
    conv, _, _ = bench.conv_program()
    assert int(cuda.chained_rows(build_table(conv)).sum()) == 476


def test_repeated_runs_start_from_the_program_image():
    # A run writes scratch and SRAM; the next run of the same program object
    # starts again from the DRAM image and zeroed SRAM.
    program, _ = pipeline_program()
    rng = np.random.default_rng(1)
    xs = [np.float32(rng.standard_normal((32, 16))) for _ in range(2)]
    first = emulate(program, {"x": xs[0]}, device="cpu").outputs
    emulate(program, {"x": xs[1]}, device="cpu")
    again = emulate(program, {"x": xs[0]}, device="cpu").outputs
    assert_same_bytes(again, first)


# ---------------------------------------------------------------------------
# Deadlocks and errors.
# ---------------------------------------------------------------------------

def two_tiles_waiting_on_each_other():
    b = ProgramBuilder("tessel-4x4")
    a = b.tile(0, 0, semaphores=1)
    c = b.tile(0, 1, semaphores=1)
    a.vector_fill("f32", 1.0, (16,), (0, (1,)))
    a.wait_semaphore(0)
    a.signal(0, 1, 0)
    c.wait_semaphore(0)
    c.signal(0, 0, 0)
    return b.build()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_deadlock_is_reported_not_hung(device):
    # The schedule is checked on the host before any device runs, so the
    # report is the same for both devices (and needs no GPU).
    with pytest.raises(DeadlockError) as info:
        emulate(two_tiles_waiting_on_each_other(), device=device)
    msg = str(info.value)
    assert msg.startswith("deadlock: no tile can progress")
    assert "tile (0, 0) at offset 48 (instruction 1): wait_semaphore sem0 1" in msg
    assert "tile (0, 1) at offset 16 (instruction 0): wait_semaphore sem0 1" in msg
    assert "waits for semaphore 0 to hold 1; it holds 0" in msg
    assert ("signalled by tile (0, 1) at offset 28 (+1), which is blocked at "
            "offset 16: wait_semaphore sem0 1") in msg
    assert sorted(w["tile"] for w in info.value.waiting) == [(0, 0), (0, 1)]
    assert isinstance(info.value, SimulationError)


def test_deadlock_on_a_semaphore_nobody_signals():
    b = ProgramBuilder("tessel-4x4")
    t = b.tile(1, 1, semaphores=2)
    t.signal(1, 1, 1)                   # one of the two it needs
    t.wait_semaphore(1, 2)
    with pytest.raises(DeadlockError) as info:
        emulate(b.build(), device="cpu")
    msg = str(info.value)
    assert "semaphore 1 to hold 2; it holds 1" in msg
    assert "signalled by tile (1, 1) at offset 16 (+1), which has passed it" in msg
    assert info.value.waiting[0]["count"] == 1


def test_inputs_are_checked_as_the_simulator_checks_them():
    program, _ = pipeline_program()
    with pytest.raises(EmulationError, match="input 'x' is missing"):
        emulate(program, {}, device="cpu")
    with pytest.raises(EmulationError, match="'w' is a weight buffer, not an input"):
        emulate(program, {"x": np.zeros((32, 16), np.float32),
                          "w": np.zeros((16, 16), np.float32)}, device="cpu")
    with pytest.raises(EmulationError, match="device 'tpu' is not one of cpu, cuda"):
        emulate(program, {"x": np.zeros((32, 16), np.float32)}, device="tpu")


def test_cuda_without_a_gpu_says_what_is_missing():
    if cuda.available():
        pytest.skip("this machine has a GPU")
    program, _ = pipeline_program()
    with pytest.raises(EmulationError, match="device='cuda' needs CuPy|no usable CUDA"):
        emulate(program, {"x": np.zeros((32, 16), np.float32)}, device="cuda")


def test_program_emulate_and_the_command_line(tmp_path, capsys):
    from tessel import cli
    program, _ = pipeline_program()
    x = np.float32(np.random.default_rng(5).standard_normal((32, 16)))
    want = simulate(program, {"x": x}).outputs
    assert_same_bytes(program.emulate({"x": x}, device="cpu").outputs, want)
    program.save(tmp_path / "p")
    np.savez(tmp_path / "in.npz", x=x)
    code = cli.main(["simulate", str(tmp_path / "p"), "--target", "cpu-emulation",
                     "--inputs", str(tmp_path / "in.npz"), "--outputs",
                     str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "emulated on cpu" in out and "cycles" not in out
    with np.load(tmp_path / "out.npz") as got:
        assert_same_bytes(dict(got), want)
    if not cuda.available():
        code = cli.main(["simulate", str(tmp_path / "p"), "--target", "gpu"])
        out, err = capsys.readouterr()
        assert code == 1 and "error: " in err and "device='cuda' needs CuPy" in err


def test_emulator_imports_nothing_from_mlir_nor_cupy_until_asked(repo):
    code = (
        "import sys\n"
        "from tessel.runtime import emulator\n"
        "from tessel.runtime.emulator import cpu, cuda, kernel, table\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('tessel._mlir_libs', "
        "'tessel.ir', 'tessel.dialects', 'mlir', 'cupy', 'torch')))\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
