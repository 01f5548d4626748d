# RUN: %PYTHON %s | FileCheck %s
"""Builds tessel IR through the Python bindings and reads it back."""

from tessel.ir import Context, InsertionPoint, Location, Module
from tessel.dialects import tessel


def run(f):
    print("\nTEST:", f.__name__)
    with Context(), Location.unknown():
        f()
    return f


# CHECK-LABEL: TEST: build_device
@run
def build_device():
    module = Module.create()
    with InsertionPoint(module.body):
        device = tessel.DeviceOp("main", tessel.GridAttr.get(2, 3))
        with InsertionPoint(device.body_block):
            tessel.TileOp(0, 0)
            tessel.TileOp(1, 2)
    assert module.operation.verify()
    # CHECK: tessel.device @main grid <2, 3> {
    # CHECK:   %tile_0_0 = tessel.tile(0, 0)
    # CHECK:   %tile_1_2 = tessel.tile(1, 2)
    print(module)
    # CHECK: grid: 2 x 3
    grid = tessel.GridAttr(device.grid)
    print(f"grid: {grid.rows} x {grid.cols}")


# CHECK-LABEL: TEST: parse_and_cast
@run
def parse_and_cast():
    module = Module.parse("tessel.device @d grid <4, 4> { %t = tessel.tile(3, 1) }")
    device = module.body.operations[0]
    # Concrete op classes come back from the generated wrappers.
    # CHECK: DeviceOp TileOp
    tile = device.body.blocks[0].operations[0]
    print(type(device).__name__, type(tile).__name__)
    # CHECK: 3 1 !tessel.tile True
    print(tile.row.value, tile.col.value, tile.result.type,
          tessel.TileType.isinstance(tile.result.type))
    # CHECK: !tessel.tile
    print(tessel.TileType.get())


# CHECK-LABEL: TEST: invalid_grid_raises
@run
def invalid_grid_raises():
    try:
        tessel.GridAttr.get(0, 4)
    except ValueError as e:
        # CHECK: ValueError: {{.*}}grid rows must be in [1, 1024], got 0
        print("ValueError:", e)


# CHECK-LABEL: TEST: verifier_runs
@run
def verifier_runs():
    module = Module.parse("tessel.device @d grid <2, 2> {}")
    device = module.body.operations[0]
    with InsertionPoint(device.body.blocks[0]):
        tessel.TileOp(5, 0)
    try:
        module.operation.verify()
    except Exception as e:
        # CHECK: coordinate (5, 0) lies outside the 2x2 grid of device @d
        print(e)
