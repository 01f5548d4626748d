"""Compile time per zoo model and per pipeline stage, instructions per tile
and the SRAM high-water mark per tile.

Each model is imported once (not timed here: bench/frontend.py measures the
import), then compiled `--repeat` times; the figures are medians. The
stages are those of `tessel-lowering-pipeline`, run one group at a time
through the same passes, then the Python emitter:

    python bench/compile.py [--models mlp,bert_layer] [--arch tessel-4x4]
                            [--repeat 3]

Prints one table per model: seconds per stage, then the program's size
(instructions per tile: min / median / max) and each tile's SRAM arena (the
high-water mark of its allocations) against the tile's SRAM.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

# The stages of tessel-lowering-pipeline (lib/Dialect/Tessel/Pipelines), in
# order; `canonicalize` keeps one-part partitions as the pipeline's does (the
# pattern's name as GCC, which builds the MLIR wheels, spells it).
_CANON = ('canonicalize{disable-patterns='
          '"{anonymous}::ForallOpSingleOrZeroIterationDimsFolder"}')
STAGES = [
    ("legalize", "tessel-check-input-contract,func.func(tessel-narrow-f64,"
                 "tessel-materialize-copies,tessel-fuse-elementwise)," + _CANON),
    ("map", "tessel-default-mapping"),
    ("partition + tile", "func.func(tessel-partition,tessel-tile-for-sram)," + _CANON),
    ("bufferize", f"tessel-bufferize,{_CANON},cse,{_CANON},"
                  f"func.func(tessel-promote-to-sram),{_CANON}"),
    ("to device", "tessel-convert-to-device"),
    ("instructions", "tessel-lower-to-instructions," + _CANON),
    ("schedule", "tessel-schedule"),
    ("allocate", "tessel-allocate-sram," + _CANON),
    ("check", "tessel-check-synchronization"),
]


def import_model(name: str):
    from tessel import frontend as fe
    from tessel import zoo
    case = zoo.get(name)
    if case.training:
        module, loss_fn, inputs, targets = case.build()
        return fe.import_torch_training(module, loss_fn, inputs, targets)
    module, inputs = case.build()
    module.eval()
    return fe.import_torch(module, inputs)


def compile_once(model, arch):
    """Seconds per stage, the program and the lowered module's SRAM arenas."""
    from tessel.compiler.emit import emit_program
    from tessel.compiler.lower import _set_names
    from tessel.dialects import func as func_d
    from tessel.ir import Context, Module, StringAttr
    from tessel.passmanager import PassManager

    times = {}
    with Context():
        module = Module.parse(model.mlir)
        module.operation.attributes["tessel.arch"] = arch.to_attribute()
        func = next(op for op in module.body.operations if isinstance(op, func_d.FuncOp))
        _set_names(func, model.signature)
        for stage, pipeline in STAGES:
            start = time.perf_counter()
            PassManager.parse(f"builtin.module({pipeline})").run(module.operation)
            times[stage] = time.perf_counter() - start
        arenas = {}
        placed = set()
        for device in module.body.operations:
            for op in device.regions[0].blocks[0].operations:
                if op.operation.name == "tessel.buffer":
                    name = StringAttr(op.attributes["sym_name"]).value
                    arenas[name] = op.result.type.shape[0]
                elif op.operation.name == "tessel.dram_buffer":
                    placed.add(StringAttr(op.attributes["sym_name"]).value)
        start = time.perf_counter()
        weights = {k: v for k, v in model.weights.items() if k in placed}
        program = emit_program(module, weights=weights)
        times["emit"] = time.perf_counter() - start
    return times, program, arenas


def report(name, arch, runs):
    times = {stage: statistics.median(r[0][stage] for r in runs) for stage in runs[0][0]}
    program, arenas = runs[0][1], runs[0][2]
    total = sum(times.values())
    print(f"\n{name} on {arch.name}: {total:.2f} s (median of {len(runs)})")
    for stage, seconds in times.items():
        print(f"  {stage:<18} {seconds:8.3f} s  {100 * seconds / total:5.1f}%")
    counts = sorted(t["instructions"] for t in program.manifest()["tiles"])
    print(f"  instructions       {sum(counts)} in all; per tile min "
          f"{counts[0]} / median {int(statistics.median(counts))} / max {counts[-1]}")
    if arenas:
        sizes = sorted(arenas.values())
        print(f"  SRAM high-water    per tile min {sizes[0]} / median "
              f"{int(statistics.median(sizes))} / max {sizes[-1]} bytes of "
              f"{arch.tile.sram.bytes} ({100 * sizes[-1] / arch.tile.sram.bytes:.0f}% at most)")


def main(argv=None) -> int:
    from tessel import arch as arch_model
    from tessel import zoo

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.names()))
    parser.add_argument("--arch", default="tessel-4x4")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    arch = arch_model.load(args.arch)
    for name in args.models.split(","):
        model = import_model(name)
        try:
            runs = [compile_once(model, arch) for _ in range(args.repeat)]
        except Exception as e:  # a model the lowering does not cover yet
            print(f"\n{name} on {arch.name}: does not compile: "
                  f"{str(e).splitlines()[-1][:300]}")
            continue
        report(name, arch, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
