"""Tessel: an MLIR compiler for spatial ML accelerators.

    import tessel
    result = tessel.compile_and_simulate(module, (x,), arch="tessel-4x4")
    print(result.report); result.check; result.save_trace("trace.json")

Importing ``tessel`` loads no compiled code. The MLIR bindings (``tessel.ir``,
``tessel.passmanager``, ``tessel.dialects.*``) load on first use, and the parts
that execute compiled programs import nothing from MLIR, so they run where only
Python and NumPy are installed.

Re-exported here, loaded on first use: the driver (``compile``,
``compile_and_simulate``, ``load_program``, ``Options``, ``StageError``,
``SimulationResult``; docs/user-guide.md), design sweeps (``sweep``,
``tessel.sweeps``; docs/sweeps.md) and the frontend (``import_torch``,
``import_onnx``, ``import_torch_training``, ``ImportedModel``, ...) and
the errors' root (``TesselError``: every error Tessel reports derives from
it; ``tessel.errors``).
``torch.compile(model, backend="tessel")`` works once ``tessel`` is imported
(``tessel.dynamo``).
"""

__version__ = "0.1.0"

_DRIVER = ("compile", "compile_and_simulate", "load_program", "Options", "StageError",
           "SimulationResult", "Check")
_FRONTEND = ("import_torch", "import_onnx", "import_torch_training", "ImportedModel",
             "FrontendError", "run_reference", "register_decomposition",
             "import_tensorflow", "import_jax")

_SWEEPS = ("sweep",)

_ERRORS = ("TesselError", "InvalidArgumentError", "InvalidArgumentTypeError",
           "UnknownNameError", "MissingExtraError")

__all__ = ["__version__", *_DRIVER, *_FRONTEND, *_SWEEPS, *_ERRORS]


def __getattr__(name):
    if name in _ERRORS:
        from . import errors
        return getattr(errors, name)
    if name in _DRIVER:
        from . import driver
        return getattr(driver, name)
    if name in _FRONTEND:
        from . import frontend
        return getattr(frontend, name)
    if name in _SWEEPS:
        from . import sweeps
        return getattr(sweeps, name)
    raise AttributeError(f"module 'tessel' has no attribute {name!r}")


def _register_dynamo_backend() -> None:
    # A pip install registers the backend through the torch_dynamo_backends
    # entry point; a development install (a .pth to the build tree) has no
    # package metadata, so the backend is registered when TorchDynamo's
    # registry loads, without importing torch here.
    from ._dynamo_hook import install
    install()


_register_dynamo_backend()


def _bind_extensions_deep() -> None:
    # Before any of them loads: TensorFlow or jaxlib in the same process
    # must not lend them their LLVM or abseil (tessel._binding).
    from ._binding import install
    install()


_bind_extensions_deep()
