"""Runs the first stages of Tessel on a 2-layer MLP imported by torch-mlir.

The same pass pipeline runs twice: through `tessel-opt` (as a lit test or a
user at a shell would) and through the Python bindings. Both register the
same dialects and passes, so they must print the same IR.
"""

import subprocess
import sys
from collections import Counter
from pathlib import Path

from tessel._tools import tool_path
from tessel.ir import Context, Module
from tessel.passmanager import PassManager

MODEL = Path(__file__).with_name("mlp.mlir")
PIPELINE = (
    "builtin.module("
    "tessel-check-input-contract,"
    "linalg-fuse-elementwise-ops,canonicalize,cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map})"
)


def op_histogram(module: Module) -> Counter:
    """Ops at the top level of each function (not inside linalg bodies)."""
    return Counter(op.name for func in module.body.operations
                   for block in func.regions[0].blocks
                   for op in block.operations)


def show(title: str, counts: Counter) -> None:
    print(f"{title}:")
    for name, n in sorted(counts.items()):
        if not name.startswith(("builtin.", "func.")):
            print(f"  {n:3d}  {name}")


def main() -> int:
    try:
        tessel_opt = str(tool_path("tessel-opt"))
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    with Context():
        module = Module.parse(MODEL.read_text())
        show(f"Input ({MODEL.name}, linalg-on-tensors from torch-mlir)",
             op_histogram(module))
        PassManager.parse(PIPELINE).run(module.operation)
        show("After input check, elementwise fusion, bufferization",
             op_histogram(module))
        from_python = str(module)

    cmd = [tessel_opt, str(MODEL), f"--pass-pipeline={PIPELINE}"]
    from_tool = subprocess.run(cmd, check=True, capture_output=True,
                               text=True).stdout
    print("\n$", " ".join(f"'{c}'" if "(" in c else c for c in cmd))
    print(from_tool)
    if from_tool.strip() != from_python.strip():
        print("error: tessel-opt and the Python bindings disagree",
              file=sys.stderr)
        return 1
    print("tessel-opt and the Python PassManager produced identical IR.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
