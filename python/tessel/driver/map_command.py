"""``tessel map MODEL``: map a model (a zoo case, or any model ``tessel
compile`` takes) and print the decision."""

from __future__ import annotations

import sys


def run(args) -> int:
    from .. import arch as arch_model
    from .. import frontend as fe
    from .. import zoo
    from ..compiler.lower import Compilation, parse_imported, run_stages
    from ..ir import Context
    from ..mapper import MapperOptions, choose_epilogues, explain, graph, map_graph

    from ..errors import TesselError
    from . import source
    from .pipeline import argument_roles

    try:
        target = arch_model.load(args.arch)
        options = MapperOptions(objective=args.objective, max_stages=args.stages,
                                resident_weights=args.resident_weights,
                                time_limit_s=args.time_limit)
        if args.model in zoo.names():
            model = _import_zoo_case(fe, zoo.get(args.model))
        else:
            model = source.from_spec(args.model)[0].importer()
    except (KeyError, ValueError, TesselError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    with Context():
        # The module as a compile maps it: legalized, what the weights alone
        # give computed.
        c = Compilation(model, target, parse_imported(model.mlir, target, model.signature),
                        weights=dict(model.weights))
        run_stages(c, until="precompute")
        g = choose_epilogues(
            graph.from_module(c.module, name=args.model, roles=argument_roles(c.module)),
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


def _import_zoo_case(fe, case):
    """The imported model of a zoo case, a training step's (which ``tessel
    compile`` refuses) included."""
    built = case.build()
    if case.training:
        module, loss_fn, inputs, targets = built
        return fe.import_torch_training(module, loss_fn, inputs, targets,
                                        name=case.name)
    module, inputs = built
    return fe.import_torch(module, inputs)
