"""A custom operator (`torch.library.custom_op`) compiled for Tessel, for
inference and for a training step through `torch.compile`.

`mylib::swish` has its own kernel, a fake (meta) implementation for tracing
and a backward (`register_autograd`). Tessel is given a decomposition: the
same computation in PyTorch ops, which Tessel lowers. Inference is checked
against the op's kernel run eagerly; the training step's gradients, computed
by the forward and backward programs Tessel simulates, against eager
autograd through the op's own backward.

    python examples/frontends/custom_op.py [--arch tessel-16x16]
"""

import argparse

import torch

import tessel
import tessel.dynamo

# Outputs and gradients against eager PyTorch, relative to their scale.
TOLERANCE = 1e-5


@torch.library.custom_op("mylib::swish", mutates_args=())
def swish(x: torch.Tensor, beta: float) -> torch.Tensor:
    """x * sigmoid(beta * x), computed by the op's own kernel."""
    return x / (1 + torch.exp(-beta * x))


@swish.register_fake
def _(x, beta):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, beta = inputs
    ctx.save_for_backward(x)
    ctx.beta = beta


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    s = torch.sigmoid(ctx.beta * x)
    return grad * (s + ctx.beta * x * s * (1 - s)), None


swish.register_autograd(_backward, setup_context=_setup_context)


@tessel.register_decomposition(swish)
def _(x, beta):
    # What Tessel compiles for each call of mylib::swish.
    return x * torch.sigmoid(beta * x)


class SwishMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(swish(self.fc1(x), 1.5))


def _relative_error(got, expected) -> float:
    return float((got - expected).abs().max() / expected.abs().max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="tessel-4x4")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = SwishMLP()
    x = torch.randn(16, 64)

    # Inference: checked by the driver against the module run eagerly.
    result = tessel.compile_and_simulate(model.eval(), (x,), arch=args.arch)
    print(result.check)

    # A training step: the forward and the backward graph each run on Tessel.
    model.train()
    compiled = torch.compile(model, backend=tessel.dynamo.backend(arch=args.arch))
    compiled(x).square().mean().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    model(x).square().mean().backward()
    errors = {n: _relative_error(grads[n], p.grad) for n, p in model.named_parameters()}
    worst = max(errors, key=errors.get)
    roles = [s.role for s in tessel.dynamo.stats()]

    passed = result.check.passed and errors[worst] <= TOLERANCE
    print(f"{'PASS' if passed else 'FAIL'}: inference against eager PyTorch "
          f"({result.cycles} cycles on {args.arch}); gradients of the "
          f"{' and '.join(roles)} graphs against eager autograd, largest error / scale "
          f"{errors[worst]:.2e} ({worst}; tolerance {TOLERANCE:g})")
    if not passed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
