//===- TesselOps.td - Operations of the tessel dialect -----*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD

include "tessel/Dialect/Tessel/IR/TesselDialect.td"
include "tessel/Dialect/Tessel/IR/TesselAttrs.td"
include "tessel/Dialect/Tessel/IR/TesselTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// DeviceOp
//===----------------------------------------------------------------------===//

def Tessel_DeviceOp : Tessel_Op<"device", [
    IsolatedFromAbove, NoTerminator, SingleBlock, Symbol, SymbolTable]> {
  let summary = "The program for one chip";
  let description = [{
    Holds everything that runs on one chip: its tiles, their buffers and
    per-tile programs. It is a symbol table, so buffers and programs inside it
    can be referred to by name, and it carries the grid every op inside it is
    checked against. Each tile coordinate may be declared once.

    ```mlir
    tessel.device @main grid <4, 4> {
      %t00 = tessel.tile(0, 0)
      %t33 = tessel.tile(3, 3)
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Tessel_GridAttr:$grid);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `grid` $grid attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "StringRef":$symName, "GridAttr":$grid)>
  ];
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

def Tessel_TileOp : Tessel_Op<"tile", [
    Pure, HasParent<"DeviceOp">,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Names the tile at a grid coordinate";
  let description = [{
    Returns a handle to the tile at `(row, col)` of the enclosing device's
    grid. The coordinate must lie inside the grid.

    ```mlir
    %t = tessel.tile(1, 2)   // printed as %tile_1_2
    ```
  }];
  let arguments = (ins
    ConfinedAttr<I32Attr, [IntNonNegative]>:$row,
    ConfinedAttr<I32Attr, [IntNonNegative]>:$col);
  let results = (outs Tessel_TileType:$result);
  let assemblyFormat = "`(` $row `,` $col `)` attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    DeviceOp getDevice() { return (*this)->getParentOfType<DeviceOp>(); }
  }];
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD
