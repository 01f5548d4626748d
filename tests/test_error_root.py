"""Every error Tessel reports derives from tessel.TesselError, keeping its
built-in base for code that catches that."""

import pytest

import tessel
from tessel.arch.model import ArchError
from tessel.compiler.emit import EmitError
from tessel.compiler.lower import LoweringError
from tessel.driver.commands import SideFileError
from tessel.driver.errors import StageError
from tessel.frontend.errors import FrontendError, UnsupportedOpError
from tessel.mapper.apply import UnsupportedMapping
from tessel.mapper.graph import GraphError
from tessel.report import ReportError
from tessel.report.plots import PlotsUnavailable
from tessel.runtime.emulator.errors import EmulationError
from tessel.runtime.isa import DecodeError
from tessel.runtime.program import ProgramError
from tessel.runtime.simulator import DeadlockError, SimulationError


@pytest.mark.parametrize("error, builtin", [
    (ArchError, ValueError), (EmitError, ValueError), (LoweringError, RuntimeError),
    (SideFileError, ValueError), (StageError, RuntimeError), (FrontendError, Exception),
    (UnsupportedOpError, Exception), (UnsupportedMapping, ValueError),
    (GraphError, ValueError), (PlotsUnavailable, ImportError),
    (EmulationError, RuntimeError), (DecodeError, ValueError),
    (ProgramError, ValueError), (SimulationError, RuntimeError),
    (DeadlockError, RuntimeError), (tessel.InvalidArgumentError, ValueError),
    (tessel.InvalidArgumentTypeError, TypeError), (tessel.UnknownNameError, KeyError),
    (tessel.MissingExtraError, ModuleNotFoundError), (ReportError, ValueError)])
def test_every_error_is_a_tessel_error(error, builtin):
    assert issubclass(error, tessel.TesselError) and issubclass(error, builtin)


def test_a_bad_option_is_a_tessel_error_naming_it():
    with pytest.raises(tessel.TesselError, match="option 'arch'") as raised:
        tessel.Options(arch="tessel-9x9")
    assert isinstance(raised.value, ValueError)
    with pytest.raises(tessel.InvalidArgumentTypeError, match="unknown option 'archh'"):
        tessel.Options.make(archh="tessel-4x4")


def _one_input_program():
    import numpy as np

    from tessel import arch as arch_model
    from tessel.runtime.builder import ProgramBuilder, dram, sram

    b = ProgramBuilder(arch_model.load("tessel-4x4"))
    x = b.add_buffer("x", "input", (4,), "f32")
    y = b.add_buffer("y", "output", (4,), "f32")
    t = b.tile(0, 0, tokens=1)
    t.dma(0, 0, "f32", (4,), dram(x.offset, (1,)), sram(0, (1,)))
    t.wait(0)
    t.dma(0, 0, "f32", (4,), sram(0, (1,)), dram(y.offset, (1,)))
    t.wait(0)
    return b.build(), np.ones(4, np.float32)


def test_a_wrong_number_of_inputs_is_a_tessel_error_naming_them():
    program, x = _one_input_program()
    with pytest.raises(tessel.InvalidArgumentError,
                       match=r"2 inputs given, the program takes 1: x; pass one array "
                             r"per input") as raised:
        program.simulate([x, x])
    assert isinstance(raised.value, ValueError)
    assert program.simulate([x]).outputs["y"].tolist() == [1, 1, 1, 1]


def test_unknown_names_are_tessel_errors_listing_the_known_ones():
    from tessel import zoo

    program, _ = _one_input_program()
    with pytest.raises(tessel.UnknownNameError) as raised:
        program.buffer("nope")
    assert isinstance(raised.value, KeyError)
    assert str(raised.value) == "program has no DRAM buffer 'nope' (its buffers: x, y)"
    with pytest.raises(tessel.UnknownNameError, match=r"tile \(3, 3\) runs no code in "
                       r"this program \(the tiles that do: \(0, 0\)\)"):
        program.tile(3, 3)
    with pytest.raises(tessel.UnknownNameError, match=r"no zoo case 'nope'; known: .*mlp"):
        zoo.get("nope")
