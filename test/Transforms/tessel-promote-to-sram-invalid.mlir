// RUN: tessel-opt %s -tessel-promote-to-sram -verify-diagnostics -split-input-file

#dram = #tessel.memory_space<dram>

// A step whose size is a function argument has no largest shape to give an
// SRAM buffer; the error names the operand.
func.func @unbounded_step(%x: memref<?xf32, #dram>, %y: memref<?xf32, #dram>, %n: index) {
  scf.forall (%i) = (0) to (1) step (1) {
    %xs = memref.subview %x[0] [%n] [1] : memref<?xf32, #dram> to memref<?xf32, strided<[1]>, #dram>
    %ys = memref.subview %y[0] [%n] [1] : memref<?xf32, #dram> to memref<?xf32, strided<[1]>, #dram>
    // expected-error @below {{operand #0 has a size that cannot be bounded, so it gets no SRAM buffer}}
    linalg.copy ins(%xs : memref<?xf32, strided<[1]>, #dram>) outs(%ys : memref<?xf32, strided<[1]>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1]>}
  return
}
