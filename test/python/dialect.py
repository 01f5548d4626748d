# RUN: %PYTHON %s | FileCheck %s
"""Builds tessel IR through the Python bindings and reads the arch back."""

from tessel import arch
from tessel.ir import (Context, F32Type, InsertionPoint, Location, MemRefType,
                       Module)
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
    sram = MemRefType.get([16, 16], F32Type.get(),
                          memory_space=tessel.memory_space("sram"))
    dram = MemRefType.get([16, 16], F32Type.get(),
                          memory_space=tessel.memory_space("dram"))
    with InsertionPoint(module.body):
        device = tessel.DeviceOp("main", arch.load("tessel-4x4").to_attribute())
        with InsertionPoint(device.body_block):
            t = tessel.TileOp(1, 2)
            x = tessel.DramBufferOp(dram, "x", tessel.DramBufferKind.input)
            a = tessel.BufferOp(sram, "a", t, address=0)
            c = tessel.BufferOp(sram, "c", t)
            core = tessel.CoreOp(t)
            with InsertionPoint.at_block_terminator(core.body_block):
                done = tessel.DmaOp(x, a)
                tessel.WaitOp([done])
                tessel.MatmulOp(a, a, c)
                tessel.VectorUnaryOp(tessel.VectorUnaryKind.exp, c, c)
    module.operation.verify()
    # CHECK: tessel.device @main arch #arch {
    # CHECK:   %tile_1_2 = tessel.tile(1, 2)
    # CHECK:   %x = tessel.dram_buffer @x input : memref<16x16xf32, #dram>
    # CHECK:   %a = tessel.buffer @a on %tile_1_2 at 0 : memref<16x16xf32, #sram>
    # CHECK:   tessel.core(%tile_1_2) {
    # CHECK:     %dma = tessel.dma %x to %a
    # CHECK:     tessel.wait %dma
    # CHECK:     tessel.matmul %a, %a, %c
    # CHECK:     tessel.vector_unary exp %c, %c
    print(module)


# CHECK-LABEL: TEST: read_arch
@run
def read_arch():
    module = Module.parse(
        "module attributes {tessel.arch = %s} {}" % arch.load("tessel-16x16").to_attribute())
    attr = module.operation.attributes["tessel.arch"]
    # Downcast by the bindings to the concrete class.
    # CHECK: ArchAttr
    print(type(attr).__name__)
    described = arch.Arch.from_attribute(attr)
    # CHECK: tessel-16x16 16 x 16 sram 262144 dram 16 channels
    print(described.name, described.grid.rows, "x", described.grid.cols,
          "sram", described.tile.sram.bytes, "dram", described.dram.channels,
          "channels")
    # CHECK: lossless True
    print("lossless", described == arch.load("tessel-16x16"))


# CHECK-LABEL: TEST: invalid_arch_raises
@run
def invalid_arch_raises():
    desc = arch.load().to_dict()
    desc["tile"]["mac"]["dataflow"] = "row_stationary"
    try:
        tessel.ArchAttr.from_dict(desc)
    except ValueError as e:
        # CHECK: arch field 'tile.mac.dataflow' = 'row_stationary' is not allowed: must be one of weight_stationary, output_stationary
        print(e)


# CHECK-LABEL: TEST: invalid_grid_raises
@run
def invalid_grid_raises():
    try:
        tessel.GridAttr.get(0, 4)
    except ValueError as e:
        # CHECK: grid rows must be in [1, 1024], got 0
        print(e)


# CHECK-LABEL: TEST: verifier_runs
@run
def verifier_runs():
    module = Module.parse(
        "tessel.device @d arch %s {}" % arch.load("systolic-32x32").to_attribute())
    device = module.body.operations[0]
    with InsertionPoint(device.body.blocks[0]):
        tessel.TileOp(0, 1)
    try:
        module.operation.verify()
    except Exception as e:
        # CHECK: coordinate (0, 1) lies outside the 1x1 grid of device @d
        print(e)
