"""Simulator speed and the quality of two hand-scheduled layers.

The compiler does not emit these layers yet, so they are built here with the
ProgramBuilder as im2col GEMMs, scheduled by hand: operand tiles are brought
in by double-buffered DMA, the MAC array works on one block per `matmul`,
results go back to DRAM by DMA.

  (a) ResNet-18 3x3 conv, 56x56x64 -> 64 (stride 1, pad 1), f32, on
      systolic-32x32. The DMA engine does the im2col: a rank-4 view of the
      padded NHWC input gathers 4 output rows' patches (224 x 576) per chunk.
  (b) A BERT-base layer's matmuls (seq 128, hidden 768, 12 heads, FFN 3072),
      f32, on tessel-4x4: QKV, per-head Q K^T and P V, the output projection,
      FFN1, FFN2; N is split over the 16 tiles (heads over 12 tiles), K is
      streamed in chunks of 32, and a barrier (semaphores on tile (0,0))
      separates the phases.

Prints, as medians of repeated runs: simulated instructions and cycles per
wall second, timing-only and with numerics, and cycles / roofline lower bound
(max(MACs / peak MAC rate, compulsory DRAM bytes / DRAM bandwidth)). Each
figure is also given per second of the process's CPU time, which a machine
shared with other work disturbs far less than wall time.

``--program DIR`` (repeatable) also times saved programs, e.g. a compiled
model (``tessel.driver.compile_imported(...).save(DIR)``), with random
inputs.

    python bench/simulator.py [--repeat N] [--program DIR ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from tessel.runtime.builder import ProgramBuilder, dram, sram  # noqa: E402
from tessel.runtime.loader import load_program  # noqa: E402
from tessel.runtime.inputs import input_dtypes  # noqa: E402
from tessel.runtime.simulator import simulate  # noqa: E402

F32 = 4


# ---------------------------------------------------------------------------
# (a) ResNet-18 conv layer on systolic-32x32.
# ---------------------------------------------------------------------------

def conv_program(rows_per_chunk: int = 4):
    H = W = 56
    C = K_OUT = 64
    HP = H + 2
    KK = 9 * C                                   # 576, im2col depth
    b = ProgramBuilder("systolic-32x32")
    rng = np.random.default_rng(0)
    x = b.add_buffer("x_padded", "input", (HP, HP, C), "f32")
    w = b.add_buffer("w", "weight", (KK, K_OUT), "f32",
                     data=np.float32(rng.standard_normal((KK, K_OUT)) / 24))
    y = b.add_buffer("y", "output", (H * W, K_OUT), "f32")
    tag = b.add_tag("conv3x3", op="linalg.conv_2d_nhwc_hwcf")
    t = b.tile(0, 0, tokens=5)
    t.default_tag = tag
    M = rows_per_chunk * W                       # GEMM rows per chunk
    chunks = H // rows_per_chunk
    W_S = 0
    A_S = [KK * K_OUT * F32, KK * K_OUT * F32 + M * KK * F32]
    O_S = [A_S[1] + M * KK * F32, A_S[1] + M * KK * F32 + M * K_OUT * F32]
    assert O_S[1] + M * K_OUT * F32 <= b.arch.tile.sram.bytes

    def load_chunk(c: int, buf: int) -> None:
        base = x.offset + c * rows_per_chunk * HP * C * F32
        t.dma(1 + buf, 1 + buf, "f32", (rows_per_chunk, W, 3, 3 * C),
              dram(base, (HP * C, C, HP * C, 1)),
              sram(A_S[buf], (W * KK, KK, 3 * C, 1)))

    t.dma(0, 0, "f32", (KK, K_OUT), dram(w.offset, (K_OUT, 1)), sram(W_S, (K_OUT, 1)))
    load_chunk(0, 0)
    t.wait(0)
    for c in range(chunks):
        buf = c % 2
        if c + 1 < chunks:
            load_chunk(c + 1, 1 - buf)
        t.wait(1 + buf)
        if c >= 2:
            t.wait(3 + buf)
        t.vector_fill("f32", 0.0, (M, K_OUT), (O_S[buf], (K_OUT, 1)))
        for nb in range(K_OUT // 32):
            for kb in range(KK // 32):
                t.matmul("f32", M, 32, 32, (A_S[buf] + kb * 32 * F32, (KK, 1)),
                         (W_S + (kb * 32 * K_OUT + nb * 32) * F32, (K_OUT, 1)),
                         (O_S[buf] + nb * 32 * F32, (K_OUT, 1)))
        t.dma(3, 3 + buf, "f32", (M, K_OUT), sram(O_S[buf], (K_OUT, 1)),
              dram(y.offset + c * M * K_OUT * F32, (K_OUT, 1)))
    t.wait(3, 4)
    program = b.build()
    macs = H * W * KK * K_OUT
    compulsory = x.nbytes + w.nbytes + y.nbytes
    return program, macs, compulsory


def conv_inputs(program):
    rng = np.random.default_rng(1)
    xp = np.zeros((58, 58, 64), np.float32)
    xp[1:57, 1:57] = rng.standard_normal((56, 56, 64))
    return {"x_padded": xp}


def conv_reference(program, inputs):
    xp = inputs["x_padded"].astype(np.float64)
    w = np.frombuffer(program.dram_image, np.float32,
                      count=576 * 64, offset=program.buffer("w").offset)
    w = w.reshape(3, 3, 64, 64).astype(np.float64)
    out = np.zeros((56, 56, 64))
    for kh in range(3):
        for kw in range(3):
            out += xp[kh:kh + 56, kw:kw + 56] @ w[kh, kw]
    return out.reshape(56 * 56, 64)


# ---------------------------------------------------------------------------
# (b) BERT-base layer matmuls on tessel-4x4.
# ---------------------------------------------------------------------------

class _Gemm:
    """Emits C[M, cols] (+)= A[M, K] @ B[K, cols] on one tile: K in chunks of
    `kc`, A and B chunks double-buffered on DMA channels 0 and 1, the
    accumulator in SRAM, written back at the end."""

    def __init__(self, builder: ProgramBuilder, kc: int = 32):
        self.b = builder
        self.kc = kc
        self.mac = builder.arch.tile.mac

    def emit(self, t, M, K, cols, a_view, b_view, c_view):
        """a_view(k0) / b_view(k0) -> DRAM (base, strides) of the chunk at row
        k0; c_view -> DRAM (base, strides) of the result."""
        kc, R, Cn = self.kc, self.mac.rows, self.mac.cols
        a_bytes, b_bytes = M * kc * F32, kc * cols * F32
        A = [0, a_bytes]
        B = [2 * a_bytes, 2 * a_bytes + b_bytes]
        ACC = 2 * a_bytes + 2 * b_bytes
        assert ACC + M * cols * F32 <= self.b.arch.tile.sram.bytes
        chunks = K // kc

        def load(c, buf):
            base, st = a_view(c * kc)
            t.dma(0, buf, "f32", (M, kc), dram(base, st), sram(A[buf], (kc, 1)))
            base, st = b_view(c * kc)
            t.dma(1, 2 + buf, "f32", (kc, cols), dram(base, st), sram(B[buf], (cols, 1)))

        t.vector_fill("f32", 0.0, (M, cols), (ACC, (cols, 1)))
        load(0, 0)
        for c in range(chunks):
            buf = c % 2
            t.wait(buf, 2 + buf)
            if c + 1 < chunks:
                load(c + 1, 1 - buf)
            for n0 in range(0, cols, Cn):
                n = min(Cn, cols - n0)
                for k0 in range(0, kc, R):
                    t.matmul("f32", M, min(R, kc - k0), n,
                             (A[buf] + k0 * F32, (kc, 1)),
                             (B[buf] + (k0 * cols + n0) * F32, (cols, 1)),
                             (ACC + n0 * F32, (cols, 1)))
        base, st = c_view
        t.dma(0, 0, "f32", (M, cols), sram(ACC, (cols, 1)), dram(base, st))
        t.wait(0)


def bert_program():
    S, D, HEADS, DH, FF = 128, 768, 12, 64, 3072
    b = ProgramBuilder("tessel-4x4")
    rng = np.random.default_rng(2)

    def weight(name, shape):
        return b.add_buffer(name, "weight", shape, "f32",
                            data=np.float32(rng.standard_normal(shape) / np.sqrt(shape[0])))

    x = b.add_buffer("x", "input", (S, D), "f32")
    wqkv = weight("w_qkv", (D, 3 * D))
    wo = weight("w_o", (D, D))
    w1 = weight("w_ff1", (D, FF))
    w2 = weight("w_ff2", (FF, D))
    qkv = b.add_buffer("qkv", "scratch", (S, 3 * D), "f32")
    scores = b.add_buffer("scores", "scratch", (HEADS, S, S), "f32")
    ctx = b.add_buffer("ctx", "scratch", (S, D), "f32")
    attn = b.add_buffer("attn", "scratch", (S, D), "f32")
    hid = b.add_buffer("ffn_hidden", "scratch", (S, FF), "f32")
    out = b.add_buffer("y", "output", (S, D), "f32")
    tiles = [(r, c) for r in range(4) for c in range(4)]
    streams = {rc: b.tile(*rc, semaphores=2, tokens=4) for rc in tiles}
    gemm = _Gemm(b)

    def barrier():
        # Everyone tells (0,0); (0,0) releases everyone.
        for rc in tiles:
            streams[rc].signal(0, 0, 0)
        root = streams[(0, 0)]
        root.wait_semaphore(0, len(tiles))
        for rc in tiles:
            root.signal(*rc, 1)
        for rc in tiles:
            streams[rc].wait_semaphore(1)

    def row_major(buf, row_len, col0=0):
        return lambda k0: (buf.offset + (k0 * row_len + col0) * F32, (row_len, 1))

    def projection(name, a_buf, a_len, w_buf, K, N, c_buf):
        per = N // len(tiles)
        tag = b.add_tag(name, op="linalg.matmul")
        for i, rc in enumerate(tiles):
            t = streams[rc]
            t.default_tag = tag
            n0 = i * per
            gemm.emit(t, S, K, per,
                      lambda k0: (a_buf.offset + k0 * F32, (a_len, 1)),
                      row_major(w_buf, N, n0),
                      (c_buf.offset + n0 * F32, (N, 1)))
        barrier()

    projection("qkv", x, D, wqkv, D, 3 * D, qkv)
    tag = b.add_tag("attention.scores", op="linalg.batch_matmul")
    for h in range(HEADS):
        t = streams[tiles[h]]
        t.default_tag = tag
        q0, k0_ = h * DH, D + h * DH
        # S_h = Q_h @ K_h^T: the rhs chunk is K_h^T rows k0.., read transposed.
        gemm.emit(t, S, DH, S,
                  lambda k0, q0=q0: (qkv.offset + (q0 + k0) * F32, (3 * D, 1)),
                  lambda k0, c=k0_: (qkv.offset + (c + k0) * F32, (1, 3 * D)),
                  (scores.offset + h * S * S * F32, (S, 1)))
    barrier()
    tag = b.add_tag("attention.context", op="linalg.batch_matmul")
    for h in range(HEADS):
        t = streams[tiles[h]]
        t.default_tag = tag
        v0 = 2 * D + h * DH
        gemm.emit(t, S, S, DH,
                  lambda k0, h=h: (scores.offset + (h * S * S + k0) * F32, (S, 1)),
                  lambda k0, v0=v0: (qkv.offset + (k0 * 3 * D + v0) * F32, (3 * D, 1)),
                  (ctx.offset + h * DH * F32, (D, 1)))
    barrier()
    projection("attention.output", ctx, D, wo, D, D, attn)
    projection("ffn1", attn, D, w1, D, FF, hid)
    projection("ffn2", hid, FF, w2, FF, D, out)
    program = b.build()
    macs = S * D * 3 * D + 2 * HEADS * S * S * DH + S * D * D + 2 * S * D * FF
    compulsory = x.nbytes + wqkv.nbytes + wo.nbytes + w1.nbytes + w2.nbytes + out.nbytes
    return program, macs, compulsory


# ---------------------------------------------------------------------------

def measure(program, inputs, numerics: bool, repeat: int):
    """Median wall and CPU seconds of ``repeat`` runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        result = simulate(program, inputs, numerics=numerics)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), result


def time_runs(program, inputs, repeat: int) -> dict:
    """Prints timing-only and numerics speed; the results by ``numerics``."""
    n = program.num_instructions
    res = {}
    for numerics, label, reps in ((False, "timing-only", repeat),
                                  (True, "with numerics", max(1, repeat // 2))):
        wall, cpu, r = measure(program, inputs, numerics, reps)
        res[numerics] = r
        print(f"  {label:<14} {wall * 1e3:8.1f} ms  {n / wall:10.3g} instr/s  "
              f"{r.cycles / wall:10.3g} cycles/s  | CPU {cpu * 1e3:8.1f} ms  "
              f"{n / cpu:10.3g} instr/s   (median of {reps})")
    assert res[True].cycles == res[False].cycles
    return res


def report(name, program, macs, compulsory, inputs, repeat, check=None):
    a = program.arch
    n = program.num_instructions
    peak = a.peak_macs_per_cycle("f32")
    bound = max(macs / peak, compulsory / a.dram_bytes_per_cycle)
    print(f"== {name} on {a.name}: {n} instructions, {macs / 1e6:.1f} M MACs")
    r = time_runs(program, inputs, repeat)[True]
    print(f"  simulated {r.cycles} cycles = {r.seconds * 1e6:.1f} us; roofline lower "
          f"bound {bound:.0f} (compute {macs / peak:.0f}, DRAM "
          f"{compulsory / a.dram_bytes_per_cycle:.0f}); cycles / bound = "
          f"{r.cycles / bound:.2f}; MAC utilization {100 * r.mac_utilization:.1f}%")
    if check is not None:
        check(r)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--program", action="append", default=[], metavar="DIR",
                        help="also time this saved program (random inputs)")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    program, macs, comp = conv_program()
    print(f"(built the conv program in {time.perf_counter() - t0:.2f} s)")
    inputs = conv_inputs(program)

    def check_conv(r):
        want = conv_reference(program, inputs)
        err = np.max(np.abs(r.outputs["y"] - want))
        print(f"  max |output - float64 reference| = {err:.2e}")

    report("ResNet-18 conv3x3 56x56x64->64", program, macs, comp, inputs,
           args.repeat, check_conv)

    t0 = time.perf_counter()
    program, macs, comp = bert_program()
    print(f"(built the BERT program in {time.perf_counter() - t0:.2f} s)")
    inputs = {"x": np.float32(np.random.default_rng(3).standard_normal((128, 768)))}
    report("BERT-base layer matmuls", program, macs, comp, inputs,
           max(1, args.repeat // 2))

    for directory in args.program:
        program = load_program(directory)
        rng = np.random.default_rng(4)
        inputs = {name: rng.standard_normal(program.buffer(name).shape).astype(
                      input_dtypes(program.buffer(name).dtype)[0])
                  for name in program.inputs}
        print(f"== {directory} on {program.arch.name}: "
              f"{program.num_instructions} instructions")
        r = time_runs(program, inputs, args.repeat)[True]
        print(f"  simulated {r.cycles} cycles = {r.seconds * 1e6:.1f} us; MAC "
              f"utilization {100 * r.mac_utilization:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
