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
program. Shapes are static: compile with ``dynamic=False``.

Training: where a graph's inputs or parameters require gradients (and
gradients are enabled), the graph goes through AOTAutograd, which splits it
into a forward graph (the outputs and what the backward needs) and a
backward graph (the gradients); Tessel compiles and simulates both, so
``loss.backward()`` runs on Tessel too. Their figures are in ``stats()``
with ``role`` ``forward`` and ``backward``.

``backend(**options)`` gives a backend with driver options
(``tessel.Options``), e.g. ``torch.compile(m, backend=tessel.dynamo.backend(
arch="tessel-16x16"))``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .driver import api, source as source_mod
from .driver.options import Options
from .frontend.api import torch_to_host

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
    role: str = "inference"      # or "forward" / "backward" (AOTAutograd)
    compiles: int = 1            # backend calls that got this graph
    cache_hits: int = 0          # ... of them served from the cache
    calls: int = 0
    cycles: int = 0              # of the last call
    total_cycles: int = 0
    last: Any = field(default=None, repr=False)   # the last SimulationResult

    def __str__(self) -> str:
        shapes = ", ".join(f"{dt}{list(s)}" for s, dt in self.inputs)
        return (f"{self.role} graph {self.key} ({shapes}) on {self.arch}: compiled in "
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
        return _compile(gm, example_inputs, opts)

    return tessel_backend_with_options


def tessel_backend(gm: torch.fx.GraphModule, example_inputs):
    """The ``tessel`` backend with the default options (``tessel-4x4``,
    the CP-SAT mapper)."""
    return _compile(gm, example_inputs, _default_options())


def _compile(gm, example_inputs, opts: Options):
    """A graph for inference as it is; one that gradients flow through by
    AOTAutograd, its forward and backward graphs each compiled."""
    if not _needs_gradients(gm, example_inputs):
        return _compile_graph(gm, example_inputs, opts)
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    def compiler(role):
        def compile_aot_graph(aot_gm, aot_inputs):
            # AOTAutograd traces with fake tensors; compiling needs only
            # their shapes and dtypes, and runs outside the fake mode.
            with unset_fake_temporarily():
                examples = [torch.zeros(tuple(x.shape), dtype=x.dtype)
                            for x in aot_inputs]
                return make_boxed_func(_compile_graph(aot_gm, examples, opts, role))
        return compile_aot_graph

    # Attention traced as its math (matmuls and a softmax): the fused CPU
    # kernel's backward has no lowering in torch-mlir, theirs do.
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.MATH]):
        return aot_autograd(fw_compiler=compiler("forward"),
                            bw_compiler=compiler("backward"),
                            inference_compiler=compiler("inference"))(gm, example_inputs)


def _needs_gradients(gm, example_inputs) -> bool:
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad
        for t in (*example_inputs, *gm.parameters()))


_default = None


def _default_options() -> Options:
    global _default
    if _default is None:
        _default = Options.make(**_DEFAULTS)
    return _default


def _compile_graph(gm, example_inputs, opts: Options, role: str = "inference"):
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor) or any(
                not isinstance(d, int) for d in x.shape):
            raise TypeError(
                f"the tessel backend compiles static shapes; graph input {i} is "
                f"{type(x).__name__} with a symbolic size: call torch.compile(..., "
                f"dynamic=False)")
    # The program computes only the values under the outputs' views; the
    # outputs that are None or an input are formed here too (a backward
    # gives no gradient to an input that needs none).
    outputs, computed = _split_outputs(gm)
    if not computed:
        return _assemble(outputs, lambda args: [], _returns_sequence(gm))
    # Only what the graph reads, as a plain GraphModule (dynamo's carries
    # bookkeeping that does not pickle to the frontend process).
    clean = torch.fx.GraphModule(gm, _graph_returning(gm.graph, computed))
    key = _key(clean, example_inputs, opts)
    with _LOCK:
        entry = _CACHE.get(key)
        if entry is not None:
            entry[2].compiles += 1
            entry[2].cache_hits += 1
    if entry is None:
        start = time.perf_counter()
        name = opts.name or f"graph_{key[:8]}"
        src = source_mod.from_model(clean, tuple(x.detach() for x in example_inputs), name)
        # Each graph (forward, backward, the parts between graph breaks)
        # dumps its IR into a directory of its own.
        compiled = api.compile_source(src, opts if opts.dump_ir is None else opts.replace(
            dump_ir=str(Path(opts.dump_ir) / f"{role}_{key[:8]}")))
        graph_stats = GraphStats(
            key=key[:12], inputs=tuple((tuple(x.shape), str(x.dtype).replace("torch.", ""))
                                       for x in example_inputs),
            compile_seconds=time.perf_counter() - start,
            timings=dict(compiled.stages.seconds), arch=opts.arch.name, role=role)
        entry = (compiled.program, compiled.imported.signature, graph_stats)
        with _LOCK:
            entry = _CACHE.setdefault(key, entry)
    return _assemble(outputs, _runner(*entry), _returns_sequence(gm))


def _runner(program, signature, graph_stats: GraphStats):
    """The program's outputs, as tensors, for the graph's inputs."""

    def run(args):
        feeds = {spec.name: torch_to_host(a)
                 for spec, a in zip(signature.inputs, args)
                 if spec.name in program.inputs}
        result = program.simulate(feeds)
        graph_stats.calls += 1
        graph_stats.cycles = result.cycles
        graph_stats.total_cycles += result.cycles
        graph_stats.last = result
        # bfloat16 outputs come back as float32 holding bf16 values (exact).
        outputs = [torch.from_numpy(result.outputs[o.name]) for o in signature.outputs]
        return [t.to(torch.bfloat16) if o.dtype == "bfloat16" else t
                for t, o in zip(outputs, signature.outputs)]

    return run


def _split_outputs(gm):
    """Per output of ``gm``, where its value comes from: ``(None, ())`` for
    None, else ``(source, views)`` with ``source`` ``("input", i)`` (the
    graph's i-th input) or ``("computed", j)`` (the j-th of the values the
    program computes) and ``views`` the nodes of the view ops (reshapes,
    transposes, expands, detach, clone) between the two, innermost first,
    which PyTorch applies to the tensor the program returns. Returns those
    and the computed values' nodes.

    A program cannot return its own argument, and an output that is a view
    of another is one buffer with it; AOTAutograd's forward returns both
    (a result, its detached self and a reshaped copy for the backward, the
    inputs the backward needs), so only the values under the views are
    computed, each once."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    outputs, computed = [], []
    for value in _output_values(gm.graph):
        views = []
        while isinstance(value, torch.fx.Node) and value.target in _VIEWS:
            views.append(value)
            value = value.args[0]
        if value is None:
            outputs.append((None, ()))
        elif value in placeholders:
            outputs.append((("input", placeholders.index(value)), tuple(reversed(views))))
        else:
            if value not in computed:
                computed.append(value)
            outputs.append((("computed", computed.index(value)), tuple(reversed(views))))
    return outputs, computed


_aten = torch.ops.aten
_VIEWS = (_aten.detach.default, _aten.alias.default, _aten.clone.default,
          _aten.view.default, _aten._unsafe_view.default, _aten.reshape.default,
          _aten.t.default, _aten.permute.default, _aten.transpose.int,
          _aten.expand.default)
_RESHAPES = {_aten.view.default: _aten.reshape.default,
             _aten._unsafe_view.default: _aten.reshape.default}


def _output_values(graph) -> list:
    (node,) = graph.find_nodes(op="output")
    value = node.args[0]
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _graph_returning(graph, values) -> torch.fx.Graph:
    """A copy of ``graph`` that returns ``values`` (nodes of it), as a tuple."""
    copy = torch.fx.Graph()
    env = {}
    for node in graph.nodes:
        if node.op == "output":
            copy.output(tuple(env[v] for v in values))
        else:
            env[node] = copy.node_copy(node, lambda n: env[n])
    return copy


def _assemble(outputs, run_program, tuple_out: bool):
    """The graph's callable: its outputs in order, each from the program's
    outputs or the graph's inputs through its views (see _split_outputs)."""

    def run(*args):
        computed = run_program(args)
        outs = []
        for source, views in outputs:
            if source is None:
                outs.append(None)
                continue
            kind, index = source
            value = args[index] if kind == "input" else computed[index]
            for node in views:
                # A reshape where the graph had a view: the program's tensor
                # need not have the strides the graph's had.
                op = _RESHAPES.get(node.target, node.target)
                value = op(value, *node.args[1:], **node.kwargs)
            outs.append(value)
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
        h.update(torch_to_host(t).tobytes())
    for x in example_inputs:
        h.update(str((tuple(x.shape), x.dtype)).encode())
    h.update(repr(opts.replace(progress=False)).encode())
    return h.hexdigest()
