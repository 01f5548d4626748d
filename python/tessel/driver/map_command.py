"""``tessel map MODEL``: map a zoo model and print the decision."""

from __future__ import annotations

import sys


def run(args) -> int:
    from .. import arch as arch_model
    from .. import frontend as fe
    from .. import zoo
    from ..compiler.lower import parse_imported
    from ..ir import Context
    from ..mapper import (MapperOptions, choose_epilogues, explain, graph, legalize,
                          map_graph)

    try:
        case = zoo.get(args.model)
        target = arch_model.load(args.arch)
        options = MapperOptions(objective=args.objective, max_stages=args.stages,
                                resident_weights=args.resident_weights,
                                time_limit_s=args.time_limit)
    except (KeyError, ValueError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    module, inputs = case.build()
    module.eval()
    model = fe.import_torch(module, inputs)
    with Context():
        m = parse_imported(model.mlir, target, model.signature)
        legalize(m)
        g = choose_epilogues(
            graph.from_module(m, name=args.model,
                              roles=[a.kind for a in model.signature.args]),
            target, options)
    solution = map_graph(g, target, args.mapper, options)
    if args.explain:
        print(explain.table(g, solution, target))
        for line in explain.tensor_report(g, target, options, solution):
            print(line)
    else:
        print(f"{args.model} on {target.name}: {solution.method} "
              f"{solution.status}, predicted {solution.latency} cycles, gap "
              f"{100 * solution.gap:.2f}%")
    for line in explain.weight_report(g, target):
        print(line)
    return 0
