//===- TesselAttrs.td - Attributes of the tessel dialect ---*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD

include "tessel/Dialect/Tessel/IR/TesselDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

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

//===----------------------------------------------------------------------===//
// ArchAttr
//===----------------------------------------------------------------------===//

def Tessel_ArchAttr : Tessel_Attr<"Arch", "arch"> {
  let summary = "The description of the target chip";
  let description = [{
    Everything the compiler and the executors know about the target: grid,
    per-tile MAC array, vector unit, SRAM and DMA, NoC and DRAM, clock. It is
    the same description as an architecture YAML file and a program
    manifest hold (docs/arch.md has the schema): a dictionary of sections
    and fields, validated on construction against the schema generated from
    `python/tessel/arch/schema.py`, with the same messages the Python side
    gives. Integers print without types so the text reads like the YAML.

    A module carries it as `tessel.arch`, a device as its `arch`; passes read
    it through typed accessors (`getTileSramBytes()`, `getGrid()`, ...).

    ```mlir
    module attributes {tessel.arch = #tessel.arch<{name = "tiny",
        clock_mhz = 1000, grid = {rows = 2, cols = 2}, tile = {...},
        noc = {...}, dram = {...}}>} { ... }
    ```
  }];
  let parameters = (ins "DictionaryAttr":$description);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The value of a field by its dotted schema path, or null for a field
    /// the description leaves out.
    ::mlir::Attribute getField(::llvm::StringRef path) const;
    /// The integer field at a dotted schema path, e.g. "tile.sram.bytes".
    int64_t getIntField(::llvm::StringRef path) const;
    /// The string or enum field at a dotted schema path.
    ::llvm::StringRef getStringField(::llvm::StringRef path) const;

    /// The grid, as the attribute device-level verifiers use.
    GridAttr getGrid() const;
    /// Peak MACs per cycle of one tile's array for `elementType`, or 0 if
    /// the array does not support it.
    int64_t getMacsPerCycle(::mlir::Type elementType) const;
    /// Whether the vector unit supports `elementType`.
    bool vectorSupports(::mlir::Type elementType) const;
    /// Latency in cycles of a vector operation named as in the schema
    /// ("exp", "reduce_add", ...).
    int64_t getVectorLatency(::llvm::StringRef op) const;
    /// The [row, col] each DRAM channel attaches to.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getDramAttach() const;
    /// The DRAM channels attached nearest to tile (row, col) (Manhattan
    /// hops), in index order: a transfer on DMA channel `c` uses the
    /// `c mod size`-th (docs/isa.md).
    ::llvm::SmallVector<unsigned> getNearestDramChannels(int64_t row,
                                                         int64_t col) const;
    /// How many DMA channels tile (row, col) spreads a large DRAM transfer
    /// over (tessel-split-transfers): one per DRAM channel it has to
    /// itself, nearest to it and to no other tile, at most its DMA
    /// channels; 1 where it has fewer than two.
    unsigned getSplitChannels(int64_t row, int64_t col) const;
    /// The bytes per cycle one DRAM transfer moves: the slower of a DMA
    /// channel and a DRAM channel.
    int64_t getTransferBytesPerCycle() const;
    /// What one DRAM transfer moves in the time of its fixed cost (DMA
    /// setup and DRAM latency); the mapper's `fixed_transfer_bytes`.
    int64_t getFixedTransferBytes() const;
    /// What one DRAM transfer moves in the time of its DMA setup alone.
    int64_t getSetupTransferBytes() const;
    /// The cycles a MAC-array block of `m x k` by `k x n` elements of
    /// `elementType` streams for, its fill and drain aside: the larger of
    /// its MAC steps and its operands' and accumulator's bytes at the SRAM
    /// port (docs/simulator.md).
    int64_t getMatmulStreamCycles(int64_t m, int64_t k, int64_t n,
                                  ::mlir::Type elementType) const;
    /// The element-type spellings of the schema ("f32", "bf16", "i8", ...),
    /// or an empty string for a type no unit supports.
    static ::llvm::StringRef getDtypeName(::mlir::Type elementType);

#include "tessel/Dialect/Tessel/IR/ArchAccessors.h.inc"
  }];
}

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

def Tessel_MappingAttr : Tessel_Attr<"Mapping", "mapping"> {
  let summary = "Where an op runs and how its iterations are split over tiles";
  let description = [{
    The mapper's decision for one op, written on it as `tessel.mapping` so
    every later pass (and a lit test with a hand-written mapping) reads the
    same thing.

    - `row`, `col`, `rows`, `cols`: the rectangle of tiles the op runs on,
      with `(row, col)` its north-west corner.
    - `parts`: for each loop of the op (in the order of its iteration
      domain), into how many parts it is split. Their product is the number
      of tiles in the rectangle. Parts are assigned to tiles in row-major
      order of the rectangle, the last loop varying fastest (or as `order`
      says): splitting a parallel loop is data or tensor parallelism,
      splitting a reduction loop needs a cross-tile reduction.
    - `order` (optional): the loops from the slowest varying to the
      fastest as parts are laid onto the rectangle's tiles in row-major
      order, a permutation of the loops; without it, the loops in order.
      The tiles that share a slice differ only in the split loops that do
      not index it, so the order decides how far apart they lie: a
      convolution's output-channel loop fastest puts the tiles that read
      the same input window side by side (docs/Rationale.md).
    - `stage`: the pipeline stage (0 when the program runs op after op);
      ops of different stages run concurrently on disjoint rectangles.
    - `steps` (optional): for each loop, its extent in one step of a tile's
      part (the mapper's tile sizes). `tessel-tile-for-sram` starts from
      them, clamped to the part, and halves further only where two steps
      and the lowering's temporaries would not fit the tile's SRAM. Without
      them it chooses the steps itself.
    - `resident` (optional): the op's weights stay in SRAM. Each tile loads
      its slice of every weight operand (an argument marked
      `tessel.kind = "weight"`) once, before its first step, and keeps it
      for the rest of the program, so the steps read it in place and every
      input of a stream after the first loads no weights at all.
      `tessel-tile-for-sram` sizes the steps of every op on those tiles in
      what the resident slices leave free.
    - `shared` (optional): tiles that load the same slice of an operand
      from DRAM at the same step share one load. `tessel-share-loads` makes
      one of them read it once and multicast it to the others over the NoC
      (`tessel.dma_multicast`), as SUMMA passes a matmul's row panel along
      the grid's rows and its column panel down its columns.
    - `on_chip` (optional): the op's result stays in the SRAM of the tiles
      that computed it instead of going to DRAM. Each tile keeps the slices
      it computed where it computed them; a later op reads them there,
      from its own SRAM or over the NoC from the tile that holds them, and
      the tiles free them once every op that reads the result is done. The
      result must be a tensor between ops (not a model output) that only
      this op writes (`tessel-convert-to-device`, `tessel-keep-on-chip`).

    ```mlir
    // A matmul (loops m, n, k) on the whole 4x4 grid: m in 4 parts along
    // the rows of the grid, n in 4 parts along its columns.
    %0 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
        rows = 4, cols = 4, parts = [4, 4, 1]>} ins(...) outs(...)
    // The same, each tile's 32x32x256 part in steps of 32x32x64.
    %1 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
        rows = 4, cols = 4, parts = [4, 4, 1], steps = [32, 32, 64]>} ...
    // Pipeline stage 1 on the second column, the weights kept in SRAM.
    %2 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 1,
        rows = 4, cols = 1, parts = [4, 1, 1], stage = 1, resident>} ...
    // Each row of tiles shares its rows of the left operand, each column
    // its columns of the right one: a load from DRAM per row and column.
    %3 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
        rows = 4, cols = 4, parts = [4, 4, 1], shared>} ...
    // The same split, the columns' parts laid out slowest: part (i, j) runs
    // on tile (j, i).
    %4 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
        rows = 4, cols = 4, parts = [4, 4, 1], order = [2, 1, 0], shared>} ...
    // The result stays in the SRAM of the 16 tiles for the next op.
    %5 = linalg.matmul {tessel.mapping = #tessel.mapping<row = 0, col = 0,
        rows = 4, cols = 4, parts = [4, 4, 1], on_chip>} ...
    ```
  }];
  let parameters = (ins "int64_t":$row, "int64_t":$col, "int64_t":$rows,
                        "int64_t":$cols, ArrayRefParameter<"int64_t">:$parts,
                        DefaultValuedParameter<"int64_t", "0">:$stage,
                        OptionalArrayRefParameter<"int64_t">:$steps,
                        OptionalArrayRefParameter<"int64_t">:$order,
                        DefaultValuedParameter<"bool", "false">:$resident,
                        DefaultValuedParameter<"bool", "false">:$shared,
                        DefaultValuedParameter<"bool", "false">:$onChip);
  // `stage`, `steps`, `order`, `resident`, `shared` and `on_chip` are
  // optional and each follows a comma,
  // which a declarative format cannot tell apart.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumTiles() const { return getRows() * getCols(); }
    /// The tile (row, col) that runs part `index` (row-major over `parts`,
    /// the last loop fastest), laid onto the rectangle in `order`.
    std::pair<int64_t, int64_t> getTileOfPart(int64_t index) const;
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tessel_MemorySpace : I32EnumAttr<"MemorySpace",
    "The memory a memref lives in", [
      I32EnumAttrCase<"dram", 0>,
      I32EnumAttrCase<"sram", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tessel";
}

def Tessel_MemorySpaceAttr
    : EnumAttr<Tessel_Dialect, Tessel_MemorySpace, "memory_space"> {
  let summary = "A memref memory space: off-chip DRAM or a tile's SRAM";
  let description = [{
    Put on a memref type, it says where the data lives. SRAM memrefs are
    always tied to one tile by the `tessel.buffer` that defines them; the
    printer aliases the two spaces as `#dram` and `#sram`.

    ```mlir
    memref<64x64xf32, #tessel.memory_space<sram>>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tessel_DramBufferKind : I32EnumAttr<"DramBufferKind",
    "What a DRAM buffer holds, for the program manifest", [
      I32EnumAttrCase<"input", 0>,
      I32EnumAttrCase<"output", 1>,
      I32EnumAttrCase<"weight", 2>,
      I32EnumAttrCase<"scratch", 3>,
      I32EnumAttrCase<"constant", 4>]> {
  let cppNamespace = "::mlir::tessel";
}

def Tessel_VectorUnaryKind : I32EnumAttr<"VectorUnaryKind",
    "An elementwise operation of the vector unit with one operand", [
      I32EnumAttrCase<"neg", 0>, I32EnumAttrCase<"abs", 1>,
      I32EnumAttrCase<"exp", 2>, I32EnumAttrCase<"log", 3>,
      I32EnumAttrCase<"tanh", 4>, I32EnumAttrCase<"erf", 5>,
      I32EnumAttrCase<"sqrt", 6>, I32EnumAttrCase<"rsqrt", 7>,
      I32EnumAttrCase<"recip", 8>, I32EnumAttrCase<"cast", 9>,
      I32EnumAttrCase<"copy", 10>, I32EnumAttrCase<"sin", 11>,
      I32EnumAttrCase<"cos", 12>, I32EnumAttrCase<"floor", 13>,
      I32EnumAttrCase<"gelu", 14>]> {
  let cppNamespace = "::mlir::tessel";
}

def Tessel_VectorBinaryKind : I32EnumAttr<"VectorBinaryKind",
    "An elementwise operation of the vector unit with two operands", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
      I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
      I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>]> {
  let cppNamespace = "::mlir::tessel";
}

def Tessel_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "How the vector unit compares two elements", [
      I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
      I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
      I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::tessel";
}

def Tessel_ReductionKind : I32EnumAttr<"ReductionKind",
    "How the vector unit combines the elements it reduces", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>]> {
  let cppNamespace = "::mlir::tessel";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELATTRS_TD
