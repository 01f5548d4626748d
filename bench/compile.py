"""Compile time per zoo model and per pipeline stage, instructions per tile
and the SRAM high-water mark per tile.

Each model is imported once (not timed here: bench/frontend.py measures the
import), then compiled `--repeat` times; the figures are medians, and the
fastest compile's total is printed beside them (on a shared machine, whose
times vary from run to run, the fastest is the steadier figure). The stages
are legalize, precompute (what the weights alone give, on the CPU JIT),
the passes of `tessel-lowering-pipeline` as MLIR's pass timing reports
them (each canonicalization named after the pass before it), the
verification of the result, then emit (the C++ program writer, and the
loader reading the program back and validating it), as `compile_imported`
runs them:

    python bench/compile.py [--models mlp,bert_layer] [--arch tessel-4x4]
                            [--repeat 3]

Prints one table per model: seconds per stage, then the program's size
(instructions per tile: min / median / max) and each tile's SRAM arena (the
high-water mark of its allocations) against the tile's SRAM.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import tempfile
import time

_REPORT_LINE = re.compile(r"^ *(\d+\.\d+) \( *[\d.]+%\)  +(.+)$")


def _timed_pipeline(module):
    """Runs tessel-lowering-pipeline on the legalized ``module`` with MLIR's
    pass timing; the seconds of each of its top-level passes, in order. MLIR
    prints the report on stderr when the pass manager goes, so stderr is
    captured."""
    from tessel.compiler.lower import pipeline
    from tessel.passmanager import PassManager

    with tempfile.TemporaryFile(mode="w+") as report:
        saved = os.dup(2)
        os.dup2(report.fileno(), 2)
        try:
            pm = PassManager.parse(pipeline(legalize=False))
            # As compile_imported runs it: verified once, by emit.
            pm.enable_verifier(False)
            pm.enable_timing()
            pm.run(module.operation)
            del pm
            gc.collect()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        report.seek(0)
        lines = report.read().splitlines()
    stages = []
    for line in lines:
        match = _REPORT_LINE.match(line)
        if not match:
            continue
        seconds, name = float(match[1]), match[2]
        # Passes only: a nested pipeline's line sums its passes', and
        # analyses and the totals are not passes.
        if name.endswith("Pipeline") or name.startswith("(A)") or name in ("Total", "Rest"):
            continue
        # A canonicalization is named after the pass it cleans up after.
        if name == "Canonicalizer" and stages:
            name = f"canonicalize after {stages[-1][0].split(' after ')[-1]}"
        stages.append((name, seconds))
    return stages


def import_model(name: str):
    from tessel import frontend as fe
    from tessel import zoo
    case = zoo.get(name)
    if case.training:
        module, loss_fn, inputs, targets = case.build()
        return fe.import_torch_training(module, loss_fn, inputs, targets)
    module, inputs = case.build()
    return fe.import_torch(module, inputs)


def compile_once(model, arch):
    """Seconds per stage, the program and the lowered module's SRAM arenas."""
    from tessel.compiler.emit import emit_program
    from tessel.compiler.lower import Compilation, legalize, parse_imported, precompute
    from tessel.ir import Context, StringAttr
    with Context():
        module = parse_imported(model.mlir, arch, model.signature)
        c = Compilation(model, arch, module, weights=dict(model.weights))
        times = {}
        for name, stage in (("legalize", legalize), ("precompute", precompute)):
            start = time.perf_counter()
            stage(c)
            times[name] = time.perf_counter() - start
        for name, seconds in _timed_pipeline(module):
            while name in times:  # a pass that runs twice keeps both lines
                name += "'"
            times[name] = seconds
        arenas = {}
        placed = set()
        for device in module.body.operations:
            for op in device.regions[0].blocks[0].operations:
                if op.operation.name == "tessel.buffer":
                    name = StringAttr(op.attributes["sym_name"]).value
                    arenas[name] = op.result.type.shape[0]
                elif op.operation.name == "tessel.dram_buffer":
                    placed.add(StringAttr(op.attributes["sym_name"]).value)
        # As a compile does: the lowered module verified on a second thread
        # while it is encoded and loaded (lower.run_stages).
        start = time.perf_counter()
        weights = {k: v for k, v in c.weights.items() if k in placed}
        program = emit_program(module, weights=weights, verify="alongside")
        times["emit and verify"] = time.perf_counter() - start
    return times, program, arenas


def report(name, arch, runs):
    times = {stage: statistics.median(r[0][stage] for r in runs) for stage in runs[0][0]}
    program, arenas = runs[0][1], runs[0][2]
    total = sum(times.values())
    fastest = min(sum(r[0].values()) for r in runs)
    print(f"\n{name} on {arch.name}: {total:.2f} s (median of {len(runs)}; "
          f"fastest {fastest:.2f} s)")
    for stage, seconds in times.items():
        print(f"  {stage:<46} {seconds:8.3f} s  {100 * seconds / total:5.1f}%")
    counts = sorted(t["instructions"] for t in program.manifest()["tiles"])
    print(f"  {'instructions':<46} {sum(counts)} in all; per tile min "
          f"{counts[0]} / median {int(statistics.median(counts))} / max {counts[-1]}")
    if arenas:
        sizes = sorted(arenas.values())
        print(f"  {'SRAM high-water':<46} per tile min {sizes[0]} / median "
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
