"""The mapper on the zoo: its time from cold caches, solve time, proven
gap, and simulated cycles of the CP-SAT mapping against the greedy mapping
and tessel-default-mapping; cycles / roofline; the cost model's error per
layer against the simulator.

For each model and architecture: import (PyTorch), legalize and compute
what the weights alone give (as a compile does), extract the graph, map
with each mapper (its placements, then the results kept on chip); then
compile with each mapping and simulate (timing only). A model that does not lower yet is reported with the first
line of its error (its solve figures are still given when its graph can be
read), and is picked up automatically once it lowers.

Roofline: the sum over ops of max(MACs / peak MAC rate of the grid,
compulsory DRAM bytes / total DRAM bandwidth). MAC utilization is the
simulator's (MACs / (peak per tile x tiles x cycles)).

With ``--stages K``, throughput too: the CP-SAT mapping for the throughput
objective with up to K pipeline stages against the latency mapping, each
compiled for one input and for a stream of ``--stream`` inputs; the
simulated interval between inputs is (cycles of the stream - cycles of one
input) / (stream - 1), the predicted one the mapper's longest stage. The
throughput mapping is solved twice: weights streamed from DRAM for every
input, and (``throughput W``) weights allowed to stay resident in SRAM.

    python bench/mapper.py [--models mlp,small_cnn] [--archs tessel-4x4,...]
                           [--gemm] [--time-limit 10] [--stages 4 --stream 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import torch

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel import zoo
from tessel.driver import compile_imported
from tessel.driver.cost_error import layer_errors
from tessel.compiler.lower import Compilation, parse_imported, run_stages
from tessel.driver.pipeline import argument_roles
from tessel.ir import Context
from tessel.mapper import MapperOptions, choose_epilogues, graph, map_graph, solve
from tessel.mapper.cost import estimate, roofline_cycles
from tessel.mapper.space import clear_caches, default_placement
from tessel.runtime.simulator import simulate
from tessel.zoo.models import MLP


def _extra_models():
    torch.manual_seed(0)
    # A large GEMM, (1024 x 1024) @ (1024 x 1024), the weight a parameter
    # (a torch module, so that the frontend process can import it).
    return {"gemm1024": (torch.nn.Linear(1024, 1024, bias=False),
                         (torch.randn(1024, 1024),)),
            # BERT-base's feed-forward block, sequence 128.
            "bert_ffn": (MLP(768, 3072, 768, activation=torch.nn.functional.gelu),
                         (torch.randn(128, 768),))}


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    for line in text:
        if "error:" in line:
            return line.strip()[:160]
    return (text[0] if text else type(e).__name__)[:160]


def _graph(model, arch):
    """The graph as a compile maps it: legalized, what the weights alone
    give computed."""
    with Context():
        c = Compilation(model, arch, parse_imported(model.mlir, arch, model.signature),
                        weights=dict(model.weights))
        run_stages(c, until="precompute")
        return graph.from_module(c.module, roles=argument_roles(c.module))


def bench(name, model, arch_name, options, per_layer: bool) -> None:
    arch = arch_model.load(arch_name)
    try:
        legal = _graph(model, arch)
    except Exception as e:
        print(f"  {arch_name}: graph not readable: {_first_line(e)}")
        return
    # As compile_imported maps: the epilogues that pay; the default mapping
    # runs none. Timed from cold caches, as a compile in a fresh process
    # maps: the mapper's time, costing the candidates included.
    clear_caches()
    t = time.perf_counter()
    g = choose_epilogues(legal, arch, options)
    map_graph(g, arch, "cpsat", options)
    cold = time.perf_counter() - t
    epilogues = {op.epilogue.index for op in legal.ops if op.epilogue}
    apart = [replace(op, epilogue=None) if op.epilogue else
             replace(op, folded=False) if op.index in epilogues else op
             for op in legal.ops]
    roof = sum(roofline_cycles(op, arch) for op in g.ops)
    predicted = {"default": (sum(estimate(op, arch, default_placement(op, arch)).cycles
                                 for op in apart), None)}
    for method in ("heuristic", "cpsat"):
        t = time.perf_counter()
        sol = map_graph(g, arch, method, options)
        predicted[method] = (sol.latency, sol, time.perf_counter() - t)
    print(f"  {arch_name}: {len(g.ops)} ops, roofline {roof} cycles; "
          f"the CP-SAT mapper takes {cold:.2f} s from cold caches")
    print(f"    {'mapper':<10} {'solve s':>8} {'gap':>7} {'predicted':>10} "
          f"{'simulated':>10} {'/roofline':>9} {'MAC util':>8}")
    for method in ("default", "heuristic", "cpsat"):
        entry = predicted[method]
        solve_s = f"{entry[2]:.2f}" if method != "default" else "-"
        gap = f"{100 * entry[1].gap:.2f}%" if entry[1] and entry[1].bound else "-"
        try:
            program = compile_imported(model, arch_name, mapper=method,
                                       mapper_options=options)
            result = simulate(program, numerics=False, trace=False)
            sim = f"{result.cycles:>10} {result.cycles / roof:>9.2f} " \
                  f"{100 * result.mac_utilization:>7.1f}%"
        except Exception as e:
            result = None
            sim = f"does not lower yet: {_first_line(e)}"
        print(f"    {method:<10} {solve_s:>8} {gap:>7} {entry[0]:>10} {sim}")
        if per_layer and result is not None and method == "cpsat":
            for layer in layer_errors(model, arch, options):
                print(f"      layer {layer.tag.rsplit('/', 1)[-1]:<24} simulated "
                      f"{layer.simulated:>8.0f}  predicted {layer.predicted:>8}  error "
                      f"{100 * layer.error:+6.1f}%")


def bench_throughput(model, arch_name, options, stages: int, stream: int) -> None:
    arch = arch_model.load(arch_name)
    g = _graph(model, arch)
    print(f"    throughput, a stream of {stream} inputs:")
    print(f"    {'objective':<13} {'stages':>6} {'predicted':>10} {'1 input':>10} "
          f"{f'{stream} inputs':>10} {'interval':>10} {'speed-up':>8}")
    base = None
    for objective, k, resident in (("latency", 1, False),
                                   ("throughput", stages, False),
                                   ("throughput", stages, True)):
        opts = replace(options, objective=objective, max_stages=k,
                       resident_weights=resident)
        label = objective + (" W" if resident else "")
        sol = solve(choose_epilogues(g, arch, opts), arch, "cpsat", opts)
        try:
            cycles = [simulate(compile_imported(model, arch_name, mapper="cpsat",
                                                mapper_options=opts, stream=n),
                               numerics=False).cycles for n in (1, stream)]
        except Exception as e:
            print(f"    {label:<13} does not lower yet: {_first_line(e)}")
            continue
        interval = (cycles[1] - cycles[0]) / (stream - 1)
        if objective == "latency":
            base = interval
        speedup = f"{base / interval:>7.2f}x" if base else "       -"
        print(f"    {label:<13} {len(sol.stage_cycles()):>6} {sol.interval:>10} "
              f"{cycles[0]:>10} {cycles[1]:>10} {interval:>10.0f} {speedup}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(
        n for n in zoo.names() if not zoo.get(n).training))
    parser.add_argument("--archs", default="tessel-4x4,tessel-16x16")
    parser.add_argument("--gemm", action="store_true",
                        help="also the 1024^3 GEMM and BERT FFN on "
                        "systolic-32x32 and tessel-16x16")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--stages", type=int, default=0,
                        help="also map for throughput with up to this many "
                        "pipeline stages")
    parser.add_argument("--stream", type=int, default=4,
                        help="inputs in the throughput runs' stream")
    args = parser.parse_args(argv)
    if args.stages and args.stream < 2:
        parser.error("--stream must be at least 2 to measure an interval")
    options = MapperOptions(time_limit_s=args.time_limit)
    runs = []
    for name in args.models.split(","):
        if not name:
            continue
        case = zoo.get(name)
        runs.append((name, case.build, args.archs.split(",")))
    if args.gemm:
        for name, built in _extra_models().items():
            runs.append((name, lambda built=built: built,
                         ["systolic-32x32", "tessel-16x16"]))
    for name, build, archs in runs:
        print(f"{name}:")
        try:
            module, inputs = build()
            model = fe.import_torch(module, inputs)
        except Exception as e:
            print(f"  does not import: {_first_line(e)}")
            continue
        for arch_name in archs:
            bench(name, model, arch_name, options, per_layer=True)
            if args.stages:
                bench_throughput(model, arch_name, options, args.stages, args.stream)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
