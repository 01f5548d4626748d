//===- TesselAttrs.td - Attributes of the tessel dialect ---*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD

include "tessel/Dialect/Tessel/IR/TesselDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Tessel_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tessel_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tessel_GridAttr : Tessel_Attr<"Grid", "grid"> {
  let summary = "The shape of a 2-D grid of tiles";
  let description = [{
    `#tessel.grid<rows, cols>` is the number of tile rows and columns of a
    chip. Tiles are addressed as `(row, col)` with `0 <= row < rows` and
    `0 <= col < cols`; row 0 is the top edge of the mesh.

    ```mlir
    #tessel.grid<4, 4>
    ```
  }];
  let parameters = (ins "unsigned":$rows, "unsigned":$cols);
  // `<$rows x $cols>` would lex `4x4` as a hexadecimal literal.
  let assemblyFormat = "`<` $rows `,` $cols `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of tiles in the grid.
    unsigned getNumTiles() const { return getRows() * getCols(); }
    /// Whether (row, col) addresses a tile of this grid.
    bool contains(int64_t row, int64_t col) const {
      return row >= 0 && col >= 0 && row < getRows() && col < getCols();
    }
  }];
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD
