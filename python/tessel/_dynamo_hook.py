"""Registers the ``tessel`` TorchDynamo backend as soon as TorchDynamo's
backend registry is imported (or now, if it already is), so that
``torch.compile(model, backend="tessel")`` works after ``import tessel``
whichever of torch and tessel is imported first. Imports nothing of torch
itself: ``import tessel`` stays light."""

from __future__ import annotations

import importlib.abc
import sys

REGISTRY = "torch._dynamo.backends.registry"
NAME = "tessel"


def _backend(gm, example_inputs):
    # Loaded on first use: tessel.dynamo imports torch.
    from .dynamo import tessel_backend
    return tessel_backend(gm, example_inputs)


def _register(registry) -> None:
    if NAME not in registry._COMPILER_FNS:
        registry.register_backend(compiler_fn=_backend, name=NAME)


class _RegistryWatcher(importlib.abc.MetaPathFinder):
    """Wraps the loader of the registry module to register once it ran."""

    def find_spec(self, fullname, path, target=None):
        if fullname != REGISTRY:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _RegisteringLoader(spec.loader)
                return spec
        return None


class _RegisteringLoader(importlib.abc.Loader):
    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _register(module)


def install() -> None:
    if REGISTRY in sys.modules:
        _register(sys.modules[REGISTRY])
    elif not any(isinstance(f, _RegistryWatcher) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegistryWatcher())
