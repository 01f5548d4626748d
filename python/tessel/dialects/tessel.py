"""Python bindings of the ``tessel`` dialect: op builders generated from ODS,
the ``#tessel.grid`` attribute and the ``!tessel.tile`` type."""

from ._tessel_ops_gen import *  # noqa: F401,F403
from ._tessel_ops_gen import _Dialect
from ._ods_common import _cext as _ods_cext
from .._mlir_libs._tesselDialects.tessel import *  # noqa: F401,F403

from ._tessel_ops_gen import DeviceOp as _GeneratedDeviceOp


@_ods_cext.register_operation(_Dialect, replace=True)
class DeviceOp(_GeneratedDeviceOp):
    """``tessel.device``, created with the empty body block ops are added to."""

    def __init__(self, sym_name, grid, *, loc=None, ip=None):
        super().__init__(sym_name, grid, loc=loc, ip=ip)
        self.body.blocks.append()

    @property
    def body_block(self):
        return self.body.blocks[0]
