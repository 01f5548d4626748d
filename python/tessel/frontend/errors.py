"""The frontend's errors: one hierarchy, each message naming the input, the
problem and what to do. The underlying cause stays chained (``__cause__``);
failures inside the torch-mlir process carry that process's traceback text in
``child_traceback``."""

from __future__ import annotations

from ..errors import TesselError


class FrontendError(TesselError):
    """Base class of every error the frontend raises."""

    def __init__(self, message: str, *, child_traceback: str | None = None):
        super().__init__(message)
        self.child_traceback = child_traceback
        if child_traceback:
            # Python prints the cause under the message, so the frontend
            # process's story is there for whoever debugs the importer.
            self.__cause__ = FrontendProcessTraceback(child_traceback)


class FrontendProcessTraceback(Exception):
    """The traceback text of a failure inside the frontend process, attached
    as the ``__cause__`` of the FrontendError it became."""

    def __str__(self) -> str:
        return "in the frontend process:\n" + self.args[0].rstrip()


class ModelFileError(FrontendError):
    """A model file is missing, unreadable or not a valid model."""


class ModelTransferError(FrontendError):
    """A module or its inputs cannot be sent to the frontend process."""


class TraceError(FrontendError):
    """``torch.export`` cannot capture the model as a graph."""


class UnsupportedOpError(FrontendError):
    """An op has no lowering to linalg-on-tensors, or lies outside Tessel's
    input contract. ``op`` names it; ``location`` says where it came from."""

    def __init__(self, message: str, *, op: str | None = None,
                 location: str | None = None, child_traceback: str | None = None):
        super().__init__(message, child_traceback=child_traceback)
        self.op = op
        self.location = location


class LoweringError(FrontendError):
    """torch-mlir failed to lower the model for another reason."""


class WorkerError(FrontendError):
    """The frontend process could not be started or died."""


class ImportedModelFormatError(FrontendError):
    """A saved imported model is missing a file or has an invalid field."""


class ReferenceExecutionError(FrontendError):
    """The reference execution (MLIR CPU JIT) failed or got bad arguments."""
