"""Invalid architecture descriptions, each with the message both the Python
validation and the #tessel.arch verifier must give. Each case mutates the
default preset."""

from typing import Any, Callable

Mutation = Callable[[dict], Any]


def _set(path: str, value: Any) -> Mutation:
    def mutate(desc: dict) -> None:
        *sections, leaf = path.split(".")
        node = desc
        for s in sections:
            node = node[s]
        node[leaf] = value
    return mutate


def _del(path: str) -> Mutation:
    def mutate(desc: dict) -> None:
        *sections, leaf = path.split(".")
        node = desc
        for s in sections:
            node = node[s]
        del node[leaf]
    return mutate


# (id, mutation, message). A message ending in "got" is compared as a prefix:
# Python and MLIR print the offending value in their own syntax.
CASES = [
    ("missing-field", _del("clock_mhz"), "arch field 'clock_mhz' is missing"),
    ("missing-section", _del("tile.dma"), "arch field 'tile.dma' is missing"),
    ("section-not-mapping", _set("tile.sram", 5),
     "arch field 'tile.sram' must be a mapping of fields"),
    ("int-type", _set("clock_mhz", "fast"),
     "arch field 'clock_mhz' must be an integer, got"),
    ("int-below", _set("grid.rows", 0),
     "arch field 'grid.rows' = 0 is out of range: must be in [1, 1024]"),
    ("int-above", _set("grid.cols", 1025),
     "arch field 'grid.cols' = 1025 is out of range: must be in [1, 1024]"),
    ("sram-too-small", _set("tile.sram.bytes", 1000),
     "arch field 'tile.sram.bytes' = 1000 is out of range: must be in "
     "[4096, 1073741824]"),
    ("power-of-two", _set("tile.sram.alignment", 48),
     "arch field 'tile.sram.alignment' = 48 is out of range: must be in "
     "[1, 4096] and a power of two"),
    ("name", _set("name", "my chip"),
     "arch field 'name' = 'my chip' is not allowed: must be non-empty and use "
     "only letters, digits, '.', '_' and '-'"),
    ("string-type", _set("noc.topology", 3),
     "arch field 'noc.topology' must be a string, got"),
    ("enum", _set("tile.mac.dataflow", "row_stationary"),
     "arch field 'tile.mac.dataflow' = 'row_stationary' is not allowed: must "
     "be one of weight_stationary, output_stationary"),
    ("enum-routing", _set("noc.routing", "yx"),
     "arch field 'noc.routing' = 'yx' is not allowed: must be one of xy"),
    ("map-type", _set("tile.mac.macs_per_cycle", [1]),
     "arch field 'tile.mac.macs_per_cycle' must be a mapping, got"),
    ("map-empty", _set("tile.mac.macs_per_cycle", {}),
     "arch field 'tile.mac.macs_per_cycle' must not be empty"),
    ("map-key", _set("tile.mac.macs_per_cycle", {"f32": 4, "f64": 1}),
     "arch field 'tile.mac.macs_per_cycle' has key 'f64', which is not "
     "allowed: keys must be among f32, f16, bf16, i8"),
    ("map-required-key", _del("tile.vector.latency.erf"),
     "arch field 'tile.vector.latency' lacks key 'erf': every one of add, "
     "sub, mul, div, max, min, cmp, select, neg, abs, exp, log, tanh, erf, "
     "sin, cos, sqrt, rsqrt, recip, cast, reduce_add, reduce_max is required"),
    ("map-value", _set("tile.mac.macs_per_cycle.f32", 0),
     "arch field 'tile.mac.macs_per_cycle.f32' = 0 is out of range: must be "
     "in [1, 1048576]"),
    ("list-type", _set("tile.vector.dtypes", "f32"),
     "arch field 'tile.vector.dtypes' must be a list, got"),
    ("list-empty", _set("tile.vector.dtypes", []),
     "arch field 'tile.vector.dtypes' must not be empty"),
    ("list-item", _set("tile.vector.dtypes", ["f32", "f64"]),
     "arch field 'tile.vector.dtypes' has item 'f64', which is not allowed: "
     "items must be among f32, f16, bf16, i8, i32, i64"),
    ("list-duplicate", _set("tile.vector.dtypes", ["f32", "bf16", "f32"]),
     "arch field 'tile.vector.dtypes' has item 'f32' twice"),
    ("coords-entry", _set("dram.attach", [[0, 0], [0, 3], [3, 0], [3]]),
     "arch field 'dram.attach' entry 3 must be [row, col]"),
    ("unknown-field", _set("tile.sram.bytez", 4),
     "arch field 'tile.sram.bytez' is not part of the schema: tile.sram has "
     "alignment, banks, bytes, bytes_per_cycle"),
    ("unknown-top-level", _set("frequency", 4),
     "arch field 'frequency' is not part of the schema: the description has "
     "clock_mhz, dram, energy, grid, name, noc, tile"),
    ("attach-count", _set("dram.attach", [[0, 0], [0, 3], [3, 0]]),
     "arch field 'dram.attach' has 3 entries but dram.channels = 4: give one "
     "[row, col] per channel"),
    ("attach-outside", _set("dram.attach", [[0, 0], [0, 3], [3, 0], [5, 0]]),
     "arch field 'dram.attach' entry 3 = [5, 0] lies outside the 4x4 grid"),
    ("attach-edge", _set("dram.attach", [[0, 0], [0, 3], [1, 1], [3, 3]]),
     "arch field 'dram.attach' entry 2 = [1, 1] is not on the edge of the 4x4 "
     "grid: row must be 0 or 3, or col 0 or 3"),
    ("weight-buffers-range", _set("tile.mac.weight_buffers", 3),
     "arch field 'tile.mac.weight_buffers' = 3 is out of range: must be in "
     "[1, 2]"),
    ("weight-buffers-output-stationary",
     lambda desc: desc["tile"]["mac"].update(dataflow="output_stationary",
                                             weight_buffers=2),
     "arch field 'tile.mac.weight_buffers' = 2 needs tile.mac.dataflow = "
     "weight_stationary: an output_stationary array holds no weight block, "
     "give 1"),
]
