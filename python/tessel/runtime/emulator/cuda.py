"""The CUDA backend: the table in GPU memory, one persistent kernel launch
per run (:mod:`.kernel`), through CuPy (compiled by NVRTC on first use).

A prepared program keeps on the GPU its table, a pristine arena (the DRAM
image, SRAM zeroed) and a working arena; a run copies the pristine arena
over the working one on the device, writes the inputs, launches, and reads
back only the output buffers.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .. import isa
from ..program import Program
from . import kernel
from .errors import EmulationError
from .schedule import deadlock_error
from .table import DT_IN, FLAG, OP, OPCODES, SIZE0, VIEW0, VIEW_WIDTH, Table

# Threads per block; the kernel is compiled for exactly this many.
THREADS = 512
# A run gives up (and reports the tiles' state) when no block has moved for
# this long; the host has proved the program deadlock-free, so this guards
# only against blocks that were never scheduled.
TIMEOUT_S = 10.0
MAX_OWNED = 64                    # kernel.py: tiles one group can run
# Thread blocks that run one tile together when blocks are left over (a
# program with fewer tiles than the GPU holds blocks): each row's work is
# split over them, with a barrier between rows. None: as many as fit, up to
# GROUP_MAX; a number fixes it (the benchmark's --group).
GROUP: int | None = None
GROUP_MAX = 16
GROUP_WORDS = 32                  # kernel.py: words of global memory per group

_functions: dict = {}


def _cupy():
    try:
        import cupy
    except ImportError:
        raise EmulationError(
            "device='cuda' needs CuPy and an NVIDIA GPU (pip install "
            "cupy-cuda12x); device='cpu' runs the same program without "
            "them") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise EmulationError(f"device='cuda': no usable CUDA device ({e})") from None
    if count == 0:
        raise EmulationError("device='cuda': CuPy finds no CUDA device")
    return cupy


def available() -> bool:
    """Whether ``device="cuda"`` can run here (CuPy and a GPU)."""
    try:
        _cupy()
    except EmulationError:
        return False
    return True


def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc
    except ImportError:                   # older CuPy
        from cupy.cuda import nvrtc
    return nvrtc


# NVRTC options. The module is compiled here rather than by cupy.RawModule,
# which appends -ftz=true to every compilation: subnormals must be kept.
OPTIONS = ("--std=c++17", "--fmad=false", "--ftz=false", "--prec-div=true",
           "--prec-sqrt=true")


def compile_ptx(cupy, threads: int) -> bytes:
    """The kernel's PTX for the current device, checked to hold neither a
    flush-to-zero nor a fused multiply-add on f32."""
    nvrtc = _nvrtc()
    major_minor = cupy.cuda.Device().compute_capability
    options = OPTIONS + (f"--gpu-architecture=compute_{major_minor}",
                         f"-DBLOCK={threads}")
    program = nvrtc.createProgram(kernel.source(), "tessel_emulator.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(program, options)
        except nvrtc.NVRTCError:
            raise EmulationError("the emulator's CUDA kernel does not compile "
                                 f"({' '.join(options)}):\n"
                                 f"{nvrtc.getProgramLog(program)}") from None
        ptx = nvrtc.getPTX(program)
    finally:
        nvrtc.destroyProgram(program)
    ptx = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
    for forbidden in (b".ftz", b"fma.rn.f32"):
        if forbidden in ptx:
            raise EmulationError(f"the emulator's PTX contains {forbidden.decode()}, "
                                 "which would change results (docs/isa.md)")
    return ptx


def _function(cupy, threads: int):
    key = (cupy.cuda.Device().id, threads)
    got = _functions.get(key)
    if got is None:
        module = cupy.cuda.function.Module()
        module.load(compile_ptx(cupy, threads))
        # The module stays referenced: unloading it frees the function.
        got = _functions[key] = (module, module.get_function("tessel_run"))
    return got[1]


def _resident_blocks(cupy, fn, threads: int) -> int:
    """Blocks of ``fn`` the GPU holds at once: every block must be resident,
    since a block spinning on a semaphore waits for another block."""
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    try:
        per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            fn.ptr, threads, 0)
    except Exception:          # an older CuPy: one block per SM is safe
        per_sm = 1
    return max(1, per_sm) * sms


def _extent(row: np.ndarray, slot: int, sizes, size: int) -> tuple[int, int]:
    """The bytes [lo, hi) a view of ``row`` touches."""
    col = VIEW0 + VIEW_WIDTH * slot
    base, lo, hi = int(row[col]), 0, 0
    for n, stride in zip(sizes, row[col + 1:col + 1 + len(sizes)].tolist()):
        lo, hi = lo + min(0, (n - 1) * stride), hi + max(0, (n - 1) * stride)
    return base + lo * size, base + (hi + 1) * size


def chained_rows(table: Table) -> np.ndarray:
    """1 for a row the next row of its tile may follow without a barrier
    among the tile's blocks: both are matmuls of one dtype and shape into
    the same ``acc`` view, neither buffered, and the second reads nothing the
    first writes but ``acc``. Each thread then computes the same outputs in
    both, so it reads back only what it wrote itself (the conv layer of
    bench/simulator.py: 476 of its 575 barriers)."""
    rows = table.rows
    chained = np.zeros(len(rows), np.uint8)
    acc = slice(VIEW0 + 2 * VIEW_WIDTH, VIEW0 + 2 * VIEW_WIDTH + 3)
    a, b = rows[:-1], rows[1:]
    same = ((a[:, OP] == OPCODES["matmul"]) & (b[:, OP] == OPCODES["matmul"])
            & (a[:, FLAG] == 0) & (b[:, FLAG] == 0) & (a[:, DT_IN] == b[:, DT_IN])
            & (a[:, SIZE0] == b[:, SIZE0]) & (a[:, SIZE0 + 2] == b[:, SIZE0 + 2])
            & (a[:, acc] == b[:, acc]).all(axis=1))
    same[table.first[1:-1] - 1] = False              # the last row of a tile
    for i in np.nonzero(same)[0].tolist():
        a, b = rows[i], rows[i + 1]
        m, k, n = (int(v) for v in b[SIZE0:SIZE0 + 3])
        size = isa.DTYPE_SIZE[isa.DTYPES[int(b[DT_IN])]]
        lo, hi = _extent(a, 2, (m, n), 4)
        reads = (_extent(b, 0, (m, k), size), _extent(b, 1, (k, n), size))
        if all(r_hi <= lo or r_lo >= hi for r_lo, r_hi in reads):
            chained[i] = 1
    return chained


class Prepared:
    """A program resident on the GPU, ready to run."""

    def __init__(self, program: Program, table: Table, threads: int | None = None):
        from . import initial_arena
        cp = self.cp = _cupy()
        threads = threads or THREADS
        self.program, self.table, self.threads = program, table, threads
        self.requested_group = GROUP
        self.fn = _function(cp, threads)
        tiles = table.num_tiles
        resident = _resident_blocks(cp, self.fn, threads)
        self.group = group_size(tiles, resident)
        self.groups = min(max(tiles, 1), resident // self.group)
        self.grid = self.groups * self.group
        if tiles > self.groups * MAX_OWNED:
            raise EmulationError(
                f"{tiles} tiles do not fit this GPU: {self.groups} resident blocks "
                f"run at most {MAX_OWNED} tiles each")
        rows = table.rows if table.rows.size else np.zeros((1, table.rows.shape[1]), np.int64)
        self.rows = cp.asarray(np.ascontiguousarray(rows))
        self.first = cp.asarray(table.first)
        self.chained = cp.asarray(np.append(chained_rows(table), np.uint8(0)))
        self.sem_init = cp.asarray(np.append(table.sem_init, 0).astype(np.uint32))
        self.sems = cp.empty_like(self.sem_init)
        self.pristine = cp.asarray(initial_arena(program, table))
        self.arena = cp.empty_like(self.pristine)
        self.scratch_stride = max(4, table.max_buffered_acc * 4)
        self.scratch = cp.empty(self.groups * self.scratch_stride, np.uint8)
        self.group_words = cp.zeros(self.groups * GROUP_WORDS, np.uint32)
        self.pcs = cp.empty(max(tiles, 1), np.int64)
        self.progress = cp.zeros(1, np.uint64)
        self.stuck = cp.zeros(1, np.int32)
        self.fault = cp.zeros(1, np.int32)

    def run(self, raw_inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from . import input_regions, read_outputs
        cp, table = self.cp, self.table
        cp.copyto(self.arena, self.pristine)
        for offset, data in input_regions(self.program, raw_inputs):
            self.arena[offset:offset + data.size].set(data)
        cp.copyto(self.sems, self.sem_init)
        self.progress.fill(0)
        self.stuck.fill(0)
        self.fault.fill(0)
        self.group_words.fill(0)
        try:
            if table.num_tiles:
                self.fn((self.grid,), (self.threads,), (
                    self.rows, self.chained, self.first, np.int32(table.num_tiles), self.arena,
                    self.sems, self.scratch, np.int64(self.scratch_stride), self.pcs,
                    self.progress, self.stuck, np.int64(int(TIMEOUT_S * 1e9)),
                    np.int32(self.group), self.group_words, self.fault))
            stuck = int(self.stuck.get()[0])
            fault = int(self.fault.get()[0])
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            raise EmulationError(f"device='cuda': the kernel failed: {e}") from None
        if stuck:
            raise self._stuck_error()
        if fault:
            raise self._gather_error(raw_inputs)
        return read_outputs(self.program,
                            lambda offset, size: self.arena[offset:offset + size].get())

    def _gather_error(self, raw_inputs: Mapping[str, np.ndarray]) -> EmulationError:
        """The error of a run in which a gather met an index outside its
        table: the CPU backend runs the program again and names the first
        such index (the kernel, whose tiles run concurrently, only knows
        that one was met)."""
        from . import cpu, initial_arena, input_regions
        arena = initial_arena(self.program, self.table)
        for offset, data in input_regions(self.program, raw_inputs):
            arena[offset:offset + data.size] = data
        try:
            cpu.run(self.table, arena)
        except EmulationError as e:
            return EmulationError(f"device='cuda': {e}")
        return EmulationError("device='cuda': a dma_gather met an index outside "
                              "its table, which the CPU backend did not meet")

    def _stuck_error(self) -> EmulationError:
        table = self.table
        pcs = self.pcs.get().tolist()
        sems = self.sems.get().astype(np.int64).tolist()
        blocked = [t for t in range(table.num_tiles) if pcs[t] < table.first[t + 1]]
        return deadlock_error(
            table, pcs, sems, blocked,
            headline=(f"device='cuda': no tile moved for {TIMEOUT_S:g} s although "
                      f"the program cannot deadlock; were all {self.grid} blocks "
                      "resident (another process on the GPU)? Tiles not finished:"))


def group_size(tiles: int, resident: int) -> int:
    """Thread blocks per tile: the blocks the GPU holds shared among the
    tiles, at most GROUP_MAX (or GROUP when set)."""
    if GROUP is not None:
        if GROUP < 1 or GROUP > resident:
            raise EmulationError(f"a group of {GROUP} blocks per tile does not fit "
                                 f"this GPU, which holds {resident} blocks")
        return GROUP
    return max(1, min(GROUP_MAX, resident // max(tiles, 1)))


def prepared(program: Program, table: Table) -> Prepared:
    """The program's GPU state, made on first use and kept with it."""
    state = getattr(program, "_emulator_cuda", None)
    if state is None or state.threads != THREADS or state.requested_group != GROUP:
        state = Prepared(program, table)
        program._emulator_cuda = state
    return state
