/* Tessel's emulator, part 3 of 3: the persistent kernel in which each group
   of thread blocks runs tiles (CUDA), or host_run_rows, which executes a
   table in a given order on one thread (host C++, for the tests). Follows
   rows.cuh. */

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
