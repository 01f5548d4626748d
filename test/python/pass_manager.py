# RUN: %PYTHON %s | FileCheck %s
"""Tessel's C++ passes, upstream passes and Python-defined passes run in one
PassManager, on the same dialects tessel-opt registers."""

from tessel.ir import Context, Module
from tessel.passmanager import PassManager

LINEAR = """
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %unused = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %mm : tensor<4x16xf32>
}
"""


def count_matmuls(op, pass_):
    """A Python-defined pass: reports the matmuls it sees."""
    count = 0

    def walk(o):
        nonlocal count
        if o.name == "linalg.matmul":
            count += 1
        from tessel.ir import WalkResult
        return WalkResult.ADVANCE

    op.walk(walk)
    print(f"python pass saw {count} matmul(s)")


with Context():
    module = Module.parse(LINEAR)
    pm = PassManager.parse(
        "builtin.module(tessel-check-input-contract,canonicalize,cse)")
    pm.add(count_matmuls, name="CountMatmuls", argument="count-matmuls")
    pm.add("one-shot-bufferize{bufferize-function-boundaries}")
    # CHECK: python pass saw 1 matmul(s)
    pm.run(module.operation)
    # Canonicalize dropped the unused constant; bufferization used the
    # interface models registered for linalg, tensor and func.
    # CHECK-LABEL: func.func @linear
    # CHECK-SAME:    memref<4x8xf32
    # CHECK-NOT:     1.000000e+00
    # CHECK:         linalg.matmul ins({{.*}} : memref<4x8xf32
    print(module)

    # A contract violation is a pass failure with the op named.
    bad = Module.parse("func.func @f() { cf.br ^bb1\n^bb1:\n return }")
    try:
        PassManager.parse("builtin.module(tessel-check-input-contract)").run(
            bad.operation)
    except Exception as e:
        # CHECK: 'cf.br' is outside Tessel's input contract
        print(e)
