"""How close the compiled programs come to the chip's bound: simulated cycles
against the attainable bound, DRAM traffic against the compulsory traffic,
NoC traffic and MAC utilization, per workload and arch. Utilization alone
hides whether a workload could do better; the bound says how far it is.

Each workload is imported once (PyTorch), then per arch compiled with the
chosen mapper (``compile_imported(model, arch, mapper=...)``, CP-SAT by
default) and simulated for timing only (``simulate(program,
numerics=False)``). One row per (workload, arch):

- ``cycles``: the simulated cycles of the program.
- ``bound``: ``max(MACs / (tiles x tile.mac.macs_per_cycle[dtype]),
  compulsory DRAM bytes / (dram.channels x dram.bytes_per_cycle))``, with
  ``tiles`` all the tiles of the grid. ``MACs`` are the model's: the sum
  of the MACs of its ops as the mapper's graph reads them from the
  legalized module (``op.macs``, each op at the rate of its dtype), not
  what the program executed, so a mapping that wastes MACs (a convolution
  streaming over padding columns) does not raise its own bound. ``bound
  by`` says which term is larger (``mac`` or ``dram``).
- ``compulsory bytes``: every ``input``, ``weight``, ``constant`` and
  ``output`` DRAM buffer of the program (its manifest's buffers by kind)
  moved once; ``scratch`` buffers are intermediates and do not count.
- ``/bound``: cycles / bound (1.0 is the bound reached).
- ``DRAM/comp``: the DRAM bytes the simulator moved (read + written,
  ``result.bytes["dram"]``) / compulsory bytes.
- ``NoC``: ``result.bytes["noc"]``, the bytes of the transfers that cross
  at least one NoC link (DRAM transfers routed over the mesh included);
  ``link``: ``result.bytes["noc_link"]``, bytes x links crossed.
- ``MAC util``: the simulator's MAC utilization, MACs / (peak per tile x
  tiles x cycles).
- ``compile s``: seconds of ``compile_imported`` (map, lower, emit); the
  import and the simulation are timed apart (``import_s``, ``sim_s`` in the
  JSON).

Workloads: ``gemm1024`` (``x @ w``, 1024 x 1024 x 1024: ``Linear(1024,
1024, bias=False)`` on 1024 x 1024), ``resnet18_conv2`` (``Conv2d(64, 64, 3,
padding=1, bias=False)`` on 1 x 64 x 56 x 56), ``bert_ffn1`` (``Linear(768,
3072)`` on 512 x 768), ``conv1x1`` (``Conv2d(64, 256, 1, bias=False)`` on
1 x 64 x 56 x 56), ``bert_ffn2`` (``Linear(3072, 768)`` on 512 x 3072),
``gemm256`` (``Linear(256, 256, bias=False)`` on 256 x 256), the chains
whose intermediates could stay on chip:
``bert_ffn`` (``Linear(768, 3072)``, GELU, ``Linear(3072, 768)`` on 512 x
768) and ``resnet18_stage1`` (two 64-channel basic blocks on 1 x 64 x 56 x
56), ``bert_ffn_stream8`` (8 inputs of ``bert_ffn`` compiled as a stream,
mapped for throughput with weights allowed to stay resident: the row is
per input, cycles / 8 against one input's bound without the weights),
then every zoo case
(``tessel.zoo.names()``, training steps included). A workload that does not import or compile is reported
with the first line of its error and the run goes on. Rows are printed as
they complete.

    python bench/spatial.py [--workloads gemm1024,mlp] [--archs tessel-4x4,...]
                            [--dtypes f32,bf16]
                            [--mapper default|heuristic|cpsat] [--time-limit 10]
                            [--no-on-chip] [--json rows.json] [--compare old.json]

``--dtypes f32,bf16`` imports each workload in each element type (the
module and its inputs converted with ``.to()``); a bf16 row is named
``workload:bf16``, its MACs at the arch's bf16 rate in the bound; ``i8``
quantizes the f32 model with onnxruntime (QDQ) and imports the ONNX file;
``i8io`` is that model with int8 inputs and outputs (its first
quantizations and last dequantizations left out), as a layer inside an
int8 network runs; ``pt2e`` quantizes it with PyTorch's PT2E (torchao,
XNNPACK's symmetric per-channel int8 config).

``--no-on-chip`` has the mapper store every result to DRAM
(``MapperOptions.on_chip``), for the figures without results kept on chip.

``--json`` writes every row (a list of dicts; rewritten after each row, so
an interrupted run keeps what it finished); ``--compare OLD.json`` prints,
per row, old -> new cycles and new / old, both against the new row's bound
(the model's), and flags the rows that got slower (or that no longer
compile).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import torch

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel import zoo
from tessel.driver import compile_imported
from tessel.compiler.lower import parse_imported
from tessel.ir import Context
from tessel.mapper import MapperOptions, graph, legalize
from tessel.mapper.cost import mac_dtype
from tessel.runtime.simulator import simulate

COMPULSORY_KINDS = ("input", "weight", "constant", "output")


# ---------------------------------------------------------------------------
# Workloads.
# ---------------------------------------------------------------------------

def _layer(module_fn, *shape):
    def build():
        torch.manual_seed(0)
        return module_fn(), (torch.randn(*shape),)
    return build


class _BasicBlock(torch.nn.Module):
    """ResNet's basic block at 64 channels (torchvision's, without the
    import): conv, batch norm, ReLU, conv, batch norm, the identity added,
    ReLU."""

    def __init__(self):
        super().__init__()
        conv = lambda: torch.nn.Conv2d(64, 64, 3, padding=1, bias=False)  # noqa: E731
        self.conv1, self.bn1 = conv(), torch.nn.BatchNorm2d(64)
        self.conv2, self.bn2 = conv(), torch.nn.BatchNorm2d(64)

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(h)) + x)


def _bert_ffn():
    return torch.nn.Sequential(torch.nn.Linear(768, 3072), torch.nn.GELU(),
                               torch.nn.Linear(3072, 768))


LAYERS = {
    "gemm1024": _layer(lambda: torch.nn.Linear(1024, 1024, bias=False), 1024, 1024),
    "resnet18_conv2": _layer(lambda: torch.nn.Conv2d(64, 64, 3, padding=1, bias=False),
                             1, 64, 56, 56),
    "bert_ffn1": _layer(lambda: torch.nn.Linear(768, 3072), 512, 768),
    "conv1x1": _layer(lambda: torch.nn.Conv2d(64, 256, 1, bias=False), 1, 64, 56, 56),
    "bert_ffn2": _layer(lambda: torch.nn.Linear(3072, 768), 512, 3072),
    "gemm256": _layer(lambda: torch.nn.Linear(256, 256, bias=False), 256, 256),
    # Chains whose intermediates could stay on chip.
    "bert_ffn": _layer(_bert_ffn, 512, 768),
    "resnet18_stage1": _layer(lambda: torch.nn.Sequential(_BasicBlock(), _BasicBlock()),
                              1, 64, 56, 56),
}
# A stream of inputs through one model, its weights loaded once (the
# mapper maps it for throughput, weights allowed to stay resident): the row
# is per input, against the per-input bound without the weights.
STREAMS = {"bert_ffn_stream8": ("bert_ffn", 8)}


def workload_names() -> list[str]:
    return list(LAYERS) + list(STREAMS) + zoo.names()


# The element types a workload can be imported in: the model and its
# inputs converted with ``.to()``; i8 exports the f32 model to ONNX and
# quantizes it with onnxruntime's quantize_static (QDQ, int8 activations,
# per-channel int8 weights, calibrated on 4 random inputs); i8io takes and
# gives the int8 values.
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "i8": None, "i8io": None,
          "pt2e": None}


def row_name(name: str, dtype: str) -> str:
    """The workload's name in a row: ``gemm1024``, ``gemm1024:bf16``."""
    return name if dtype == "f32" else f"{name}:{dtype}"


def import_workload(name: str, dtype: str = "f32"):
    """The imported model of workload ``name`` (of its model, for a stream)
    in ``dtype`` (one of DTYPES)."""
    name = STREAMS.get(name, (name,))[0]
    if name in LAYERS:
        module, inputs = LAYERS[name]()
    else:
        case = zoo.get(name)
        built = case.build()
        if case.training:
            if dtype != "f32":
                raise ValueError(f"{name} is a training step: f32 only")
            module, loss_fn, inputs, targets = built
            return fe.import_torch_training(module, loss_fn, inputs, targets, name=name)
        module, inputs = built
    fe.set_eval(module)
    if dtype in ("i8", "i8io"):
        return _import_quantized(module, inputs, name, int8_io=dtype == "i8io")
    if dtype == "pt2e":
        return fe.import_torch(_pt2e_quantized(module, inputs), inputs, name=name)
    if dtype != "f32":
        module = module.to(DTYPES[dtype])
        inputs = tuple(x.to(DTYPES[dtype]) if x.is_floating_point() else x for x in inputs)
    return fe.import_torch(module, inputs, name=name)


def _pt2e_quantized(module, inputs):
    """``module`` quantized with PT2E as the zoo's int8 cases are
    (XNNPACK's symmetric per-channel int8 config), calibrated on 4 random
    inputs."""
    return zoo.cases.in_int8((module, inputs), calibration=4)[0]


def _int8_io(graph) -> None:
    """``graph`` (QDQ) taking and giving int8 values: each input's
    QuantizeLinear and each output's DequantizeLinear left out, the name of
    the value it skips given to the other side."""
    import onnx

    ends = {"QuantizeLinear": {i.name: i for i in graph.input},
            "DequantizeLinear": {o.name: o for o in graph.output}}
    for node in list(graph.node):
        if node.op_type not in ends:
            continue
        # The graph's value (an input, an output) and the one it stands for.
        ours, other = ((node.input[0], node.output[0]) if node.op_type == "QuantizeLinear"
                       else (node.output[0], node.input[0]))
        if ours not in ends[node.op_type]:
            continue
        readers = [n.op_type for n in graph.node if ours in n.input]
        if readers != [node.op_type] and node.op_type == "QuantizeLinear":
            raise ValueError(f"input {ours} is read by {', '.join(readers)}, not only "
                             f"by its quantization: the model has no int8 form")
        for n in graph.node:
            for names in (n.input, n.output):
                names[:] = [ours if x == other else x for x in names]
        ends[node.op_type][ours].type.tensor_type.elem_type = onnx.TensorProto.INT8
        graph.node.remove(node)


def _import_quantized(module, inputs, name: str, int8_io: bool = False):
    """``module`` exported to ONNX, quantized by onnxruntime (QDQ, int8),
    imported; with ``int8_io``, taking and giving int8 values
    (:func:`_int8_io`)."""
    import tempfile

    import onnx

    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                          QuantType, quantize_static)

    class Calibration(CalibrationDataReader):
        def __init__(self):
            g = torch.Generator().manual_seed(1)
            self.batches = iter([{f"x{i}": torch.randn(*x.shape, generator=g).numpy()
                                  for i, x in enumerate(inputs)} for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        path, qpath = Path(tmp) / f"{name}.onnx", Path(tmp) / f"{name}_q.onnx"
        torch.onnx.export(module, inputs, str(path), dynamo=False, opset_version=17,
                          input_names=[f"x{i}" for i in range(len(inputs))])
        quantize_static(str(path), str(qpath), Calibration(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QInt8,
                        weight_type=QuantType.QInt8)
        if int8_io:
            model = onnx.load(str(qpath))
            _int8_io(model.graph)
            onnx.save(model, str(qpath))
        return fe.import_onnx(qpath, name=name)


# ---------------------------------------------------------------------------
# One row.
# ---------------------------------------------------------------------------

def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    for line in text:
        if "error:" in line:
            return line.strip()[:200]
    return (f"{type(e).__name__}: {text[0]}" if text else type(e).__name__)[:200]


def compulsory_bytes(program) -> int:
    return sum(b.nbytes for b in program.buffers if b.kind in COMPULSORY_KINDS)


def model_mac_cycles(model, arch) -> tuple[int, float]:
    """The model's MACs and their cycles at the grid's peak rate, from the
    mapper's graph of the legalized module."""
    with Context():
        module = parse_imported(model.mlir, arch, model.signature)
        legalize(module)
        ops = graph.from_module(module).ops
    macs = sum(op.macs for op in ops)
    return macs, sum(op.macs / (arch.num_tiles
                                * arch.tile.mac.macs_per_cycle.get(mac_dtype(op), 1))
                     for op in ops)


def measure(program, result, arch, mac_cycles: tuple[int, float]) -> dict:
    """The row's figures from a program, its timing-only simulation and the
    model's MACs (:func:`model_mac_cycles`)."""
    macs, compute = mac_cycles
    comp = compulsory_bytes(program)
    dram = comp / (arch.dram.channels * arch.dram.bytes_per_cycle)
    bound = max(compute, dram)
    return {
        "cycles": result.cycles,
        "bound": bound,
        "bound_by": "mac" if compute >= dram else "dram",
        "compute_bound": compute,
        "dram_bound": dram,
        "cycles_over_bound": result.cycles / bound if bound else None,
        "macs": macs,
        "executed_macs": sum(s.macs for s in result.tiles.values()),
        "compulsory_bytes": comp,
        "dram_bytes": result.bytes["dram"],
        "dram_read": result.bytes["dram_read"],
        "dram_write": result.bytes["dram_write"],
        "dram_over_compulsory": result.bytes["dram"] / comp if comp else None,
        "noc_bytes": result.bytes["noc"],
        "noc_link_bytes": result.bytes["noc_link"],
        "mac_util": result.mac_utilization,
        "tiles_used": len(program.tiles),
        "instructions": result.instructions,
    }


def per_input(row: dict, program, arch, stream: int) -> dict:
    """A stream's row per input: its cycles / ``stream`` against the bound of
    one input with the weights resident: its MACs at peak, or its inputs and
    outputs moved once at full DRAM bandwidth."""
    moved = sum(b.nbytes for b in program.buffers if b.kind in ("input", "output"))
    dram = moved / stream / (arch.dram.channels * arch.dram.bytes_per_cycle)
    bound = max(row["compute_bound"], dram)
    cycles = row["cycles"] / stream
    return {**row, "stream": stream, "stream_cycles": row["cycles"],
            "cycles": round(cycles), "bound": bound, "dram_bound": dram,
            "bound_by": "mac" if row["compute_bound"] >= dram else "dram",
            "cycles_over_bound": cycles / bound}


def run_row(name, model, import_s, arch_name, mapper, options) -> dict:
    row = {"workload": name, "arch": arch_name, "mapper": mapper,
           "import_s": import_s}
    arch = arch_model.load(arch_name)
    stream = STREAMS.get(name, (name, 1))[1]
    if stream > 1 and options is not None:
        options = dataclasses.replace(options, objective="throughput",
                                      resident_weights=True)
    t = time.perf_counter()
    try:
        program = compile_imported(model, arch_name, mapper=mapper,
                                   mapper_options=options, stream=stream)
    except Exception as e:
        row.update(error=f"does not compile: {first_line(e)}",
                   compile_s=time.perf_counter() - t)
        return row
    row["compile_s"] = time.perf_counter() - t
    t = time.perf_counter()
    try:
        result = simulate(program, numerics=False)
    except Exception as e:
        row.update(error=f"does not simulate: {first_line(e)}",
                   sim_s=time.perf_counter() - t)
        return row
    row["sim_s"] = time.perf_counter() - t
    row.update(measure(program, result, arch, model_mac_cycles(model, arch)))
    return per_input(row, program, arch, stream) if stream > 1 else row


# ---------------------------------------------------------------------------
# Printing.
# ---------------------------------------------------------------------------

def _si(n) -> str:
    n = float(n)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f}{unit}"
    return f"{n:.0f}"


HEADER = (f"{'workload':<18} {'arch':<13} {'cycles':>10} {'bound':>10} {'by':>4} "
          f"{'/bound':>7} {'DRAM/comp':>9} {'NoC':>8} {'link':>8} "
          f"{'MAC util':>8} {'compile s':>9}")


def format_row(row: dict) -> str:
    head = f"{row['workload']:<18} {row['arch']:<13}"
    if "error" in row:
        return f"{head} {row['error']}"
    ratio = row["cycles_over_bound"]
    dram = row["dram_over_compulsory"]
    return (f"{head} {row['cycles']:>10} {row['bound']:>10.0f} {row['bound_by']:>4} "
            f"{(f'{ratio:.2f}' if ratio is not None else '-'):>7} "
            f"{(f'{dram:.2f}' if dram is not None else '-'):>9} "
            f"{_si(row['noc_bytes']):>8} {_si(row['noc_link_bytes']):>8} "
            f"{100 * row['mac_util']:>7.1f}% {row['compile_s']:>9.1f}")


def compare(old_rows: list[dict], new_rows: list[dict]) -> int:
    """Prints old -> new cycles per row; the number of rows that got slower
    or stopped compiling."""
    old = {(r["workload"], r["arch"]): r for r in old_rows}
    mappers = ({r.get("mapper") for r in old_rows}, {r.get("mapper") for r in new_rows})
    if mappers[0] != mappers[1]:
        print(f"\nold mapper {', '.join(sorted(map(str, mappers[0])))}, "
              f"new mapper {', '.join(sorted(map(str, mappers[1])))}")
    print(f"\n{'workload':<18} {'arch':<13} {'old cycles':>10}    {'new cycles':>10} "
          f"{'new/old':>8}  {'old/bound':>9} {'new/bound':>9}")
    worse = 0
    for r in new_rows:
        o = old.get((r["workload"], r["arch"]))
        head = f"{r['workload']:<18} {r['arch']:<13}"
        if o is None:
            print(f"{head} {'-':>10}    {r.get('cycles', '-'):>10}   (no old row)")
            continue
        if "error" in r:
            flag = "" if "error" in o else "   FAILS NOW"
            worse += bool(flag)
            print(f"{head} {o.get('cycles', '-'):>10} -> {'-':>10}{flag}  ({r['error']})")
            continue
        if "error" in o:
            print(f"{head} {'-':>10} -> {r['cycles']:>10}   compiles now")
            continue
        ratio = r["cycles"] / o["cycles"] if o["cycles"] else float("inf")
        flag = "   SLOWER" if r["cycles"] > o["cycles"] else ""
        worse += bool(flag)
        # The bound is the model's, the same for both runs: the new row's
        # (an old run may have counted the MACs it executed instead).
        bound = r.get("bound")
        ob, nb = (o["cycles"] / bound, r["cycles"] / bound) if bound else (None, None)
        print(f"{head} {o['cycles']:>10} -> {r['cycles']:>10} {ratio:>7.3f}x  "
              f"{(f'{ob:.2f}' if ob else '-'):>9} {(f'{nb:.2f}' if nb else '-'):>9}{flag}")
    print(f"{worse} row(s) slower or failing" if worse else "no row slower")
    return worse


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", default=",".join(workload_names()),
                        help="comma-separated (default: the layers, then every zoo case)")
    parser.add_argument("--archs", default="tessel-4x4,tessel-16x16")
    parser.add_argument("--mapper", default="cpsat",
                        choices=("default", "heuristic", "cpsat"))
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="CP-SAT's limit per solve (MapperOptions.time_limit_s)")
    parser.add_argument("--no-on-chip", dest="on_chip", action="store_false",
                        help="every result between ops through DRAM "
                             "(MapperOptions.on_chip off)")
    parser.add_argument("--dtypes", default="f32",
                        help=f"comma-separated element types to import each workload in "
                             f"({', '.join(DTYPES)}; default f32); a row of another "
                             f"than f32 is named workload:dtype")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--compare", type=Path,
                        help="rows of an earlier --json run to compare against")
    args = parser.parse_args(argv)
    names = [n for n in args.workloads.split(",") if n]
    known = set(workload_names())
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: "
                     f"{', '.join(workload_names())}")
    archs = [a for a in args.archs.split(",") if a]
    dtypes = [d for d in args.dtypes.split(",") if d]
    if any(d not in DTYPES for d in dtypes):
        parser.error(f"--dtypes: {args.dtypes!r}; known: {', '.join(DTYPES)}")
    options = (MapperOptions(time_limit_s=args.time_limit, on_chip=args.on_chip)
               if args.mapper != "default" else None)

    import tessel
    print(f"tessel from {os.path.dirname(tessel.__file__)}, mapper {args.mapper}")
    print(HEADER, flush=True)
    rows: list[dict] = []

    def keep(row):
        rows.append(row)
        print(format_row(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1) + "\n")

    for name in names:
        for dtype in dtypes:
            t = time.perf_counter()
            try:
                model = import_workload(name, dtype)
            except Exception as e:
                for arch_name in archs:
                    keep({"workload": row_name(name, dtype), "arch": arch_name,
                          "mapper": args.mapper, "error": f"does not import: {first_line(e)}"})
                continue
            import_s = time.perf_counter() - t
            for arch_name in archs:
                row = run_row(name, model, import_s, arch_name, args.mapper, options)
                keep({**row, "workload": row_name(name, dtype), "dtype": dtype})
    if args.compare:
        return 1 if compare(json.loads(args.compare.read_text()), rows) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
