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
include "mlir/Interfaces/ViewLikeInterface.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"

// A memref that lives in one of the two tessel memory spaces and has a static
// shape (the hardware has no dynamic allocation).
def Tessel_StaticMemRef : Type<
    And<[AnyStaticShapeMemRef.predicate,
         CPred<"::llvm::isa_and_nonnull<::mlir::tessel::MemorySpaceAttr>("
               "::llvm::cast<::mlir::MemRefType>($_self).getMemorySpace())">]>,
    "statically shaped memref in #tessel.memory_space<dram> or <sram>",
    "::mlir::MemRefType">;

//===----------------------------------------------------------------------===//
// Structure: device, tiles, cores
//===----------------------------------------------------------------------===//

def Tessel_DeviceOp : Tessel_Op<"device", [
    IsolatedFromAbove, NoTerminator, SingleBlock, Symbol, SymbolTable]> {
  let summary = "The program for one chip";
  let description = [{
    Holds everything that runs on one chip: its tiles, their buffers,
    semaphores and per-tile programs, and the DRAM buffers of inputs,
    weights and outputs. It is a symbol table (a module holds one device per
    chip) and carries the `#tessel.arch` every op inside it is checked
    against.

    Device-wide rules are checked here: each tile coordinate is declared
    once and has at most one core; buffer names are unique (they are
    symbols, and the program manifest refers to buffers by name); the buffers of each tile fit its SRAM
    (every buffer is live for the whole program, sizes rounded up to the
    SRAM alignment) and, once addresses are assigned, do not overlap; the
    DRAM buffers fit the DRAM capacity and do not overlap.

    ```mlir
    tessel.device @main arch #arch {
      %t00 = tessel.tile(0, 0)
      %w = tessel.buffer @w on %t00 : memref<16x16xf32, #sram>
      tessel.core(%t00) {
        ...
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Tessel_ArchAttr:$arch);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `arch` $arch attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "StringRef":$symName, "ArchAttr":$arch)>
  ];
  let extraClassDeclaration = [{
    GridAttr getGrid() { return getArch().getGrid(); }
  }];
}

def Tessel_TileOp : Tessel_Op<"tile", [
    Pure, HasParent<"DeviceOp">,
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

def Tessel_CoreOp : Tessel_Op<"core", [
    HasParent<"DeviceOp">, SingleBlockImplicitTerminator<"EndOp">]> {
  let summary = "The program one tile runs";
  let description = [{
    The instructions of one tile's core, in program order: DMA transfers and
    waits, semaphore operations, MAC-array and vector-unit operations. A
    core may use the device's tiles, buffers and semaphores, but compute
    reads and writes only its own tile's SRAM.

    ```mlir
    tessel.core(%tile_0_0) {
      %t = tessel.dma %x to %a : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
      tessel.wait %t
      tessel.matmul %a, %w, %c : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    }
    ```
  }];
  let arguments = (ins Tessel_TileType:$tile);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`(` $tile `)` attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "Value":$tile)>];
  let extraClassDeclaration = [{
    TileOp getTileOp();
  }];
}

def Tessel_EndOp : Tessel_Op<"end", [Pure, Terminator, HasParent<"CoreOp">]> {
  let summary = "Ends a core's program";
  let description = [{
    Terminates a `tessel.core` body. The custom form leaves it implicit; the
    generic form shows it:

    ```mlir
    "tessel.core"(%tile_0_0) ({
      "tessel.end"() : () -> ()
    }) : (!tessel.tile) -> ()
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Memory: SRAM and DRAM buffers, semaphores
//===----------------------------------------------------------------------===//

def Tessel_BufferOp : Tessel_Op<"buffer", [
    HasParent<"DeviceOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A buffer in one tile's SRAM";
  let description = [{
    Reserves a statically shaped buffer in the SRAM of `tile` for the whole
    program. `at` gives its byte address once SRAM allocation has assigned
    one; it must be a multiple of the SRAM alignment, and the buffer must
    end inside the SRAM.

    ```mlir
    %a = tessel.buffer @a on %tile_0_0 at 4096 : memref<16x16xf32, #sram>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Tessel_TileType:$tile,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$address);
  let results = (outs Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $sym_name `on` $tile (`at` $address^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the buffer occupies, before alignment padding.
    int64_t getSizeInBytes();
    TileOp getTileOp();
  }];
}

def Tessel_DramBufferOp : Tessel_Op<"dram_buffer", [
    HasParent<"DeviceOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary =
      "A buffer in DRAM: an input, output, weight, scratch or constant array";
  let description = [{
    A statically shaped array in DRAM. Its kind and name are what the
    program manifest lists, so a runtime knows where to put inputs and
    weights and where to read outputs. `at` gives its byte offset once
    assigned. A `constant` buffer holds a value the compiler computed (a
    folded attention mask); its `value` has the buffer's shape and element
    type and goes into the program's DRAM image. A `weight` buffer can be
    `permuted`: it holds the model's weight transposed by that permutation
    (buffer dimension i is weight dimension permutation[i]), which whoever
    writes the weights into DRAM applies.

    ```mlir
    %x = tessel.dram_buffer @x input : memref<8x64xf32, #dram>
    %w = tessel.dram_buffer @fc1.weight weight at 2048 : memref<64x128xf32, #dram>
    %t = tessel.dram_buffer @fc2.weight weight permuted [1, 0]
           : memref<128x10xf32, #dram>
    %m = tessel.dram_buffer @mask constant value(dense<[0.0, 1.0]> : tensor<2xf32>)
           : memref<2xf32, #dram>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Tessel_DramBufferKind:$kind,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$address,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<DenseI64ArrayAttr>:$permutation);
  let results = (outs Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $sym_name $kind (`permuted` $permutation^)? (`at` $address^)?
    (`value` `(` $value^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getSizeInBytes();
  }];
}

def Tessel_SemaphoreOp : Tessel_Op<"semaphore", [
    HasParent<"DeviceOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A counting semaphore owned by one tile";
  let description = [{
    Creates a semaphore in the SRAM of `tile` with an initial count
    (default 0). Any core may `tessel.signal` it; only the owning tile may
    wait on it: its core (`tessel.wait_semaphore`) or its DMA engine (a
    `tessel.dma_multicast`'s `after` credits). `id` is its number among
    the tile's semaphores in the program (`tessel-assign-semaphore-ids`);
    no two semaphores of a tile share one.

    ```mlir
    %ready = tessel.semaphore on %tile_1_0 init 0 id 2
    ```
  }];
  let arguments = (ins Tessel_TileType:$tile,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntNonNegative]>, "0">:$init,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$id);
  let results = (outs Tessel_SemaphoreType:$result);
  let assemblyFormat = "`on` $tile (`init` $init^)? (`id` $id^)? attr-dict";
  let builders = [
    // Before ids are assigned (tessel-assign-semaphore-ids).
    OpBuilder<(ins "Value":$tile, "uint32_t":$init), [{
      build($_builder, $_state, tile, init, IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    TileOp getTileOp();
  }];
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

def Tessel_PadViewOp : Tessel_Op<"pad_view", [
    Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface, [
        "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
        "getAliasingValues", "getBufferType", "bufferize"]>]> {
  let summary = "A tensor seen with a constant border that is never stored";
  let description = [{
    `source` padded by `low` and `high` elements per dimension with `value`
    (converted to the element type), as `tensor.pad` with a constant would
    give, but held nowhere: an op that reads a window of the result reads
    the part of the window inside `source` from where `source` is and fills
    the rest of its SRAM buffer with `value`. The padded tensor of a
    convolution or a pooling then costs no DRAM buffer, no fill and no copy
    (docs/lowering.md, "Padding read in place").

    `tessel-materialize-copies` makes one of a `tensor.pad` whose every
    user reads it as a linalg input; bufferized, it views the DRAM buffer
    of `source`, and `tessel-lower-to-instructions` turns each load of a
    window of it into a fill and a load of the window's part inside
    `source`. Nothing else may read or write it.

    ```mlir
    %p = tessel.pad_view %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0
        : tensor<1x64x56x56xf32> to tensor<1x64x58x58xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyStaticShapeTensor, AnyStaticShapeMemRef]>:$source,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       F32Attr:$value);
  let results = (outs AnyTypeOf<[AnyStaticShapeTensor, AnyStaticShapeMemRef]>:$result);
  let assemblyFormat = [{
    $source `low` $low `high` $high `value` $value attr-dict `:`
    type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_TransposeViewOp : Tessel_Op<"transpose_view", [
    Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface, [
        "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
        "getAliasingValues", "getBufferType", "bufferize"]>]> {
  let summary = "A tensor seen with its dimensions permuted, held nowhere";
  let description = [{
    `source` with its dimensions permuted as `linalg.transpose` with
    `permutation` would give (result dimension `i` is source dimension
    `permutation[i]`), but held nowhere: an op that reads a window of the
    result loads it from where `source` is, through a strided view. A
    transpose between ops then costs no DRAM buffer and no copy through the
    chip (docs/lowering.md, "Transposes read in place").

    `tessel-transposes-as-views` makes one of a `linalg.transpose` that
    keeps the innermost dimension (so a load still moves rows of contiguous
    elements) and whose every user reads it as a linalg input, directly or
    through a reshape its strides allow. Bufferized, it is a
    `memref.transpose` of the source's buffer.

    ```mlir
    %t = tessel.transpose_view %x permutation [0, 2, 1, 3]
        : tensor<1x128x12x64xf32> to tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$source,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $source `permutation` $permutation attr-dict `:` type($source) `to`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_StridedViewOp : Tessel_Op<"strided_view", [
    Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "A buffer's elements seen at a static strided layout";
  let description = [{
    The elements of the buffer under `source` that the result's type
    names: its shape, and its strided layout's offset and strides, in
    elements, counted from the buffer's first element (as
    `memref.reinterpret_cast` of the buffer with that offset, those sizes
    and strides would give). The type says it all, so the op holds nothing
    else, and verifying it compares a few integers:
    `tessel-lower-to-instructions` makes one for nearly every operand of
    every instruction it makes (ResNet-18's cores hold over 200,000), which
    as `memref.reinterpret_cast`s were most of the time it took to verify
    the lowered module (docs/Rationale.md).

    ```mlir
    %block = tessel.strided_view %acc
        : memref<8x6xf32, #tessel.memory_space<sram>>
          to memref<8x4xf32, strided<[6, 1], offset: 2>, #tessel.memory_space<sram>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement and synchronization
//===----------------------------------------------------------------------===//

def Tessel_DmaOp : Tessel_Op<"dma", [
    HasParent<"CoreOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Starts an asynchronous transfer on the tile's DMA engine";
  let description = [{
    Copies `source` to `target` (same shape and element type) and returns at
    once with a token; `tessel.wait` on the token blocks until the copy is
    done. The issuing tile's DMA engine runs it, so one end must be that
    tile's SRAM; the other end is DRAM (through a DRAM channel and the NoC)
    or another tile's SRAM (over the NoC). DRAM-to-DRAM copies have no path.
    `channel` selects the engine's channel (`tessel-assign-dma-channels`)
    and `slot` the token slot the transfer holds until a `tessel.wait` on
    its token (`tessel-assign-dma-slots`); a slot is not given to a second
    transfer while the first is pending.

    Operands are `tessel.buffer` / `tessel.dram_buffer` results or views of
    them (`memref.subview`, reshapes), which is how a tile of a larger array
    is moved.

    ```mlir
    %t = tessel.dma %x to %a channel 1 slot 0
        : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_StaticMemRef:$source, Tessel_StaticMemRef:$target,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$channel,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$slot);
  let results = (outs Tessel_TokenType:$token);
  let assemblyFormat = [{
    $source `to` $target (`channel` $channel^)? (`slot` $slot^)? attr-dict `:`
    type($source) `to` type($target)
  }];
  let hasVerifier = 1;
  let builders = [
    // Before channels and slots are assigned (tessel-assign-dma-*).
    OpBuilder<(ins "Value":$source, "Value":$target, "IntegerAttr":$channel), [{
      build($_builder, $_state, source, target, channel, IntegerAttr());
    }]>
  ];
}

def Tessel_DmaMulticastOp : Tessel_Op<"dma_multicast", [
    HasParent<"CoreOp">, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "One transfer that delivers the same data to several tiles";
  let description = [{
    Copies `source` to every one of `targets` (each the same shape and
    element type as the source) as one transfer of the issuing tile's DMA
    engine: the source is read once (from DRAM, or from the issuing tile's
    own SRAM) and the NoC replicates the data to each target's router, so
    every link carries it once. Targets are in the SRAM of distinct tiles,
    each its own view (the tiles' allocations need not share an address);
    the issuing tile may be one of them. One instruction carries at most 58
    targets. A single target is on another tile than the issuing one: a
    load that a tile reads through its own DRAM channel for another tile
    (into its own SRAM, a transfer is a `tessel.dma`).

    The token completes when every target holds the data. Another tile
    learns that its target has arrived from a `tessel.signal` the issuing
    tile sends after this op: a signal is ordered after the transfers into
    its tile's SRAM that the signalling tile started before it.
    `channel` and `slot` are as for `tessel.dma`.

    `credits`, semaphores of the issuing tile, are what the transfer waits
    for: its DMA channel starts it once it has taken 1 from each, in order
    (a `dma_wait_semaphore` each, docs/isa.md), while the core goes on.
    A target's tile gives its credit when its buffer is free to be
    written. The program must also run were the core itself to wait for
    them here, as a `tessel.wait_semaphore` each before the op
    (`tessel-check-synchronization` checks it so).

    ```mlir
    %t = tessel.dma_multicast %a to %b0, %b1, %b2 after %free1, %free2
        channel 0
        : memref<16x16xf32, #dram> to memref<16x16xf32, #sram>,
          memref<16x16xf32, #sram>, memref<16x16xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_StaticMemRef:$source,
                       Variadic<Tessel_StaticMemRef>:$targets,
                       Variadic<Tessel_SemaphoreType>:$credits,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$channel,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$slot);
  let results = (outs Tessel_TokenType:$token);
  let extraClassDeclaration = [{
    /// The most targets one instruction carries at any rank: the ISA's
    /// 8-bit length holds 11 + 3 * 4 + 4 * 58 words (docs/isa.md).
    static constexpr unsigned kMaxTargets = 58;
  }];
  let assemblyFormat = [{
    $source `to` $targets (`after` $credits^)? (`channel` $channel^)?
    (`slot` $slot^)? attr-dict `:` type($source) `to` type($targets)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "Value":$source, "ValueRange":$targets, "ValueRange":$credits,
                   "IntegerAttr":$channel), [{
      build($_builder, $_state, source, targets, credits, channel, IntegerAttr());
    }]>
  ];
}

def Tessel_DmaGatherOp : Tessel_Op<"dma_gather", [
    HasParent<"CoreOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Gathers elements of a DRAM table picked by indices in SRAM";
  let description = [{
    An indexed transfer of the issuing tile's DMA engine: element `i` of
    `target` is the element of `table`'s memory that lies `indices[i] *
    index_stride` elements past element `i` of the `table` view. `table`
    is a view of a DRAM buffer (its strides walk what does not depend on the
    index, zero where the index alone decides); `indices` a view of
    `i32` or `i64` integers in the tile's own SRAM; `target` the tile's own
    SRAM. All three have the target's shape. Every index must lie in
    `[0, rows)`, or with `wrap` in `[-rows, rows)`, a negative one counting
    from the end as in Python (`x[ids]`): the executors stop the program at
    one outside, naming it (docs/isa.md), so an id out of a vocabulary is
    never a wild read. `channel` and `slot` are as for
    `tessel.dma`.

    An embedding lookup of a 2x8 batch of ids in a 100x16 table:

    ```mlir
    %t = tessel.dma_gather %table[%ids] rows 100 index_stride 16 to %rows
        : memref<2x8x16xf32, strided<[0, 0, 1]>, #dram>,
          memref<2x8x16xi64, strided<[8, 1, 0]>, #sram>
          to memref<2x8x16xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_StaticMemRef:$table, Tessel_StaticMemRef:$indices,
                       Tessel_StaticMemRef:$target,
                       ConfinedAttr<I64Attr, [IntPositive]>:$rows,
                       I64Attr:$index_stride, UnitAttr:$wrap,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$channel,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$slot);
  let results = (outs Tessel_TokenType:$token);
  let assemblyFormat = [{
    $table `[` $indices `]` `rows` $rows (`wrap` $wrap^)? `index_stride` $index_stride `to`
    $target (`channel` $channel^)? (`slot` $slot^)? attr-dict `:` type($table) `,`
    type($indices) `to` type($target)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "Value":$table, "Value":$indices, "Value":$target,
                   "IntegerAttr":$rows, "IntegerAttr":$index_stride,
                   "UnitAttr":$wrap, "IntegerAttr":$channel), [{
      build($_builder, $_state, table, indices, target, rows, index_stride,
            wrap, channel, IntegerAttr());
    }]>
  ];
}

def Tessel_FenceOp : Tessel_Op<"fence", [HasParent<"CoreOp">]> {
  let summary = "Separates two ops' parts in a core for the schedule";
  let description = [{
    Placed by `tessel-convert-to-device` between the parts of two ops that
    run one after the other on a tile. `tessel-tile-for-sram` sizes each
    op's steps so that two steps of the op fit SRAM; `tessel-schedule`
    issues a load one step early, and the fence keeps it from going into
    the previous op, whose buffers the sizing did not count. The schedule
    removes the fences; one that is left emits nothing.

    ```mlir
    tessel.fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tessel_WaitOp : Tessel_Op<"wait", [HasParent<"CoreOp">]> {
  let summary = "Blocks until DMA transfers have completed";
  let description = [{
    Waits for every token given. Tokens come from `tessel.dma` in the same
    core (cores are sibling regions, so another tile's tokens are out of
    scope): a tile can only observe its own DMA engine.

    ```mlir
    tessel.wait %t0, %t1
    ```
  }];
  let arguments = (ins Variadic<Tessel_TokenType>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

def Tessel_SignalOp : Tessel_Op<"signal", [HasParent<"CoreOp">]> {
  let summary = "Increments a semaphore, possibly on another tile";
  let description = [{
    Adds `count` (default 1) to a semaphore. Signalling another tile's
    semaphore sends a message over the NoC.

    ```mlir
    tessel.signal %ready
    ```
  }];
  let arguments = (ins Tessel_SemaphoreType:$semaphore,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>, "1">:$count);
  let assemblyFormat = "$semaphore (`by` $count^)? attr-dict";
}

def Tessel_WaitSemaphoreOp : Tessel_Op<"wait_semaphore", [HasParent<"CoreOp">]> {
  let summary = "Blocks until a semaphore reaches a count, then takes it";
  let description = [{
    Waits until the semaphore's value is at least `count` (default 1) and
    subtracts `count`. Only the core of the tile that owns the semaphore may
    wait on it.

    ```mlir
    tessel.wait_semaphore %ready
    ```
  }];
  let arguments = (ins Tessel_SemaphoreType:$semaphore,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>, "1">:$count);
  let assemblyFormat = "$semaphore (`for` $count^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

class Tessel_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Tessel_Op<mnemonic, !listconcat([HasParent<"CoreOp">], traits)>;

def Tessel_MatmulOp : Tessel_ComputeOp<"matmul"> {
  let summary = "One MAC-array block: acc += lhs * rhs";
  let description = [{
    Multiplies `lhs` (M x K) by `rhs` (K x N) and adds the product to `acc`
    (M x N), all in the SRAM of the core's tile. `lhs` and `rhs` have one
    element type the MAC array supports; `acc` is f32 for float inputs and
    i32 for i8. The block must fit the array in one pass: K <= rows and
    N <= cols for a weight-stationary array (the K x N block of `rhs` is
    resident), M <= rows and N <= cols for an output-stationary one (the
    M x N block of `acc` is resident); the other dimension streams.
    Accumulation order is part of the ISA (docs/isa.md).

    `lhs` and `acc` may also be G x M x K and G x M x N: G groups of M rows
    that stream as one M' = G * M rows, each group at its own offset (a
    convolution's output rows, which lie an input row apart in its window:
    the columns between them are neither read nor written).

    With `init` (the ISA's `matmul_init`) the sums start at zero instead of
    `acc`'s contents, as after a `tessel.vector_fill` of 0: the first block
    of a zero-initialized product. `acc` then must not overlap `lhs` or
    `rhs` (the program's validation checks the addresses).

    ```mlir
    tessel.matmul %a, %w, %c
        : memref<64x16xf32, #sram>, memref<16x16xf32, #sram>, memref<64x16xf32, #sram>
    tessel.matmul init %a, %w, %c
        : memref<64x16xf32, #sram>, memref<16x16xf32, #sram>, memref<64x16xf32, #sram>
    // 7 rows of 7 pixels, rows 9 pixels apart in the window.
    tessel.matmul %x, %w, %y
        : memref<7x7x16xf32, strided<[9, 1, 81]>, #sram>, memref<16x16xf32, #sram>,
          memref<7x7x16xf32, strided<[7, 1, 49]>, #sram>
    ```
  }];
  let arguments = (ins Tessel_StaticMemRef:$lhs, Tessel_StaticMemRef:$rhs,
                       Tessel_StaticMemRef:$acc, UnitAttr:$init);
  let assemblyFormat = [{
    (`init` $init^)? $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,`
    type($rhs) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorUnaryOp : Tessel_ComputeOp<"vector_unary"> {
  let summary = "Elementwise operation of the vector unit on one operand";
  let description = [{
    `result[i] = kind(input[i])` over equally shaped SRAM memrefs of the
    core's tile. Element types match, except for `cast`, which converts
    between two element types the vector unit supports. `copy` moves data
    between layouts within the tile (the views may have any strides).

    ```mlir
    tessel.vector_unary exp %x, %y : memref<16x64xf32, #sram>, memref<16x64xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_VectorUnaryKind:$kind,
                       Tessel_StaticMemRef:$input, Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $kind $input `,` $result attr-dict `:` type($input) `,` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorBinaryOp : Tessel_ComputeOp<"vector_binary"> {
  let summary = "Elementwise operation of the vector unit on two operands";
  let description = [{
    `result[i] = kind(lhs[i], rhs[i])` over equally shaped SRAM memrefs of
    the core's tile, all of one element type the vector unit supports.

    ```mlir
    tessel.vector_binary add %a, %b, %c
        : memref<16x64xf32, #sram>, memref<16x64xf32, #sram>, memref<16x64xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_VectorBinaryKind:$kind,
                       Tessel_StaticMemRef:$lhs, Tessel_StaticMemRef:$rhs,
                       Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs `,` $result attr-dict `:` type($lhs) `,` type($rhs)
    `,` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorBinaryImmOp : Tessel_ComputeOp<"vector_binary_imm"> {
  let summary = "Elementwise operation of the vector unit with an immediate";
  let description = [{
    `result[i] = kind(input[i], imm)`, or `kind(imm, input[i])` with
    `imm_lhs`, over equally shaped SRAM memrefs of the core's tile. The
    immediate is an f32 constant converted to the element type.

    ```mlir
    tessel.vector_binary_imm max %x, 0.0, %y : memref<16x64xf32, #sram>, memref<16x64xf32, #sram>
    ```

    The `imm_lhs` unit attribute puts the immediate on the left, for the
    operations that are not commutative (`sub`, `div`):

    ```mlir
    tessel.vector_binary_imm div %x, 1.0, %y {imm_lhs} : memref<64xf32, #sram>, memref<64xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_VectorBinaryKind:$kind,
                       Tessel_StaticMemRef:$input, F32Attr:$imm,
                       Tessel_StaticMemRef:$result, UnitAttr:$imm_lhs);
  let assemblyFormat = [{
    $kind $input `,` $imm `,` $result attr-dict `:` type($input) `,` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorFillOp : Tessel_ComputeOp<"vector_fill"> {
  let summary = "Fills SRAM with a constant";
  let description = [{
    Writes `value`, converted to the element type, to every element of
    `result`, an SRAM memref of the core's tile.

    ```mlir
    tessel.vector_fill 0.0, %acc : memref<16x16xf32, #sram>
    ```
  }];
  let arguments = (ins F32Attr:$value, Tessel_StaticMemRef:$result);
  let assemblyFormat = "$value `,` $result attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tessel_VectorCompareOp : Tessel_ComputeOp<"vector_compare"> {
  let summary = "Elementwise comparison: 1 where it holds, 0 elsewhere";
  let description = [{
    `result[i] = predicate(lhs[i], rhs[i]) ? 1 : 0`, in the element type of
    the operands; comparisons with NaN are false except `ne`.

    ```mlir
    tessel.vector_compare gt %x, %y, %mask
        : memref<64xf32, #sram>, memref<64xf32, #sram>, memref<64xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_ComparePredicate:$predicate,
                       Tessel_StaticMemRef:$lhs, Tessel_StaticMemRef:$rhs,
                       Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs `,` $result attr-dict `:` type($lhs) `,`
    type($rhs) `,` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorSelectOp : Tessel_ComputeOp<"vector_select"> {
  let summary = "Elementwise choice between two operands";
  let description = [{
    `result[i] = cond[i] != 0 ? lhs[i] : rhs[i]`; `cond` is typically the
    result of `tessel.vector_compare`.

    ```mlir
    tessel.vector_select %mask, %x, %y, %z
        : memref<64xf32, #sram>, memref<64xf32, #sram>, memref<64xf32, #sram>, memref<64xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_StaticMemRef:$cond, Tessel_StaticMemRef:$lhs,
                       Tessel_StaticMemRef:$rhs, Tessel_StaticMemRef:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs `,` $result attr-dict `:` type($cond) `,`
    type($lhs) `,` type($rhs) `,` type($result)
  }];
  let hasVerifier = 1;
}

def Tessel_VectorReduceOp : Tessel_ComputeOp<"vector_reduce"> {
  let summary = "Reduction of the vector unit along one dimension";
  let description = [{
    Combines the elements of `input` along `dim` with `kind` into `result`,
    whose shape is `input`'s without `dim`. Both live in the SRAM of the
    core's tile and have one element type the vector unit supports. The
    order in which elements are combined is part of the ISA (docs/isa.md).

    ```mlir
    tessel.vector_reduce max %x, %m dim 1 : memref<16x64xf32, #sram>, memref<16xf32, #sram>
    ```
  }];
  let arguments = (ins Tessel_ReductionKind:$kind,
                       Tessel_StaticMemRef:$input, Tessel_StaticMemRef:$result,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let assemblyFormat = [{
    $kind $input `,` $result `dim` $dim attr-dict `:` type($input) `,` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELOPS_TD
