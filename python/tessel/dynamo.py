"""``torch.compile(model, backend="tessel")``: every graph TorchDynamo
captures is imported through the frontend, compiled by Tessel and run on the
simulator; the outputs come back as tensors.

    import tessel, torch
    fast = torch.compile(model, backend="tessel")
    y = fast(x)
    for s in tessel.dynamo.stats(): print(s)       # per graph: cycles, calls, ...

Compiled graphs are cached by structure (the graph's code and constants),
input shapes and dtypes, and options, so a second ``torch.compile`` of the
same model, or a recompile TorchDynamo makes for a guard, reuses the
program. Inference only: the outputs carry no autograd history (run under
``torch.no_grad()``). Shapes are static: compile with ``dynamic=False``.

``backend(**options)`` gives a backend with driver options
(``tessel.Options``), e.g. ``torch.compile(m, backend=tessel.dynamo.backend(
arch="tessel-16x16"))``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from .driver import api, source as source_mod
from .driver.options import Options

# Simulation-only runs: the trace and the eager check are the driver's, not
# the backend's (torch.compile replaces eager, it does not compare with it).
_DEFAULTS = {"trace": False, "check": False}


@dataclass
class GraphStats:
    """One compiled graph: its cache key, what compiling it took, and its
    calls so far with the simulated cycles of the last one."""

    key: str
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    compile_seconds: float
    timings: dict[str, float]
    arch: str
    compiles: int = 1            # backend calls that got this graph
    cache_hits: int = 0          # ... of them served from the cache
    calls: int = 0
    cycles: int = 0              # of the last call
    total_cycles: int = 0
    last: Any = field(default=None, repr=False)   # the last SimulationResult

    def __str__(self) -> str:
        shapes = ", ".join(f"{dt}{list(s)}" for s, dt in self.inputs)
        return (f"graph {self.key} ({shapes}) on {self.arch}: compiled in "
                f"{self.compile_seconds:.2f} s, {self.cache_hits} cache hit(s), "
                f"{self.calls} call(s), last {self.cycles} cycles")


_LOCK = threading.Lock()
_CACHE: dict[str, tuple[Any, Any, GraphStats]] = {}


def stats() -> list[GraphStats]:
    """Every graph compiled in this process, in compile order."""
    with _LOCK:
        return [entry[2] for entry in _CACHE.values()]


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


def backend(**options):
    """A TorchDynamo backend with these driver options."""
    opts = Options.make(**{**_DEFAULTS, **options})

    def tessel_backend_with_options(gm, example_inputs):
        return _compile_graph(gm, example_inputs, opts)

    return tessel_backend_with_options


def tessel_backend(gm: torch.fx.GraphModule, example_inputs):
    """The ``tessel`` backend with the default options (``tessel-4x4``,
    the CP-SAT mapper)."""
    return _compile_graph(gm, example_inputs, _default_options())


_default = None


def _default_options() -> Options:
    global _default
    if _default is None:
        _default = Options.make(**_DEFAULTS)
    return _default


def _compile_graph(gm, example_inputs, opts: Options):
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor) or any(
                not isinstance(d, int) for d in x.shape):
            raise TypeError(
                f"the tessel backend compiles static shapes; graph input {i} is "
                f"{type(x).__name__} with a symbolic size: call torch.compile(..., "
                f"dynamic=False)")
    # Only what the graph reads, as a plain GraphModule (dynamo's carries
    # bookkeeping that does not pickle to the frontend process).
    clean = torch.fx.GraphModule(gm, gm.graph)
    key = _key(clean, example_inputs, opts)
    with _LOCK:
        entry = _CACHE.get(key)
        if entry is not None:
            entry[2].compiles += 1
            entry[2].cache_hits += 1
    if entry is None:
        start = time.perf_counter()
        src = source_mod.from_model(clean, tuple(x.detach() for x in example_inputs),
                                    opts.name or f"graph_{key[:8]}")
        compiled = api.compile_source(src, opts)
        graph_stats = GraphStats(
            key=key[:12], inputs=tuple((tuple(x.shape), str(x.dtype).replace("torch.", ""))
                                       for x in example_inputs),
            compile_seconds=time.perf_counter() - start,
            timings=dict(compiled.stages.seconds), arch=opts.arch.name)
        entry = (compiled.program, compiled.imported.signature, graph_stats)
        with _LOCK:
            entry = _CACHE.setdefault(key, entry)
    return _runner(gm, *entry)


def _runner(gm, program, signature, graph_stats: GraphStats):
    tuple_out = _returns_sequence(gm)

    def run(*args):
        feeds = {spec.name: a.detach().cpu().numpy()
                 for spec, a in zip(signature.inputs, args)
                 if spec.name in program.inputs}
        result = program.simulate(feeds)
        graph_stats.calls += 1
        graph_stats.cycles = result.cycles
        graph_stats.total_cycles += result.cycles
        graph_stats.last = result
        outs = [torch.from_numpy(result.outputs[o.name]) for o in signature.outputs]
        return tuple(outs) if tuple_out else outs[0]

    return run


def _returns_sequence(gm) -> bool:
    for node in gm.graph.nodes:
        if node.op == "output":
            return isinstance(node.args[0], (tuple, list))
    return True


def _key(gm, example_inputs, opts: Options) -> str:
    """The graph's code, its constants' bytes, the inputs' shapes and dtypes,
    and the options: equal keys compile to equal programs."""
    h = hashlib.sha256(gm.code.encode())
    for name, t in sorted(list(gm.named_parameters()) + list(gm.named_buffers())):
        h.update(name.encode())
        h.update(str((tuple(t.shape), t.dtype)).encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    for x in example_inputs:
        h.update(str((tuple(x.shape), x.dtype)).encode())
    h.update(repr(opts.replace(progress=False)).encode())
    return h.hexdigest()
