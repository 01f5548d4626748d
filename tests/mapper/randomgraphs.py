"""Small random graphs (chains of matmuls and elementwise ops) built without
MLIR, for checking the mappers against each other."""

import random

from tessel.mapper.graph import Access, Graph, Op, Operand, edges_of


def _dims(*loops):
    return tuple(Access(((l, 1),)) for l in loops)


def matmul(index, m, n, k, source):
    return Op(index, "linalg.matmul", "matmul", (m, n, k),
              ("parallel", "parallel", "reduction"), (
                  Operand((m, k), 4, _dims(0, 2), source=source),
                  Operand((k, n), 4, _dims(2, 1), source=("arg", index),
                          role="weight"),
                  Operand((m, n), 4, _dims(0, 1), is_output=True)))


def elementwise(index, m, n, source):
    return Op(index, "linalg.generic", "elementwise", (m, n),
              ("parallel", "parallel"), (
                  Operand((m, n), 4, _dims(0, 1), source=source),
                  Operand((m, n), 4, _dims(0, 1), is_output=True, read=False)),
              vector_ops=2, temporaries=2)


def random_graph(seed: int, ops: int = 3) -> Graph:
    rng = random.Random(seed)
    m = rng.choice([8, 16, 32, 64])
    width = rng.choice([16, 32, 64, 128])
    out, source = [], ("arg", 100)
    for i in range(ops):
        if rng.random() < 0.6:
            n = rng.choice([16, 32, 64, 128, 256])
            out.append(matmul(i, m, n, width, source))
            width = n
        else:
            out.append(elementwise(i, m, width, source))
        source = ("op", i)
    ops_ = tuple(out)
    return Graph(f"random{seed}", ops_, edges_of(ops_))
