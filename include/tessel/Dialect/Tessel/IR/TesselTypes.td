//===- TesselTypes.td - Types of the tessel dialect --------*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_TD

include "tessel/Dialect/Tessel/IR/TesselDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Tessel_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tessel_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tessel_TileType : Tessel_Type<"Tile", "tile"> {
  let summary = "A handle to one tile of the grid";
  let description = [{
    The value produced by `tessel.tile`. Ops that place buffers, programs or
    transfer endpoints on a tile take it as an operand, so the placement is
    explicit in the IR and checked by their verifiers.

    ```mlir
    %t = tessel.tile(0, 1)
    ```
  }];
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_TD
