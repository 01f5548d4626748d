"""torchvision, importable beside this project's CPU build of PyTorch.

PyPI's torchvision wheel carries compiled detection ops (``nms``,
``roi_align``, ...) built against PyPI's CUDA build of PyTorch. Beside the
CPU build they do not load, and torchvision then still registers fake
implementations of two of them, ``torchvision::nms`` and
``torchvision::qnms``: ``import torchvision`` raises ``operator
torchvision::nms does not exist``. The classification models use none of
these ops. :func:`import_torchvision` then declares the two operators'
schemas (without kernels: calling one raises PyTorch's "could not run"
error) and imports torchvision again; where the compiled ops load, it is a
plain import.
"""

from __future__ import annotations

import sys

# The schemas of torchvision's csrc/ops/nms.cpp and
# csrc/ops/quantized/cpu/qnms_kernel.cpp.
_SCHEMAS = ("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
            "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
# A Library's definitions live as long as it does.
_libraries: list = []


def import_torchvision():
    """``torchvision``, imported (see the module's docstring)."""
    try:
        import torchvision
        return torchvision
    except RuntimeError as e:
        if "torchvision::nms does not exist" not in str(e):
            raise
    import torch

    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    library = torch.library.Library("torchvision", "FRAGMENT")
    for schema in _SCHEMAS:
        library.define(schema)
    _libraries.append(library)
    import torchvision
    return torchvision
