"""Running the tiles of a table cooperatively, and the deadlock report.

A tile runs until it finishes or meets a ``wait_semaphore`` whose semaphore
holds less than it needs; then the next tile runs. A round in which no tile
moves is a deadlock. Whether a program deadlocks does not depend on its data
or on the order tiles run in (semaphores only grow between a tile's own
waits, so a wait that can pass in one order passes in every later one): this
one pass, without arithmetic, decides it for every executor.
"""

from __future__ import annotations

from typing import Callable

from ..disasm import format_instruction
from .errors import DeadlockError
from .table import COUNT, OP, OPCODES, SEM, Table

_SIGNAL = OPCODES["signal"]
_WAIT = OPCODES["wait"]
_WAIT_SEMAPHORE = OPCODES["wait_semaphore"]


def run_tiles(table: Table, execute: Callable[[int], None] | None = None) -> None:
    """Run every tile to its end; ``execute(i)`` performs row ``i`` (a
    ``dma`` or a compute instruction) and is called in each tile's order.
    Raises :class:`DeadlockError` when no tile can progress."""
    ops = table.rows[:, OP].tolist()
    sem = table.rows[:, SEM].tolist()
    count = table.rows[:, COUNT].tolist()
    sems = table.sem_init.tolist()
    pcs = table.first[:-1].tolist()
    ends = table.first[1:].tolist()
    pending = [t for t in range(table.num_tiles) if pcs[t] < ends[t]]
    while pending:
        blocked = []
        moved = False
        for t in pending:
            pc, end = pcs[t], ends[t]
            start = pc
            while pc < end:
                op = ops[pc]
                if op == _WAIT_SEMAPHORE:
                    s = sem[pc]
                    if sems[s] < count[pc]:
                        break
                    sems[s] -= count[pc]
                elif op == _SIGNAL:
                    sems[sem[pc]] += count[pc]
                elif op != _WAIT and execute is not None:
                    execute(pc)
                pc += 1
            pcs[t] = pc
            moved = moved or pc != start
            if pc < end:
                blocked.append(t)
        if not moved:
            raise deadlock_error(table, pcs, sems, blocked)
        pending = blocked


def deadlock_error(table: Table, pcs: list[int], sems: list[int],
                   blocked: list[int], *, headline: str | None = None) -> DeadlockError:
    """The report of tiles ``blocked`` at rows ``pcs[t]`` with semaphore
    counts ``sems``: what each waits for and the state of every tile that
    signals that semaphore."""
    rows, first = table.rows, table.first

    def at(t: int) -> str:
        i = pcs[t]
        ins = table.where[i]
        r, c = table.tiles[t]
        return (f"tile ({r}, {c}) at offset {ins.offset} (instruction "
                f"{table.index[i]}): {format_instruction(ins)}")

    lines = [headline or "deadlock: no tile can progress and nothing is in flight"]
    waiting = []
    for t in blocked:
        i = pcs[t]
        ins = table.where[i]
        entry = {"tile": table.tiles[t], "offset": ins.offset,
                 "instruction": format_instruction(ins)}
        lines.append(f"  {at(t)}")
        if rows[i, OP] == _WAIT_SEMAPHORE:
            s, need = int(rows[i, SEM]), int(rows[i, COUNT])
            local = s - int(table.sem_first[t])
            producers = [j for j in range(len(rows))
                         if rows[j, OP] == _SIGNAL and rows[j, SEM] == s]
            entry.update(semaphore=local, count=sems[s], needs=need,
                         producers=[table.tiles[table.tile_of_row(j)] for j in producers])
            lines.append(f"    waits for semaphore {local} to hold {need}; it "
                         f"holds {sems[s]}")
            if not producers:
                lines.append("    no instruction of the program signals it")
            for j in producers:
                p = table.tile_of_row(j)
                if pcs[p] >= first[p + 1]:
                    state = "has finished"
                elif pcs[p] > j:
                    state = "has passed it"
                else:
                    o = table.where[pcs[p]]
                    state = (f"is blocked at offset {o.offset}: "
                             f"{format_instruction(o)}")
                lines.append(f"    signalled by tile {table.tiles[p]} at offset "
                             f"{table.where[j].offset} (+{int(rows[j, COUNT])}), "
                             f"which {state}")
        waiting.append(entry)
    return DeadlockError("\n".join(lines), waiting)
