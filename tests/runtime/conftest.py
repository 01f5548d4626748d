"""Helpers shared by the runtime tests: architectures with one parameter
changed, so a closed form isolates the part of the model under test."""

import copy

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


@pytest.fixture
def make_arch():
    return arch_with
