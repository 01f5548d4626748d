"""Python bindings of the ``tessel`` dialect: op builders generated from ODS,
the ``#tessel.arch`` and ``#tessel.grid`` attributes, the ``!tessel.tile``,
``!tessel.token`` and ``!tessel.semaphore`` types, and helpers to move
architecture descriptions between Python dicts and attributes."""

from typing import Any, Mapping

from ._tessel_ops_gen import *  # noqa: F401,F403
from ._tessel_ops_gen import _Dialect
from ._tessel_ops_gen import CoreOp as _GeneratedCoreOp
from ._tessel_ops_gen import DeviceOp as _GeneratedDeviceOp
from ._tessel_enum_gen import *  # noqa: F401,F403
from ._ods_common import _cext as _ods_cext
from .._mlir_libs._tesselDialects.tessel import *  # noqa: F401,F403
from ..ir import (ArrayAttr, Attribute, DictAttr, IntegerAttr, IntegerType,
                  StringAttr)


@_ods_cext.register_operation(_Dialect, replace=True)
class DeviceOp(_GeneratedDeviceOp):
    """``tessel.device``, created with the empty body block ops are added to."""

    def __init__(self, sym_name, arch, *, loc=None, ip=None):
        super().__init__(sym_name, arch, loc=loc, ip=ip)
        self.body.blocks.append()

    @property
    def body_block(self):
        return self.body.blocks[0]


@_ods_cext.register_operation(_Dialect, replace=True)
class CoreOp(_GeneratedCoreOp):
    """``tessel.core``, created with its body block and ``tessel.end``; add
    instructions with ``InsertionPoint.at_block_terminator(core.body_block)``."""

    def __init__(self, tile, *, loc=None, ip=None):
        super().__init__(tile, loc=loc, ip=ip)
        block = self.body.blocks.append()
        from ..ir import InsertionPoint

        with InsertionPoint(block):
            EndOp(loc=loc)

    @property
    def body_block(self):
        return self.body.blocks[0]


def memory_space(name: str, context=None) -> Attribute:
    """``#tessel.memory_space<dram>`` or ``<sram>``, for memref types."""
    if name not in ("dram", "sram"):
        raise ValueError(f"memory space must be 'dram' or 'sram', got {name!r}")
    return Attribute.parse(f"#tessel.memory_space<{name}>", context)


def _to_attribute(value: Any, path: str) -> Attribute:
    if isinstance(value, bool):
        raise ValueError(f"arch field '{path}' must not be a boolean")
    if isinstance(value, int):
        return IntegerAttr.get(IntegerType.get_signless(64), value)
    if isinstance(value, str):
        return StringAttr.get(value)
    if isinstance(value, Mapping):
        return DictAttr.get({str(k): _to_attribute(v, f"{path}.{k}")
                             for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return ArrayAttr.get([_to_attribute(v, path) for v in value])
    raise ValueError(f"arch field '{path}' has a value of type "
                     f"{type(value).__name__}, which a description cannot hold")


def _from_attribute(attr: Attribute) -> Any:
    if isinstance(attr, IntegerAttr):
        return attr.value
    if isinstance(attr, StringAttr):
        return attr.value
    if isinstance(attr, DictAttr):
        return {named.name: _from_attribute(named.attr) for named in attr}
    if isinstance(attr, ArrayAttr):
        return [_from_attribute(a) for a in attr]
    raise ValueError(f"unexpected attribute in an architecture description: {attr}")


def _arch_from_dict(cls, description: Mapping[str, Any], *, context=None,
                    loc=None):
    """Builds ``#tessel.arch`` from a plain description; raises ValueError
    naming the field that breaks the schema (the message of
    ``tessel.arch.validate``)."""
    from ..ir import Context, Location

    ctx = context or Context.current
    if ctx is None:
        raise ValueError("ArchAttr.from_dict needs a context: pass context= "
                         "or enter one with `with Context():`")
    with ctx:
        if loc is None:
            loc = Location.current or Location.unknown()
        return cls.get(_to_attribute(description, "arch"), loc=loc)


def _arch_to_dict(self) -> dict:
    """The plain description: nested dicts, lists, ints and strings."""
    return _from_attribute(self.description)


# Methods on the bound class itself, so attributes the bindings return (an
# op's `arch`, a module's `tessel.arch`) have them too.
ArchAttr.from_dict = classmethod(_arch_from_dict)
ArchAttr.to_dict = _arch_to_dict
