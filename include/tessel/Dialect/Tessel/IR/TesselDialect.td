//===- TesselDialect.td - The tessel dialect ---------------*- tablegen -*-===//
//
// The dialect that models a spatial accelerator: a grid of tiles, each with a
// MAC array, a vector unit, SRAM and a DMA engine, joined by a mesh NoC.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_TD

include "mlir/IR/OpBase.td"

def Tessel_Dialect : Dialect {
  let name = "tessel";
  let cppNamespace = "::mlir::tessel";
  let summary = "Tiles, on-chip memories, DMA and compute of a spatial accelerator";
  let description = [{
    The `tessel` dialect is the vocabulary in which Tessel describes programs
    for a spatial ML accelerator: a 2-D grid of compute tiles joined by a mesh
    network-on-chip, with DRAM at the edges of the grid.

    A program for one chip lives in a `tessel.device` op, a symbol table that
    carries the chip's description. Tiles inside it are named by their grid
    coordinates with `tessel.tile`. Verifiers hold every op to the hardware's
    rules (coordinates inside the grid, buffers that fit SRAM, ...), so a
    program that cannot run on the described chip is rejected before it is
    emitted.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute holding the #tessel.arch passes compile for.
    static ::llvm::StringRef getArchAttrName() { return "tessel.arch"; }
    /// The attribute holding an op's #tessel.mapping.
    static ::llvm::StringRef getMappingAttrName() { return "tessel.mapping"; }
    /// The attribute an scf.forall made by tessel-partition carries: the
    /// mapping its iterations (one per part) follow.
    static ::llvm::StringRef getPartitionAttrName() { return "tessel.partition"; }
    /// The unit attribute on the allocation, the load and the deallocation
    /// of a resident weight slice: a stream of inputs performs them once.
    static ::llvm::StringRef getResidentAttrName() { return "tessel.resident"; }
    /// The integer attribute on a load (memref.copy, then tessel.dma) of an
    /// op mapped `shared`: the op it belongs to, numbered in program order.
    /// tessel-share-loads lets the tiles that load the same slice at the
    /// same step of that op share one load.
    static ::llvm::StringRef getShareAttrName() { return "tessel.share"; }
    /// The unit attribute on a shared load that tessel-schedule issued
    /// together with the other later steps' loads of its op: there
    /// tessel-share-loads gives the load's credit before the leaders' waits
    /// for theirs that precede it, and removes the mark.
    static ::llvm::StringRef getLoadedTogetherAttrName() { return "tessel.loaded_together"; }
    /// The unit attribute on a load of a weight that tessel-schedule moved
    /// into the ops before its own: tessel-assign-dma-channels keeps its
    /// DMA channel to it until it is waited for, and removes the mark.
    static ::llvm::StringRef getIssuedEarlyAttrName() { return "tessel.issued_early"; }
    /// The unit attribute on a piece of an op's first loads on a tile
    /// (tessel-early-loads): tessel-split-transfers spreads such pieces, as
    /// stores, over the tile's groups of DMA channels in turn, so that one
    /// piece's setup and DRAM latency run under the previous one's data.
    static ::llvm::StringRef getFirstLoadAttrName() { return "tessel.first_load"; }
    /// The unit attribute on an elementwise op the mapper runs as the
    /// epilogue of the op before it, and on its partition (scf.forall):
    /// on each slice of the producer's result in SRAM, before it is stored
    /// (tessel-fuse-epilogues); and on the loads it makes there (memref.copy),
    /// which tiles do not share.
    static ::llvm::StringRef getEpilogueAttrName() { return "tessel.epilogue"; }
    /// The unit attribute on a scratch tessel.dram_buffer whose writer is
    /// mapped `on_chip` (tessel-convert-to-device): tessel-keep-on-chip
    /// keeps its slices in the SRAM of the tiles that computed them.
    static ::llvm::StringRef getOnChipAttrName() { return "tessel.on_chip"; }
    /// The symbol attribute on the tessel.fence where a tile may free the
    /// slices of an on-chip buffer it holds (the buffer's name): every op
    /// that reads the buffer is done there (tessel-convert-to-device).
    static ::llvm::StringRef getReleaseAttrName() { return "tessel.release"; }
    /// The symbol attribute on the SRAM allocation of a slice an on-chip
    /// buffer keeps and some op reads (tessel-keep-on-chip): the
    /// tessel.buffer every tile, its own included, reads it through until
    /// tessel-allocate-sram gives it its address.
    static ::llvm::StringRef getHeldAsAttrName() { return "tessel.held_as"; }
    /// The symbol attribute on a function that computes weights of the
    /// function it names from that function's weights alone
    /// (tessel-outline-weight-computations); the driver evaluates it once.
    static ::llvm::StringRef getWeightsOfAttrName() { return "tessel.weights_of"; }

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

class Tessel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tessel_Dialect, mnemonic, traits>;

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_TD
