"""Custom operators (``torch.library.custom_op``) made compilable: the user
registers a decomposition, a function computing the op from ops Tessel
lowers (ATen, other decomposed custom ops), and the capture replaces every
call of the op by it before the program leaves the user's process.

    @torch.library.custom_op("mylib::swish", mutates_args=())
    def swish(x: torch.Tensor, beta: float) -> torch.Tensor: ...

    @tessel.register_decomposition(swish)
    def _(x, beta):
        return x * torch.sigmoid(beta * x)

The decomposition runs where the op would: in ``tessel.import_torch``,
``compile_and_simulate`` and ``torch.compile(backend="tessel")``, whose
training graphs call the op in the forward and whatever the op's
``register_autograd`` backward calls in the backward. The op's own kernel
stays what eager PyTorch (the golden reference) runs. Needs only torch.
"""

from __future__ import annotations

import threading

from ..errors import InvalidArgumentTypeError

_LOCK = threading.Lock()
_DECOMPOSITIONS: dict = {}


def _overloads(op) -> list:
    """The ``OpOverload``s ``op`` stands for: a ``custom_op`` (its one
    overload), an ``OpOverloadPacket`` (every overload) or an
    ``OpOverload``."""
    import torch

    if isinstance(op, torch._ops.OpOverload):
        return [op]
    if isinstance(op, torch._ops.OpOverloadPacket):
        return [getattr(op, name) for name in op.overloads()]
    overload = getattr(op, "_opoverload", None)      # torch.library.custom_op
    if isinstance(overload, torch._ops.OpOverload):
        return [overload]
    raise InvalidArgumentTypeError(
        f"register_decomposition: {op!r} is a {type(op).__name__}, not an operator; pass "
        f"the op that torch.library.custom_op returned or torch.ops.<namespace>.<name>")


def register_decomposition(op, fn=None):
    """Register ``fn(*args, **kwargs)`` as Tessel's lowering of ``op``,
    called with the op's arguments and returning what the op returns.
    Used as a decorator when ``fn`` is left out. Registering again replaces
    the previous decomposition."""
    overloads = _overloads(op)
    for overload in overloads:
        if overload.namespace in ("aten", "prims"):
            raise InvalidArgumentTypeError(
                f"register_decomposition: {overload} is a PyTorch operator, which Tessel "
                f"lowers itself; register decompositions for custom operators "
                f"(torch.library.custom_op) only")

    def register(function):
        if not callable(function):
            raise InvalidArgumentTypeError(
                f"register_decomposition({overloads[0]}): the decomposition is a "
                f"{type(function).__name__}, not a function")
        with _LOCK:
            for overload in overloads:
                _DECOMPOSITIONS[overload] = function
        return function

    return register if fn is None else register(fn)


def decompositions() -> dict:
    """A copy of the registered decompositions, by ``OpOverload``."""
    with _LOCK:
        return dict(_DECOMPOSITIONS)


def is_custom(target) -> bool:
    """Whether an FX node's target is an operator neither PyTorch nor its
    primitives define (a ``torch.library`` op)."""
    import torch

    return (isinstance(target, torch._ops.OpOverload)
            and target.namespace not in ("aten", "prims", "_c10d_functional",
                                         "higher_order"))
