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
    (tessel.InvalidArgumentTypeError, TypeError)])
def test_every_error_is_a_tessel_error(error, builtin):
    assert issubclass(error, tessel.TesselError) and issubclass(error, builtin)


def test_a_bad_option_is_a_tessel_error_naming_it():
    with pytest.raises(tessel.TesselError, match="option 'arch'") as raised:
        tessel.Options(arch="tessel-9x9")
    assert isinstance(raised.value, ValueError)
    with pytest.raises(tessel.InvalidArgumentTypeError, match="unknown option 'archh'"):
        tessel.Options.make(archh="tessel-4x4")
