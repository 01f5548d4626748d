"""Helpers shared by the runtime tests: architectures with one parameter
changed, so a closed form isolates the part of the model under test; the
hand-scheduled programs of bench/simulator.py."""

import copy
import importlib.util
from pathlib import Path

import pytest

from tessel import arch as arch_model


def arch_with(name: str = "tessel-4x4", **changes) -> arch_model.Arch:
    """A preset with dotted fields replaced: ``arch_with(**{"dram.bytes_per_cycle": 8})``."""
    desc = copy.deepcopy(arch_model.load(name).to_dict())
    for path, value in changes.items():
        node = desc
        *parts, leaf = path.split(".")
        for p in parts:
            node = node[p]
        node[leaf] = value
    desc["name"] = name + "-test"
    return arch_model.Arch.from_dict(desc)


def with_weight_buffers(program, buffers: int):
    """``program`` with its arch's MAC array holding ``buffers`` weight
    blocks (1 is the timing model before ``tile.mac.weight_buffers``)."""
    desc = program.arch.to_dict()
    desc["tile"]["mac"]["weight_buffers"] = buffers
    program.arch = arch_model.Arch.from_dict(desc)
    return program


@pytest.fixture
def set_weight_buffers():
    return with_weight_buffers


@pytest.fixture
def make_arch():
    return arch_with


BENCH = Path(__file__).resolve().parents[2] / "bench" / "simulator.py"


@pytest.fixture(scope="module")
def bench():
    """bench/simulator.py as a module (its program builders)."""
    spec = importlib.util.spec_from_file_location("bench_simulator", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
