/* Tessel's emulator, part 2 of 3: one row of the instruction table,
   executed by threads tid of nt (exec_row). Follows numerics.cuh. */

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
