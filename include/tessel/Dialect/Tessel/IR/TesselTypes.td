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

def Tessel_TokenType : Tessel_Type<"Token", "token"> {
  let summary = "Completion of an asynchronous DMA transfer";
  let description = [{
    Produced by `tessel.dma`; `tessel.wait` blocks the issuing tile until
    the transfer it names has completed. A token belongs to the DMA engine
    of the tile that issued the transfer, so only that tile's core waits on
    it.

    ```mlir
    %done = tessel.dma %src to %dst : ...
    tessel.wait %done
    ```
  }];
}

def Tessel_SemaphoreType : Tessel_Type<"Semaphore", "semaphore"> {
  let summary = "A counting semaphore in one tile's SRAM";
  let description = [{
    Cross-tile synchronization: any tile may signal it (over the NoC), only
    the owning tile waits on it.

    ```mlir
    %ready = tessel.semaphore on %tile_0_1
    ```
  }];
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELTYPES_TD
