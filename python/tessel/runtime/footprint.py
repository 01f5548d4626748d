"""How much of each tile's SRAM a program touches: the high-water mark, the
end of the highest byte any instruction reads or writes there. A design
sweep reports it beside the SRAM the arch gives (docs/sweeps.md), so a point
can be judged by what it uses, not only by what it has."""

from __future__ import annotations

from . import isa
from .program import Program
from .validation import view_extent


def sram_high_water(program: Program) -> dict[tuple[int, int], int]:
    """Per tile that any instruction addresses: the byte past the highest
    SRAM byte it reads or writes (a transfer's remote SRAM end counts for
    the tile it names)."""
    top: dict[tuple[int, int], int] = {}
    seen: set = set()

    def touch(rc, view, sizes, dtype) -> None:
        end = view_extent(view, sizes, isa.DTYPE_SIZE[dtype])[1]
        if end > top.get(rc, 0):
            top[rc] = end

    for rc, instrs in program.decoded().items():
        for ins in instrs:
            op, f = ins.op, ins.fields
            if op in isa.SYNC_OPS:
                continue
            # Streams repeat their instructions (a loop unrolled): each
            # distinct one is measured once.
            key = (rc, op, tuple(f.items()))
            if key in seen:
                continue
            seen.add(key)
            if op == "dma":
                for ep in (f["src"], f["dst"]):
                    if ep.kind == "sram":
                        touch((ep.row, ep.col), ep.view, f["sizes"], f["dtype"])
            elif op == "dma_multicast":
                for ep in (f["src"], *f["dsts"]):
                    if ep.kind == "sram":
                        touch((ep.row, ep.col), ep.view, f["sizes"], f["dtype"])
            elif op == "dma_gather":
                touch(rc, f["index"], f["sizes"], f["index_dtype"])
                touch(rc, f["dst"], f["sizes"], f["dtype"])
            elif op in isa.MATMUL_OPS:
                lhs_sizes, lhs, acc_sizes, acc = isa.matmul_rows(f)
                touch(rc, lhs, lhs_sizes, f["dtype"])
                touch(rc, f["rhs"], (f["k"], f["n"]), f["dtype"])
                touch(rc, acc, acc_sizes, isa.acc_dtype(f["dtype"]))
            else:
                sizes = f["sizes"]
                out_sizes = sizes
                if op == "vector_reduce":
                    out_sizes = tuple(s for i, s in enumerate(sizes) if i != f["dim"])
                if op == "vector_unary":
                    dtypes = {"in": f["in_dtype"], "out": f["out_dtype"]}
                else:
                    dtypes = dict.fromkeys(isa.READS[op] + (isa.WRITES[op],), f["dtype"])
                for name in isa.READS[op]:
                    touch(rc, f[name], sizes, dtypes[name])
                out = isa.WRITES[op]
                touch(rc, f[out], out_sizes, dtypes[out])
    return top
