"""PyTorch and ONNX models (and through ONNX TensorFlow models and ``jax.jit``
functions) to linalg-on-tensors, through torch-mlir running in its own
process (the compiler process never imports ``torch_mlir``).

    model = import_torch(module, example_inputs)    # or import_onnx(path),
                                                    # import_tensorflow, import_jax
    model.mlir, model.weights, model.signature
    model.save("out/mlp"); ImportedModel.load("out/mlp")
    run_reference(model, x)                         # MLIR 22 CPU JIT of the linalg

See docs/frontend.md.
"""

from .api import (export_onnx, import_jax, import_onnx, import_tensorflow, import_torch,
                  import_torch_training, set_eval)
from .contract import check_input_contract
from .custom_ops import register_decomposition
from .errors import (FrontendError, ImportedModelFormatError, LoweringError,
                     ModelFileError, ModelTransferError, ReferenceExecutionError,
                     TraceError, UnsupportedOpError, WorkerError)
from .model import ImportedModel, Signature, TensorSpec
from .worker import shutdown, warm_up


def run_reference(model, *inputs, weights=None):
    """Execute the imported linalg with MLIR 22's CPU JIT (see ``reference``)."""
    from .reference import run_reference as run
    return run(model, *inputs, weights=weights)


__all__ = [
    "import_torch", "import_onnx", "import_torch_training", "export_onnx",
    "import_tensorflow", "import_jax", "register_decomposition", "set_eval",
    "ImportedModel", "Signature", "TensorSpec", "check_input_contract", "run_reference",
    "warm_up", "shutdown",
    "FrontendError", "ModelFileError", "ModelTransferError", "TraceError",
    "UnsupportedOpError", "LoweringError", "WorkerError", "ImportedModelFormatError",
    "ReferenceExecutionError",
]
