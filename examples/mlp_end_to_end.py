"""Compiles the zoo's MLP from PyTorch for the default architecture, runs it
on the simulator and checks it against PyTorch eager.

Every stage is the real one: torch-mlir imports the model in its own process,
the tessel-lowering-pipeline (the passes tessel-opt runs) lowers it to one
instruction stream per tile, the emitter writes the program, and the
simulator executes every instruction.
"""

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tessel import arch, frontend, zoo
from tessel.driver import compile_imported
from tessel.runtime.simulator import simulate


def main() -> int:
    target = arch.load()
    case = zoo.get("mlp")
    module, inputs = case.build()

    start = time.perf_counter()
    model = frontend.import_torch(module, inputs)
    imported = time.perf_counter()
    program = compile_imported(model, target)
    compiled = time.perf_counter()
    feeds = {spec.name: x.numpy() for spec, x in zip(model.signature.inputs, inputs)}
    result = simulate(program, feeds, trace=True)
    simulated = time.perf_counter()

    output = model.signature.outputs[0].name
    golden = module(*inputs).detach().numpy()
    error = float(np.abs(result.outputs[output] - golden).max())
    ok = np.allclose(result.outputs[output], golden, rtol=case.rtol, atol=case.atol)

    out_dir = Path(tempfile.mkdtemp(prefix="tessel-demo-"))
    program.save(out_dir / "program")
    trace = result.save_trace(out_dir / "trace.json")

    print(f"\nmlp on {target.name}: import {imported - start:.2f} s, compile "
          f"{compiled - imported:.2f} s, simulate {simulated - compiled:.2f} s")
    print(result.summary())
    print(f"max |simulated - PyTorch| = {error:.2e} "
          f"(tolerance rtol={case.rtol}, atol={case.atol}): "
          f"{'match' if ok else 'MISMATCH'}")
    print(f"program: {out_dir / 'program'}  (tessel disasm {out_dir / 'program'})")
    print(f"trace:   {trace}  (open in ui.perfetto.dev)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
