"""The cycle-approximate simulator: executes a :class:`~.program.Program`
for its outputs (bit-exact to docs/isa.md) and its time (the model of
docs/simulator.md).

It is event-driven: a priority queue holds the moments something changes (a
tile resumes, a transfer starts or completes, a flow's bandwidth share changes,
a signal arrives). A tile runs its compute instructions back to back without
touching the queue; only the control instructions (``dma``,
``dma_multicast``, ``dma_gather``, ``dma_wait_semaphore``, ``wait``,
``signal`` and ``wait_semaphore``), which interact with other tiles, are taken
in global time order.

    result = simulate(program, {"x": x})
    result.outputs["y"], result.cycles, result.summary()
    result.save_trace("trace.json")        # with simulate(..., trace=True)
"""

from __future__ import annotations

import heapq
import math
from operator import itemgetter
from typing import Any, Callable, Mapping

import numpy as np

from . import energy, isa, numerics
from .disasm import format_instruction
from .execution import compute_thunk, memory_view
from .inputs import check_inputs
from .program import Program
from .results import (STALL_CAUSES, DeadlockError, SimulationError, SimulationResult,
                      TagStats, TileStats)
from .timing import (ISSUE_CYCLES, dram_channel_for, element_count, matmul_phases,
                     matmul_run_cycles, matmul_run_edges, matmul_run_joined,
                     vector_timing, xy_route)

# Instruction kinds of the pre-decoded streams (a dma_multicast is a _DMA:
# one transfer, with several destinations; a dma_wait_semaphore a _GATE).
_COMPUTE, _DMA, _WAIT, _SIGNAL, _WAITSEM, _GATE = range(6)
# Event kinds.
_EV_TILE, _EV_START, _EV_FLOW, _EV_DONE, _EV_SIGNAL = range(5)

# ---------------------------------------------------------------------------
# The machine.
# ---------------------------------------------------------------------------

class _Xfer:
    """One transfer (a dma or a dma_multicast), from issue to completion."""

    __slots__ = ("tile", "token", "channel", "resources", "shares_of",
                 "latency", "kind", "dst_tiles", "copy", "rem", "rate", "t0",
                 "finish_seq", "signals", "tag", "issued", "started", "data_end",
                 "links", "dram_channel", "pc")


class _Gate:
    """A dma_wait_semaphore in its channel's queue: the transfers queued
    after it start once it has taken its count from the semaphore. It
    names no destination, so no signal waits for it."""

    __slots__ = ("channel", "sem", "count", "served", "dst_tiles", "pc")


class _Tile:
    __slots__ = ("index", "row", "col", "kinds", "args", "cum", "cum_mac",
                 "cum_vec", "next_ctrl", "thunks", "n", "pc", "tokens",
                 "sems", "blocked", "block_t", "finished", "done_at",
                 "stalls", "ctrl_cycles", "runs", "instrs", "stall_log",
                 "channels", "queues", "to_dst", "claims", "static", "copies",
                 "run_tail", "joined", "joined_by_tag")


class _StaticTile:
    """What a tile's stream means for timing, computed once per program:
    kinds, arguments, prefix sums of compute cycles, next control
    instruction, per-instruction statistics."""

    __slots__ = ("instrs", "n", "kinds", "args", "cum", "cum_mac", "cum_vec",
                 "next_ctrl", "tags", "macs", "mac_peak", "sram_bytes", "mac_fj",
                 "whole_stream", "run_heads", "run_tails")

    def totals(self, done: int) -> tuple[dict, int, float, int]:
        """Of the first ``done`` instructions: per tag ``[instructions, busy
        cycles, MACs, DRAM bytes, NoC bytes, MAC fJ, SRAM bytes, NoC link
        bytes]`` (tags in order of first appearance; the last four are what
        energy.dynamic_fj charges), MACs, MAC peak cycles and compute SRAM
        bytes. A tile that finished ran its whole stream: those figures are
        kept."""
        if done == self.n and self.whole_stream is not None:
            return self.whole_stream
        cum, tags_of, macs_of = self.cum, self.tags, self.macs
        args, kinds = self.args, self.kinds
        mac_fj, sram_of = self.mac_fj, self.sram_bytes
        per_tag: dict = {}
        for j in range(done):
            tag = tags_of[j]
            acc = per_tag.get(tag)
            if acc is None:
                acc = per_tag[tag] = [0, 0, 0, 0, 0, 0, 0, 0]
            acc[0] += 1
            acc[1] += (cum[j + 1] - cum[j]) or ISSUE_CYCLES
            acc[2] += macs_of[j]
            acc[5] += mac_fj[j]
            acc[6] += sram_of[j]
            if kinds[j] == _DMA:
                arg = args[j]
                nbytes, links = arg[2], arg[8]
                if arg[5] == "dram":
                    acc[3] += nbytes
                if links:
                    acc[4] += nbytes
                    acc[7] += nbytes * len(links)
                acc[6] += nbytes * arg[11][2]
        got = (per_tag, sum(macs_of[:done]), sum(self.mac_peak[:done]),
               sum(sram_of[:done]))
        if done == self.n:
            self.whole_stream = got
        return got


class _Static:
    def __init__(self, program: Program):
        self.a = program.arch
        self.cap: list[float] = []
        self.res_names: list = []
        self.res_id: dict = {}
        self.index = {(t.row, t.col): i for i, t in enumerate(program.tiles)}
        self._mm_cache: dict = {}
        self._routes: dict = {}
        decoded = program.decoded()
        self.tiles = {rc: self._tile(rc, decoded[rc]) for rc in self.index}

    def _res(self, key, capacity) -> int:
        rid = self.res_id.get(key)
        if rid is None:
            rid = self.res_id[key] = len(self.cap)
            self.cap.append(float(capacity))
            self.res_names.append(key)
        return rid

    def _tile(self, rc, instrs) -> _StaticTile:
        a = self.a
        st = _StaticTile()
        st.instrs = instrs
        st.whole_stream = None
        n = st.n = len(instrs)
        kinds, args = [0] * n, [None] * n
        cum, cum_mac, cum_vec = [0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
        st.tags = [ins.tag for ins in instrs]
        st.macs, st.mac_peak, st.sram_bytes = [0] * n, [0.0] * n, [0] * n
        st.mac_fj = [0] * n
        mm_cache = self._mm_cache
        # Double-buffered weights let a run go on across control
        # instructions that do not stall (docs/simulator.md).
        joins = a.tile.mac.weight_buffers > 1
        st.run_heads, st.run_tails = {}, {}
        run: list[tuple[int, int, int]] = []  # the matmuls since the last other instruction
        for j, ins in enumerate(instrs):
            op = ins.op
            c = mc = vc = 0
            if op in _TRANSFERS:
                kinds[j] = _DMA
                args[j] = _TRANSFERS[op](self, rc, ins)
            elif op == "wait":
                kinds[j] = _WAIT
                args[j] = ins["tokens"]
            elif op == "signal":
                kinds[j] = _SIGNAL
                target = (ins["row"], ins["col"])
                hops = abs(target[0] - rc[0]) + abs(target[1] - rc[1])
                args[j] = (self.index[target], ins["semaphore"], ins["count"],
                           hops * a.noc.hop_cycles)
            elif op == "wait_semaphore":
                kinds[j] = _WAITSEM
                args[j] = (ins["semaphore"], ins["count"])
            elif op == "dma_wait_semaphore":
                kinds[j] = _GATE
                args[j] = (ins["channel"], ins["semaphore"], ins["count"])
            else:
                kinds[j] = _COMPUTE
                f = ins.fields
                if op in isa.MATMUL_OPS:
                    key = (f["dtype"], f["g"] * f["m"], f["k"], f["n"])
                    got = mm_cache.get(key)
                    if got is None:
                        fill, drain, stream, sram = matmul_phases(a, *key)
                        macs = key[1] * key[2] * key[3]
                        got = mm_cache[key] = (
                            (fill, drain, stream), sram, macs,
                            macs / a.tile.mac.macs_per_cycle[key[0]],
                            energy.mac_fj(a, key[0], macs))
                    (phases, st.sram_bytes[j], st.macs[j], st.mac_peak[j],
                     st.mac_fj[j]) = got
                    run.append(phases)
                    if j + 1 < n and instrs[j + 1].op in isa.MATMUL_OPS:
                        continue
                    # The run of back-to-back matmuls ends here: charge it.
                    first = j + 1 - len(run)
                    for i, c in enumerate(matmul_run_cycles(a, run), first):
                        cum[i + 1] = cum[i] + c
                        cum_mac[i + 1] = cum_mac[i] + c
                        cum_vec[i + 1] = cum_vec[i]
                    if joins:
                        # Its edges, for joining the runs before and after
                        # it across control instructions (_run_tile).
                        head, tail = matmul_run_edges(run)
                        if first == 0 or kinds[first - 1] != _COMPUTE:
                            st.run_heads[first] = head
                        st.run_tails[j + 1] = tail
                    run = []
                    continue
                else:
                    c, st.sram_bytes[j] = vector_timing(a, ins)
                    vc = c
            cum[j + 1] = cum[j] + c
            cum_mac[j + 1] = cum_mac[j] + mc
            cum_vec[j + 1] = cum_vec[j] + vc
        next_ctrl = [n] * (n + 1)
        for j in range(n - 1, -1, -1):
            next_ctrl[j] = j if kinds[j] != _COMPUTE else next_ctrl[j + 1]
        st.kinds, st.args, st.cum = kinds, args, cum
        st.cum_mac, st.cum_vec, st.next_ctrl = cum_mac, cum_vec, next_ctrl
        return st

    def _dma(self, rc, ins):
        """Static part of a transfer: size, token and tag, and its route."""
        return self._transfer(rc, ins, ins["src"], ins["dst"])

    def _gather(self, rc, ins):
        """Static part of a gather: timed as a dma of the gathered bytes from
        DRAM into the issuing tile's SRAM (docs/simulator.md)."""
        return self._transfer(rc, ins, isa.Endpoint("dram", 0, 0, ins["table"]),
                              isa.Endpoint("sram", rc[0], rc[1], ins["dst"]))

    def _transfer(self, rc, ins, src, dst):
        """:meth:`_dma` of a transfer from ``src`` to ``dst``."""
        f = ins.fields
        nbytes = element_count(f["sizes"]) * isa.DTYPE_SIZE[f["dtype"]]
        ch = f["channel"]
        key = (rc, ch, src.kind, src.row, src.col, dst.kind, dst.row, dst.col)
        route = self._routes.get(key)
        if route is None:
            route = self._routes[key] = self._route(rc, ch, src, dst)
        (res, latency, kind, dst_tiles, shares_of, links, dram_ch, sides) = route
        return (ch, f["token"], nbytes, res, latency, kind, dst_tiles, shares_of,
                links, dram_ch, ins.tag, sides)

    def _multicast(self, rc, ins):
        """Static part of a multicast, as :meth:`_dma` gives it for a dma."""
        f = ins.fields
        src = f["src"]
        targets = tuple((d.row, d.col) for d in f["dsts"])
        nbytes = element_count(f["sizes"]) * isa.DTYPE_SIZE[f["dtype"]]
        ch = f["channel"]
        # The source is DRAM or the issuing tile: its kind decides the rest.
        key = (rc, ch, src.kind, targets)
        route = self._routes.get(key)
        if route is None:
            route = self._routes[key] = self._tree(rc, ch, src.kind == "dram", targets)
        (res, latency, kind, dst_tiles, shares_of, links, dram_ch, sides) = route
        return (ch, f["token"], nbytes, res, latency, kind, dst_tiles, shares_of,
                links, dram_ch, ins.tag, sides)

    def _route(self, rc, ch, src, dst):
        """What a transfer's timing needs besides its size: resources,
        latency, kind, destination tiles, route, and which sides are DRAM
        and how many SRAM (for the byte counts). A program's thousands of
        transfers take a few dozen routes."""
        a = self.a
        res = [self._res(("dma", rc, ch), a.tile.dma.bytes_per_cycle)]
        latency = 0
        dram_ch = None
        if src.kind == "dram" or dst.kind == "dram":
            kind = "dram"
            dram_ch = dram_channel_for(a, rc[0], rc[1], ch)
            port = a.dram.attach[dram_ch]
            links = xy_route(port, rc) if src.kind == "dram" else xy_route(rc, port)
            res.append(self._res(("dram", dram_ch), a.dram.bytes_per_cycle))
            latency += a.dram.latency_cycles
        else:
            s_, d_ = (src.row, src.col), (dst.row, dst.col)
            links = xy_route(s_, d_)
            kind = "dma" if s_ == d_ else "noc"
        for ep in (src, dst):
            if ep.kind == "sram":
                rid = self._res(("sram", (ep.row, ep.col)), a.tile.sram.bytes_per_cycle)
                if rid not in res:
                    res.append(rid)
        for link in links:
            res.append(self._res(("link",) + link, a.noc.link_bytes_per_cycle))
        latency += len(links) * a.noc.hop_cycles
        dst_tiles = ((dst.row, dst.col),) if dst.kind == "sram" else ()
        # A transfer has at least two resources (its channel and an SRAM
        # port), so the itemgetter gives a tuple.
        return (tuple(res), latency, kind, dst_tiles, itemgetter(*res), tuple(links),
                dram_ch, (src.kind == "dram", dst.kind == "dram",
                          (src.kind == "sram") + (dst.kind == "sram")))

    def _tree(self, rc, ch, from_dram: bool, targets):
        """:meth:`_route` of a multicast: one flow through the issuing tile's
        channel, the source side (the DRAM channel a dma of the tile would
        use, or the tile's SRAM port), each destination's SRAM port and each
        link of the tree. The issuing tile's router replicates the data: the
        tree is the XY route from the DRAM channel to the issuing tile (for a
        DRAM source), then the union of the XY routes from the issuing tile
        to the destinations (in their order, each link once: the data
        crosses it once). The latency is the longest path's."""
        a = self.a
        res = [self._res(("dma", rc, ch), a.tile.dma.bytes_per_cycle)]
        latency = 0
        dram_ch = None
        if from_dram:
            dram_ch = dram_channel_for(a, rc[0], rc[1], ch)
            point = a.dram.attach[dram_ch]
            res.append(self._res(("dram", dram_ch), a.dram.bytes_per_cycle))
            latency += a.dram.latency_cycles
        else:
            point = rc
            res.append(self._res(("sram", rc), a.tile.sram.bytes_per_cycle))
        for t in targets:
            rid = self._res(("sram", t), a.tile.sram.bytes_per_cycle)
            if rid not in res:
                res.append(rid)
        links = xy_route(point, rc)
        seen = set(links)
        longest = 0
        for t in targets:
            route = xy_route(rc, t)
            longest = max(longest, len(route))
            for link in route:
                if link not in seen:
                    seen.add(link)
                    links.append(link)
        hops = len(xy_route(point, rc)) + longest
        for link in links:
            res.append(self._res(("link",) + link, a.noc.link_bytes_per_cycle))
        latency += hops * a.noc.hop_cycles
        kind = "dram" if from_dram else "noc" if links else "dma"
        return (tuple(res), latency, kind, targets, itemgetter(*res), tuple(links),
                dram_ch, (from_dram, False, len(targets) + (not from_dram)))


_TRANSFERS = {"dma": _Static._dma, "dma_multicast": _Static._multicast,
              "dma_gather": _Static._gather}


def _static_of(program: Program) -> _Static:
    """The program's static timing data, computed on first use and kept with
    the program (a program is not modified after it is built or loaded)."""
    st = getattr(program, "_sim_static", None)
    if st is None:
        st = _Static(program)
        program._sim_static = st
    return st


class _Simulator:
    def __init__(self, program: Program, inputs: Mapping[str, Any], numerics_on: bool,
                 trace: bool):
        self.p = program
        self.a = a = program.arch
        self.numerics = numerics_on
        inputs = check_inputs(program, inputs, required=numerics_on)
        self.trace = trace
        self.tile_list = [(t.row, t.col) for t in program.tiles]
        self.index = {rc: i for i, rc in enumerate(self.tile_list)}
        # Memories.
        self.dram = None
        self.srams: dict[tuple[int, int], np.ndarray] = {}
        if numerics_on:
            size = -(-max(program.dram_bytes, 1) // 8) * 8
            self.dram = np.zeros(size, np.uint8)
            img = np.frombuffer(program.dram_image, np.uint8)
            self.dram[:img.size] = img
            for name, raw in inputs.items():
                buf = program.buffer(name)
                self.dram[buf.offset:buf.offset + buf.nbytes] = \
                    np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
        static = _static_of(program)
        # Resources for bandwidth sharing: capacity, flows using each.
        self.cap = static.cap
        self.users: list[list] = [[] for _ in static.cap]
        # The fair share of each resource: capacity / flows using it.
        self.share: list[float] = list(static.cap)
        self.res_names = static.res_names
        self.dram_bytes_read = self.dram_bytes_written = 0
        self.noc_bytes = self.noc_link_bytes = self.sram_dma_bytes = 0
        self.tiles = [self._make_tile(i, rc, static.tiles[rc]) for i, rc in
                      enumerate(self.tile_list)]
        self.setup_cycles = a.tile.dma.setup_cycles
        self.heap: list = []
        self.seq = 0
        self.now = 0.0
        self.events = 0
        self.trace_log: list = [] if trace else None
        self.link_busy: dict = {}

    # ---- preparation -------------------------------------------------------

    def _mem(self, rc) -> np.ndarray:
        m = self.srams.get(rc)
        if m is None:
            m = self.srams[rc] = np.zeros(self.a.tile.sram.bytes, np.uint8)
        return m

    def _make_tile(self, i: int, rc, st: "_StaticTile") -> _Tile:
        a = self.a
        t = _Tile()
        t.index, (t.row, t.col) = i, rc
        t.instrs = st.instrs
        t.n = st.n
        t.kinds, t.args, t.cum = st.kinds, st.args, st.cum
        t.cum_mac, t.cum_vec, t.next_ctrl = st.cum_mac, st.cum_vec, st.next_ctrl
        t.static = st
        t.thunks = t.copies = None
        if self.numerics:
            mem = self._mem(rc)
            t.thunks = [None] * st.n
            t.copies = [None] * st.n
            for j, ins in enumerate(st.instrs):
                if st.kinds[j] == _COMPUTE:
                    t.thunks[j] = compute_thunk(ins, mem)
                elif st.kinds[j] == _DMA:
                    t.copies[j] = self._transfer_thunk(rc, ins, mem)
        tinfo = self.p.tile(*rc)
        t.pc = 0
        t.tokens = [None] * tinfo.tokens
        t.sems = list(tinfo.semaphores)
        t.blocked = None
        t.block_t = 0.0
        t.finished = st.n == 0
        t.done_at = 0.0
        t.stalls = dict.fromkeys(STALL_CAUSES, 0.0)
        t.ctrl_cycles = 0
        t.run_tail = None
        t.joined = 0
        t.joined_by_tag = {}
        t.runs = [] if self.trace else None
        t.stall_log = []
        t.channels = [None] * a.tile.dma.channels
        t.queues = [[] for _ in range(a.tile.dma.channels)]
        t.to_dst = {}
        t.claims = {}
        return t

    def _transfer_thunk(self, rc, ins, mem: np.ndarray) -> Callable[[], None]:
        """A closure moving the data of one dma, dma_multicast or dma_gather
        (run when the transfer completes)."""
        f = ins.fields
        sizes, dtype = f["sizes"], f["dtype"]
        if ins.op == "dma_gather":
            item = isa.DTYPE_SIZE[dtype]
            table, index_stride, rows = f["table"], f["index_stride"], f["rows"]
            wrap = bool(f["wrap"])
            index = memory_view(mem, f["index"], sizes, f["index_dtype"])
            dst = np.ndarray(tuple(sizes), numerics.BITS[item], buffer=mem,
                             offset=f["dst"].base,
                             strides=tuple(s * item for s in f["dst"].strides))
            dram = self.dram

            def gather() -> None:
                try:
                    got = numerics.gather(dram, item, table.base, table.strides,
                                          index_stride, rows, wrap, index)
                except numerics.IndexOutOfRange as e:
                    raise SimulationError(
                        f"tile {rc} offset {ins.offset} at cycle {self.now:g}: "
                        f"dma_gather: {e}: {format_instruction(ins)}{self.p.source_of(ins.tag)}",
                        self._result()) from None
                np.copyto(dst, got)
            return gather
        src = f["src"]
        source = memory_view(self._endpoint_mem(src), src.view, sizes, dtype)
        dsts = (f["dst"],) if ins.op == "dma" else f["dsts"]
        # A multicast's destinations never overlap its source, so one copy
        # each is the copy.
        pairs = tuple((source, memory_view(self._endpoint_mem(d), d.view, sizes, dtype))
                      for d in dsts)

        def copy() -> None:
            for source, dest in pairs:
                np.copyto(dest, source)
        return copy

    def _endpoint_mem(self, ep) -> np.ndarray:
        return self.dram if ep.kind == "dram" else self._mem((ep.row, ep.col))

    # ---- the event loop ----------------------------------------------------

    def push(self, t: float, kind: int, data) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, data))

    def run(self) -> SimulationResult:
        for tile in self.tiles:
            if not tile.finished:
                self.push(0.0, _EV_TILE, tile)
        heap = self.heap
        pop = heapq.heappop
        run_tile, flow_finished = self._run_tile, self._flow_finished
        flow_start, xfer_done = self._flow_start, self._xfer_done
        while heap:
            t, seq, kind, data = pop(heap)
            if kind == _EV_FLOW:
                # A flow's finish event is live only while no later rate
                # change has scheduled another one.
                if seq != data.finish_seq:
                    continue
                self.now = t
                self.events += 1
                flow_finished(data, t)
                continue
            self.now = t
            self.events += 1
            if kind == _EV_TILE:
                run_tile(data, t)
            elif kind == _EV_START:
                flow_start(data, t)
            elif kind == _EV_DONE:
                xfer_done(data, t)
            else:
                self._signal_arrives(data, t)
        unfinished = [tl for tl in self.tiles if not tl.finished]
        gates = [(tl, g) for tl in self.tiles for g in tl.channels
                 if type(g) is _Gate]
        if unfinished or gates:
            raise self._deadlock(unfinished, gates)
        return self._result()

    def _run_tile(self, tile: _Tile, t: float) -> None:
        kinds, heap = tile.kinds, self.heap
        n = tile.n
        pc = tile.pc
        while True:
            if pc >= n:
                tile.pc = pc
                tile.finished = True
                tile.done_at = t
                return
            kind = kinds[pc]
            if kind == _COMPUTE:
                j = tile.next_ctrl[pc]
                if self.numerics:
                    thunks = tile.thunks
                    for k in range(pc, j):
                        thunks[k]()
                st = tile.static
                saved = 0
                if tile.run_tail is not None:
                    head = st.run_heads.get(pc)
                    if head is not None:
                        # The array did not empty since the tile's last
                        # run: this one goes on from it.
                        saved = matmul_run_joined(tile.run_tail, head)
                        tile.joined += saved
                        tag = tile.instrs[pc].tag
                        tile.joined_by_tag[tag] = tile.joined_by_tag.get(tag, 0) + saved
                tile.run_tail = st.run_tails.get(j)
                if tile.runs is not None:
                    tile.runs.append((pc, j, t - saved))
                t += tile.cum[j] - tile.cum[pc] - saved
                pc = j
                continue
            if heap and heap[0][0] < t:
                tile.pc = pc
                self.push(t, _EV_TILE, tile)
                return
            self.now = t
            tile.ctrl_cycles += ISSUE_CYCLES
            if tile.runs is not None:
                tile.runs.append((pc, pc + 1, t))
            if kind == _DMA:
                self._issue_dma(tile, pc, t)
                t += ISSUE_CYCLES
                pc += 1
            elif kind == _WAIT:
                toks = tile.tokens
                # A slot holds None or its pending transfer (always true).
                if not any(map(toks.__getitem__, tile.args[pc])):
                    t += ISSUE_CYCLES
                    pc += 1
                else:
                    tile.pc = pc
                    tile.blocked = _WAIT
                    tile.block_t = t
                    return
            elif kind == _SIGNAL:
                self._issue_signal(tile, pc, t)
                t += ISSUE_CYCLES
                pc += 1
            elif kind == _GATE:
                self._issue_gate(tile, pc, t)
                t += ISSUE_CYCLES
                pc += 1
            else:
                sem, count = tile.args[pc]
                if tile.sems[sem] >= count and not tile.claims.get(sem):
                    tile.sems[sem] -= count
                    t += ISSUE_CYCLES
                    pc += 1
                else:
                    tile.pc = pc
                    tile.blocked = _WAITSEM
                    tile.block_t = t
                    return

    def _resume(self, tile: _Tile, t: float, cause: str) -> None:
        """Wake a blocked tile at ``t``: it goes on after its wait instruction."""
        start = tile.block_t + ISSUE_CYCLES
        resume = t if t > start else start
        stall = resume - start
        if stall > 0:
            tile.run_tail = None        # the array emptied while it waited
            tile.stalls[cause] += stall
            tile.stall_log.append((tile.pc, start, resume, cause))
        tile.blocked = None
        tile.pc += 1
        heap = self.heap
        if heap and heap[0][0] <= resume:
            self.push(resume, _EV_TILE, tile)
            return
        # Nothing else can happen first: the tile event would be the next
        # one popped, so run it now (counted as the event it would be).
        self.now = resume
        self.events += 1
        self._run_tile(tile, resume)

    # ---- transfers ----------------------------------------------------------

    def _issue_dma(self, tile: _Tile, pc: int, t: float) -> None:
        (ch, token, nbytes, res, latency, kind, dst_tiles, shares_of, links, dram_ch,
         tag, sides) = tile.args[pc]
        copy = tile.copies[pc] if tile.copies is not None else None
        if tile.tokens[token] is not None:
            ins = tile.instrs[pc]
            raise SimulationError(
                f"tile ({tile.row}, {tile.col}) offset {ins.offset} at cycle {t:g}: "
                f"{ins.op} on token slot {token}, which is still pending (a wait on it "
                f"must come first): {format_instruction(ins)}", self._result())
        x = _Xfer()
        x.tile, x.token, x.channel = tile, token, ch
        x.resources, x.latency, x.kind, x.dst_tiles = res, latency, kind, dst_tiles
        x.shares_of = shares_of
        x.copy, x.links, x.dram_channel, x.tag, x.pc = copy, links, dram_ch, tag, pc
        x.rem, x.rate, x.t0, x.finish_seq = float(nbytes), 0.0, t, 0
        x.signals = []
        x.issued = t
        tile.tokens[token] = x
        to_dst = tile.to_dst
        for d in dst_tiles:
            to_dst[d] = to_dst.get(d, 0) + 1
        if sides[0]:
            self.dram_bytes_read += nbytes
        if sides[1]:
            self.dram_bytes_written += nbytes
        if links:
            self.noc_bytes += nbytes
            self.noc_link_bytes += nbytes * len(links)
        self.sram_dma_bytes += nbytes * sides[2]
        if tile.channels[ch] is None:
            tile.channels[ch] = x
            self.seq += 1
            heapq.heappush(self.heap, (t + self.setup_cycles, self.seq, _EV_START, x))
        else:
            tile.queues[ch].append(x)

    def _flow_start(self, x: _Xfer, t: float) -> None:
        x.started = t
        x.t0 = t
        users, share, cap = self.users, self.share, self.cap
        for r in x.resources:
            u = users[r]
            u.append(x)
            share[r] = cap[r] / len(u)
        self._reshare(x, t)

    def _flow_finished(self, x: _Xfer, t: float) -> None:
        x.data_end = t
        users, share, cap = self.users, self.share, self.cap
        for r in x.resources:
            u = users[r]
            u.remove(x)
            share[r] = cap[r] / len(u) if u else cap[r]
        if self.trace:
            for link in x.links:
                self.link_busy.setdefault(link, []).append((x.started, t))
            if x.dram_channel is not None:
                self.link_busy.setdefault(("dram", x.dram_channel), []).append(
                    (x.started, t))
        self._reshare(x, t)
        self.seq += 1
        heapq.heappush(self.heap, (t + x.latency, self.seq, _EV_DONE, x))

    def _reshare(self, changed: _Xfer, t: float) -> None:
        """Fair shares after ``changed`` started or finished: every flow gets
        ``min over its resources of capacity / flows using it``. Only flows
        that share a resource with ``changed`` can see their rate change; those
        whose rate changes get a new finish event, which supersedes the one
        they had (its sequence number is no longer the flow's)."""
        users, share, heap = self.users, self.share, self.heap
        push = heapq.heappush
        seq = self.seq
        seen = set()
        for r in changed.resources:
            for x in users[r]:
                if x in seen:
                    continue
                seen.add(x)
                # share[q] is cap[q] / len(users[q]), kept up to date by
                # _flow_start and _flow_finished.
                rate = min(x.shares_of(share))
                old = x.rate
                if rate != old:
                    if old:
                        x.rem -= old * (t - x.t0)
                    x.t0 = t
                    x.rate = rate
                    rem = x.rem
                    seq += 1
                    x.finish_seq = seq
                    push(heap, (t + (rem if rem > 0 else 0.0) / rate, seq, _EV_FLOW, x))
        self.seq = seq

    def _xfer_done(self, x: _Xfer, t: float) -> None:
        tile = x.tile
        if x.copy is not None:
            x.copy()
        if self.trace:
            self.trace_log.append(("dma", tile.row, tile.col, x.channel, x.issued,
                                   x.started, x.data_end, t, x.pc, x.tag, x.kind))
        tile.tokens[x.token] = None
        self._advance(tile, x.channel, t)
        for d in x.dst_tiles:
            tile.to_dst[d] -= 1
        for sig in x.signals:
            sig[0] -= 1
            if sig[0] == 0:
                self._send_signal(sig, t)
        if tile.blocked == _WAIT:
            toks = tile.tokens
            if not any(map(toks.__getitem__, tile.args[tile.pc])):
                self._resume(tile, t, x.kind)

    def _advance(self, tile: _Tile, ch: int, t: float) -> None:
        """The head of channel ``ch`` is done at ``t``: start the next
        transfer queued, past the gates already served."""
        queue = tile.queues[ch]
        while queue:
            nxt = queue.pop(0)
            tile.channels[ch] = nxt
            if type(nxt) is _Gate:
                if nxt.served:
                    continue
                return
            self.push(t + self.setup_cycles, _EV_START, nxt)
            return
        tile.channels[ch] = None

    def _issue_gate(self, tile: _Tile, pc: int, t: float) -> None:
        """A dma_wait_semaphore: its claim joins the semaphore's, in issue
        order, and the gate its channel's queue."""
        g = _Gate()
        g.channel, g.sem, g.count = tile.args[pc]
        g.served, g.dst_tiles, g.pc = False, (), pc
        tile.claims.setdefault(g.sem, []).append(g)
        ch = g.channel
        if tile.channels[ch] is None:
            tile.channels[ch] = g
        else:
            tile.queues[ch].append(g)
        self._serve(tile, g.sem, t)

    def _serve(self, tile: _Tile, sem: int, t: float) -> None:
        """Give semaphore ``sem``'s count to its claims in issue order: the
        DMA channels' gates on it, then the core's wait (issued after them,
        since the core waits in order)."""
        q = tile.claims.get(sem)
        sems = tile.sems
        while q and sems[sem] >= q[0].count:
            g = q.pop(0)
            sems[sem] -= g.count
            g.served = True
            if tile.channels[g.channel] is g:
                self._advance(tile, g.channel, t)
        if q:
            return
        if tile.blocked == _WAITSEM:
            want_sem, want = tile.args[tile.pc]
            if want_sem == sem and sems[sem] >= want:
                sems[sem] -= want
                self._resume(tile, t, "tile")

    # ---- signals -----------------------------------------------------------

    def _issue_signal(self, tile: _Tile, pc: int, t: float) -> None:
        target, sem, count, delay = tile.args[pc]
        dst = self.tile_list[target]
        # [pending transfers, earliest send, target, sem, count, delay]
        sig = [0, t + ISSUE_CYCLES, target, sem, count, delay]
        if tile.to_dst.get(dst):
            for x in self._pending_to(tile, dst):
                x.signals.append(sig)
                sig[0] += 1
        if sig[0] == 0:
            self._send_signal(sig, t)

    def _pending_to(self, tile: _Tile, dst) -> list[_Xfer]:
        out = []
        for x in tile.channels:
            if x is not None and dst in x.dst_tiles:
                out.append(x)
        for q in tile.queues:
            out.extend(x for x in q if dst in x.dst_tiles)
        return out

    def _send_signal(self, sig, t: float) -> None:
        start = sig[1] if sig[1] > t else t
        self.push(start + sig[5], _EV_SIGNAL, (sig[2], sig[3], sig[4]))

    def _signal_arrives(self, data, t: float) -> None:
        target, sem, count = data
        tile = self.tiles[target]
        tile.sems[sem] += count
        self._serve(tile, sem, t)

    # ---- deadlock ------------------------------------------------------------

    def _producers(self) -> dict[tuple, list]:
        """``(row, col, semaphore) -> [(tile, signal instruction)]``: every
        static signal of the program, for a deadlock report (a scan of the
        whole program, so only made then)."""
        producers: dict[tuple, list] = {}
        for rc, instrs in self.p.decoded().items():
            for ins in instrs:
                if ins.op == "signal":
                    key = (ins["row"], ins["col"], ins["semaphore"])
                    producers.setdefault(key, []).append((rc, ins))
        return producers

    def _deadlock(self, unfinished: list[_Tile],
                  gates: list[tuple[_Tile, _Gate]]) -> DeadlockError:
        producers = self._producers()
        lines = [f"deadlock at cycle {self.now:g}: no tile can progress and "
                 "nothing is in flight"]
        waiting = []

        def on_semaphore(tile: _Tile, pc: int, who: str, entry: dict) -> None:
            ins = tile.instrs[pc]
            sem, count = ins["semaphore"], ins["count"]
            have = tile.sems[sem]
            prods = producers.get((tile.row, tile.col, sem), [])
            entry.update(semaphore=sem, count=have, needs=count,
                         producers=[rc for rc, _ in prods])
            lines.append(f"  {who} at offset {ins.offset} (instruction {pc}): "
                         f"{format_instruction(ins)}")
            ahead = [g for g in tile.claims.get(sem, ()) if g.pc < pc]
            if ahead:
                lines.append(f"    waits behind the DMA's claim at offset "
                             f"{tile.instrs[ahead[0].pc].offset} on semaphore {sem}")
            else:
                lines.append(f"    waits for semaphore {sem} to hold {count}; it "
                             f"holds {have}")
            if not prods:
                lines.append("    no instruction of the program signals it")
            for rc, p in prods:
                other = self.tiles[self.index[rc]]
                if other.finished:
                    state = "has finished"
                else:
                    o = other.instrs[other.pc]
                    state = (f"is blocked at offset {o.offset}: "
                             f"{format_instruction(o)}")
                lines.append(f"    signalled by tile {rc} at offset {p.offset} "
                             f"(+{p['count']}), which {state}")

        for tile, gate in gates:
            ins = tile.instrs[gate.pc]
            entry = {"tile": (tile.row, tile.col), "offset": ins.offset,
                     "instruction": format_instruction(ins), "channel": gate.channel}
            on_semaphore(tile, gate.pc,
                         f"DMA channel {gate.channel} of tile ({tile.row}, {tile.col})",
                         entry)
            waiting.append(entry)
        for tile in unfinished:
            ins = tile.instrs[tile.pc]
            where = (f"tile ({tile.row}, {tile.col}) at offset {ins.offset} "
                     f"(instruction {tile.pc}): {format_instruction(ins)}")
            entry = {"tile": (tile.row, tile.col), "offset": ins.offset,
                     "instruction": format_instruction(ins)}
            if tile.blocked == _WAITSEM:
                on_semaphore(tile, tile.pc, f"tile ({tile.row}, {tile.col})", entry)
            else:
                toks = [k for k in tile.args[tile.pc] if tile.tokens[k] is not None]
                entry.update(tokens=toks)
                lines.append(f"  {where}")
                lines.append(f"    waits for token slots {toks}")
            waiting.append(entry)
        return DeadlockError("\n".join(lines), waiting, self._result())

    # ---- results -----------------------------------------------------------

    def _result(self) -> SimulationResult:
        a, p = self.a, self.p
        end = max([self.now] + [tl.done_at for tl in self.tiles])
        cycles = int(math.ceil(end - 1e-9)) if end > 0 else 0
        tag_names = {t.id: t.name for t in p.tags}
        tags: dict[str, TagStats] = {}

        def tag_stats(tag):
            name = tag_names.get(tag, f"#{tag}") if tag is not None else "(untagged)"
            s = tags.get(name)
            if s is None:
                s = tags[name] = TagStats(name)
            return s

        tiles: dict[tuple[int, int], TileStats] = {}
        total_instr = 0
        mac_peak = 0.0
        sram_compute = 0
        # Every tile of the grid draws its static power for the whole run,
        # those that run no code too (nothing is power-gated).
        static = energy.static_fj(a, cycles)
        run_fj = dict.fromkeys(energy.DYNAMIC_PARTS, 0)
        run_fj["static"] = static * a.num_tiles
        for tl in self.tiles:
            s = TileStats()
            done = tl.pc if not tl.finished else tl.n
            s.instructions = done
            total_instr += done
            s.mac = tl.cum_mac[done] - tl.joined
            s.vector = tl.cum_vec[done]
            s.control = tl.ctrl_cycles
            s.busy = s.mac + s.vector + s.control
            s.stalls = dict(tl.stalls)
            s.finished_at = tl.done_at if tl.finished else end
            s.idle = max(0.0, end - s.busy - sum(s.stalls.values()))
            per_tag, macs, mac_peak_cycles, sram_bytes = tl.static.totals(done)
            tile_fj = dict.fromkeys(energy.DYNAMIC_PARTS, 0)
            for tag, (count, busy, tag_macs, db, nb, mfj, sb, lb) in per_tag.items():
                ts = tag_stats(tag)
                ts.instructions += count
                ts.busy += busy - tl.joined_by_tag.get(tag, 0)
                ts.macs += tag_macs
                ts.dram_bytes += db
                ts.noc_bytes += nb
                tag_fj = energy.dynamic_fj(a, mfj, sb, lb, db)
                ts.energy += sum(tag_fj.values()) * energy.FJ
                for part, fj in tag_fj.items():
                    tile_fj[part] += fj
            for part, fj in tile_fj.items():
                run_fj[part] += fj
            s.energy = energy.joules({**tile_fj, "static": static})
            s.macs = macs
            s.mac_peak_cycles = mac_peak_cycles
            sram_compute += sram_bytes
            for pc, start, stop, cause in tl.stall_log:
                tag_stats(tl.instrs[pc].tag).stall += stop - start
            mac_peak += s.mac_peak_cycles
            tiles[(tl.row, tl.col)] = s
        if self.trace:
            self._tag_spans(tags, tag_stats)
        outputs = {}
        if self.numerics:
            for name in p.outputs:
                b = p.buffer(name)
                raw = self.dram[b.offset:b.offset + b.nbytes].view(
                    numerics.STORAGE[b.dtype]).reshape(b.shape)
                outputs[name] = numerics.from_storage(raw.copy(), b.dtype)
        util = mac_peak / (cycles * a.num_tiles) if cycles else 0.0
        return SimulationResult(
            outputs=outputs, cycles=cycles, seconds=cycles / a.clock_hz,
            end_time=end, instructions=total_instr, tiles=tiles, tags=tags,
            bytes={"dram": self.dram_bytes_read + self.dram_bytes_written,
                   "dram_read": self.dram_bytes_read,
                   "dram_write": self.dram_bytes_written,
                   "noc": self.noc_bytes, "noc_link": self.noc_link_bytes,
                   "sram": sram_compute + self.sram_dma_bytes},
            mac_utilization=util, events=self.events,
            trace_events=self._trace_events() if self.trace else None,
            energy=energy.joules(run_fj))

    @staticmethod
    def _executed(tl: _Tile):
        """``(instruction, start, duration)`` of every instruction the tile
        ran, in order (needs ``trace``: the runs are recorded then)."""
        cum, instrs = tl.cum, tl.instrs
        for pc, j, t0 in tl.runs:
            for k in range(pc, j):
                yield (instrs[k], t0 + cum[k] - cum[pc],
                       (cum[k + 1] - cum[k]) or ISSUE_CYCLES)

    def _tag_spans(self, tags, tag_stats) -> None:
        for tl in self.tiles:
            for ins, start, dur in self._executed(tl):
                ts = tag_stats(ins.tag)
                ts.first = min(ts.first, start)
                ts.last = max(ts.last, start + dur)

    def _trace_events(self) -> list[dict]:
        a = self.a
        us = 1.0 / a.clock_mhz            # one cycle in microseconds
        ev: list[dict] = []
        tag_names = {t.id: t.name for t in self.p.tags}
        engines = dict.fromkeys(isa.MATMUL_OPS, (1, "MAC array"))
        pid_of = {}
        for i, tl in enumerate(self.tiles):
            pid = i + 1
            pid_of[(tl.row, tl.col)] = pid
            ev.append({"ph": "M", "name": "process_name", "pid": pid,
                       "args": {"name": f"tile ({tl.row},{tl.col})"}})
            names = {0: "control", 1: "MAC array", 2: "vector unit"}
            names.update({10 + c: f"DMA ch{c}" for c in range(a.tile.dma.channels)})
            for tid, name in names.items():
                ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": name}})
            for ins, start, dur in self._executed(tl):
                tid = engines.get(ins.op, (2 if ins.op.startswith("vector") else 0,))[0]
                ev.append({"ph": "X", "pid": pid, "tid": tid, "ts": start * us,
                           "dur": dur * us, "name": ins.op,
                           "args": {"offset": ins.offset,
                                    "tag": tag_names.get(ins.tag),
                                    "instruction": format_instruction(ins)}})
            for pc, start, stop, cause in tl.stall_log:
                ev.append({"ph": "X", "pid": pid, "tid": 0, "ts": start * us,
                           "dur": (stop - start) * us, "name": f"stall ({cause})",
                           "args": {"offset": tl.instrs[pc].offset}})
        for (_, r, c, ch, issued, started, data_end, done, pc, tag, kind) in self.trace_log:
            ins = self.tiles[self.index[(r, c)]].instrs[pc]
            ev.append({"ph": "X", "pid": pid_of[(r, c)], "tid": 10 + ch,
                       "ts": started * us, "dur": (done - started) * us,
                       "name": f"dma ({kind})",
                       "args": {"offset": ins.offset, "tag": tag_names.get(tag),
                                "issued": issued, "data_end": data_end,
                                "instruction": format_instruction(ins)}})
        noc_pid = len(self.tiles) + 1
        ev.append({"ph": "M", "name": "process_name", "pid": noc_pid,
                   "args": {"name": "NoC links and DRAM channels"}})
        for tid, (link, spans) in enumerate(sorted(self.link_busy.items(),
                                                   key=lambda kv: str(kv[0]))):
            if link[0] == "dram":
                name = f"DRAM channel {link[1]}"
            else:
                (r1, c1), (r2, c2) = link
                name = f"link ({r1},{c1})->({r2},{c2})"
            ev.append({"ph": "M", "name": "thread_name", "pid": noc_pid, "tid": tid,
                       "args": {"name": name}})
            merged: list[list[float]] = []
            for s, e in sorted(spans):
                if merged and s <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], e)
                else:
                    merged.append([s, e])
            for s, e in merged:
                ev.append({"ph": "X", "pid": noc_pid, "tid": tid, "ts": s * us,
                           "dur": (e - s) * us, "name": "busy"})
        return ev


def simulate(program: Program, inputs: Mapping[str, Any] | None = None, *,
             numerics: bool = True, trace: bool = False) -> SimulationResult:
    """Run ``program`` to its end.

    ``inputs`` maps the name of every input buffer (``program.inputs``) to
    an array of its shape and dtype (float32 for f32, float16 for f16, int8,
    int32; bf16 takes float32, rounded to nearest even, or uint16 bits).
    Weights, outputs and scratch buffers are not inputs: naming one is an
    error, as is a missing input (see :func:`check_inputs`). With
    ``numerics=False`` only time is modelled (no arithmetic, no outputs);
    inputs may then be left out, and those given are still checked. With ``trace``
    the result can :meth:`~SimulationResult.save_trace`.

    Raises :class:`DeadlockError` when the program deadlocks and
    :class:`SimulationError` when it breaks a rule at run time; both carry the
    statistics so far in ``result``.
    """
    return _Simulator(program, inputs or {}, numerics, trace).run()
