"""The driver's options: one frozen, validated dataclass, so a compile is
described by a value that can be printed, compared and hashed (the
TorchDynamo backend keys its cache on it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError, InvalidArgumentTypeError
from .. import arch as arch_model
from ..frontend.api import check_keep_f32
from .check import DEFAULT_SCALE_RTOL

MAPPERS = ("cpsat", "heuristic", "exhaustive", "default")
OBJECTIVES = ("latency", "throughput")


@dataclass(frozen=True)
class Options:
    """How to compile and simulate.

    - ``arch``: a preset name, a YAML path or an :class:`~tessel.arch.Arch`
      (stored as the loaded ``Arch``).
    - ``mapper``: ``cpsat`` (OR-tools; the greedy mapping where OR-tools is
      missing), ``heuristic`` (greedy), ``exhaustive`` (small graphs) or
      ``default`` (tessel-default-mapping: every op on the whole grid).
    - ``objective``, ``max_stages``, ``resident_weights``,
      ``mapper_time_limit_s``: the mapper's (docs/mapper.md); resident
      weights (throughput only) stay in SRAM over a stream of inputs.
    - ``stream``: inputs the program computes one after another, the
      mapping's pipeline stages overlapping (docs/lowering.md). The example
      inputs are the first; the others are random (seed = their index).
      Every input's outputs are checked; the first input's are returned.
    - ``trace``: record the simulator's trace (``save_trace``, per-layer
      time spans); costs some simulation time.
    - ``check``: compare the outputs with the model's own reference
      (PyTorch eager, onnxruntime): element by element at ``rtol``/``atol``,
      and the largest error at most ``scale_rtol`` of the output's largest
      magnitude (``tessel.driver.check``); a bfloat16 output's at least
      bf16's (``check.BF16_TOLERANCE``).
    - ``progress``: print each stage and its time on stderr.
    - ``failure_dir``: where a failed stage keeps its IR (default: a fresh
      temporary directory).
    - ``dump_ir``: a directory to write the IR into after each stage:
      ``00-imported.mlir`` (the imported model as the compile parses it,
      with the arch), ``01-mapped.mlir`` (after the mapper; none with
      ``mapper="default"``, whose mapping is a pass of the lowering) and
      ``02-lowered.mlir`` (the ``tessel.device`` the emitter reads), with
      locations, and the bytes of each weight buffer of the lowered device
      (``weights/<name>.bin``); files of an earlier compile there are removed
      first. ``tessel-opt 01-mapped.mlir -tessel-lowering-pipeline`` (with
      ``=stream=N`` when ``stream`` is N > 1; from ``00-imported.mlir`` with
      the default mapper) gives the lowered IR, and ``tessel-translate
      --tessel-to-program --weights DIR/weights -o P`` the program from it. Under ``torch.compile`` each graph
      writes into ``DIR/<role>_<key>``.
    - ``name``: the model's name in reports and file names.
    - ``keep_f32``: ATen ops (``("gelu",)``, by their name in
      ``torch.ops.aten``) that a bf16 or f16 PyTorch model computes in f32,
      rounding their results back (mixed precision; docs/lowering.md,
      *bfloat16*).
    """

    arch: Any = arch_model.DEFAULT_ARCH
    mapper: str = "cpsat"
    objective: str = "latency"
    max_stages: int = 1
    resident_weights: bool = False
    stream: int = 1
    mapper_time_limit_s: float = 10.0
    trace: bool = True
    check: bool = True
    rtol: float = 1e-4
    atol: float = 1e-4
    scale_rtol: float = DEFAULT_SCALE_RTOL
    progress: bool = False
    failure_dir: str | None = None
    dump_ir: str | None = None
    name: str | None = None
    keep_f32: tuple[str, ...] = ()

    def __post_init__(self):
        try:
            target = arch_model.load(self.arch)
        except arch_model.ArchError as e:
            raise InvalidArgumentError(f"option 'arch': {e}") from None
        object.__setattr__(self, "arch", target)
        _one_of("mapper", self.mapper, MAPPERS)
        _one_of("objective", self.objective, OBJECTIVES)
        for name in ("max_stages", "stream"):
            if not _is_int(getattr(self, name)) or getattr(self, name) < 1:
                raise InvalidArgumentError(f"option {name!r} must be an integer >= 1, got "
                                 f"{getattr(self, name)!r}")
        for name in ("mapper_time_limit_s", "rtol", "atol", "scale_rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or value < 0 or value != value:
                raise InvalidArgumentError(f"option {name!r} must be a number >= 0, got {value!r}")
        for name in ("resident_weights", "trace", "check", "progress"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgumentError(f"option {name!r} must be True or False, got "
                                 f"{getattr(self, name)!r}")
        if self.resident_weights and self.objective != "throughput":
            raise InvalidArgumentError("option 'resident_weights' pays off only over a "
                             "stream of inputs: use objective='throughput'")
        for name in ("failure_dir", "dump_ir"):
            if getattr(self, name) is not None:
                path = Path(getattr(self, name))
                if path.exists() and not path.is_dir():
                    raise InvalidArgumentError(f"option {name!r}: {path} is a file; name a "
                                               f"directory (made if missing)")
                object.__setattr__(self, name, str(path))
        if self.name is not None and (not isinstance(self.name, str) or not self.name):
            raise InvalidArgumentError(f"option 'name' must be a non-empty string, got {self.name!r}")
        try:
            object.__setattr__(self, "keep_f32", check_keep_f32(self.keep_f32))
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"option {e}") from None

    @classmethod
    def make(cls, **options) -> "Options":
        """Options from keyword arguments; an unknown one is named with the
        known ones."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidArgumentTypeError(f"unknown option {unknown[0]!r}; known options: "
                            f"{', '.join(sorted(known))}")
        return cls(**options)

    def replace(self, **changes) -> "Options":
        return dataclasses.replace(self, **changes)

    def mapper_options(self):
        from ..mapper import MapperOptions
        return MapperOptions(objective=self.objective, max_stages=self.max_stages,
                             resident_weights=self.resident_weights,
                             time_limit_s=self.mapper_time_limit_s)


def _one_of(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidArgumentError(f"option {name!r} is {value!r}; choose one of "
                         f"{', '.join(allowed)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
