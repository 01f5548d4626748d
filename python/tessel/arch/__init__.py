"""Architecture descriptions: the target model every pass and both executors
read. See docs/arch.md for the schema.

Importable without MLIR; :meth:`Arch.to_attribute` loads the bindings.
"""

from .model import (DEFAULT_ARCH, Arch, ArchError, Dma, Dram, Grid, MacArray,
                    Noc, Sram, Tile, VectorUnit, load, preset_names, validate)

__all__ = ["DEFAULT_ARCH", "Arch", "ArchError", "Dma", "Dram", "Grid",
           "MacArray", "Noc", "Sram", "Tile", "VectorUnit", "load",
           "preset_names", "validate"]
