"""A lowering failure names the op, the line of the user's model it comes
from (not a frame inside PyTorch or Tessel) and what to do."""

import inspect

import pytest
import torch

import layers

from tessel import frontend as fe
from tessel.compiler import LoweringError, diagnostics
from tessel.driver import compile_imported

TORCH = "/venv/lib/python3.11/site-packages/torch/nn/modules/sparse.py"
WORKER = diagnostics._TESSEL + "/frontend/_worker.py"


def test_the_innermost_user_frame_and_the_library_module_are_named():
    text = (f'error: callsite("{TORCH}":189:0 at callsite("/home/me/net.py":37:0 '
            f'at callsite("/home/me/train.py":12:0 at "{WORKER}":231:0))): '
            "'arith.index_cast' op has no vector-unit lowering\n"
            f' note: callsite("{TORCH}":189:0 at "{WORKER}":231:0): see current operation')
    failure = diagnostics.parse(text)
    assert failure.user_frame == "/home/me/net.py:37"
    assert failure.library_frame == "torch/nn/modules/sparse.py:189"
    assert failure.headline() == ("/home/me/net.py:37 (inside torch/nn/modules/"
                                  "sparse.py:189): 'arith.index_cast' op has no "
                                  "vector-unit lowering")


def test_a_module_of_the_library_alone_is_named_by_its_own_line():
    failure = diagnostics.parse(
        f'error: callsite("{TORCH}":189:0 at "{WORKER}":231:0): '
        "'arith.index_cast' op has no vector-unit lowering")
    assert failure.user_frame is None
    assert failure.headline().startswith("torch/nn/modules/sparse.py:189: 'arith")


def test_text_without_an_op_error_gives_none():
    assert diagnostics.parse("Failure while executing pass pipeline") is None


def test_an_unsupported_op_in_a_model_names_the_models_line():
    model = fe.import_torch(layers.Bitwise().eval(), (torch.randint(0, 50, (2, 8)),))
    with pytest.raises(LoweringError) as raised:
        compile_imported(model, "tessel-4x4")
    source = inspect.getsourcelines(layers.Bitwise.forward)
    line = source[1] + next(i for i, text in enumerate(source[0])
                            if "the line the error names" in text)
    first, advice = str(raised.value).splitlines()[:2]
    assert first.endswith("'arith.andi' op is a bitwise operation; the vector unit "
                          "has none (only the logical and / or of comparisons lowers)")
    assert first.startswith(f"{layers.__file__}:{line}")
    assert "docs/coverage.md" in advice
