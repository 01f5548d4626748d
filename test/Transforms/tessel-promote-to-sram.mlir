// RUN: tessel-opt %s -tessel-promote-to-sram | FileCheck %s

#dram = #tessel.memory_space<dram>
#sram = #tessel.memory_space<sram>

// Inputs are copied in; the accumulator, which matmul reads, is copied in
// and back out; the buffers are freed after the copies back.
// CHECK-LABEL: func.func @matmul_step
// CHECK:         scf.forall
// CHECK:           %[[A:.+]] = memref.subview
// CHECK:           %[[C:.+]] = memref.subview
// CHECK:           %[[AS:.+]] = memref.alloc() : memref<16x32xf32, #sram>
// CHECK:           memref.copy %[[A]], %[[AS]]
// CHECK:           %[[BS:.+]] = memref.alloc() : memref<32x8xf32, #sram>
// CHECK:           memref.copy %{{.+}}, %[[BS]]
// CHECK:           %[[CS:.+]] = memref.alloc() : memref<16x8xf32, #sram>
// CHECK:           memref.copy %[[C]], %[[CS]]
// CHECK:           linalg.matmul ins(%[[AS]], %[[BS]] : memref<16x32xf32, #sram>, memref<32x8xf32, #sram>) outs(%[[CS]] : memref<16x8xf32, #sram>)
// CHECK:           memref.copy %[[CS]], %[[C]]
// CHECK:           memref.dealloc %[[AS]]
// CHECK:           memref.dealloc %[[BS]]
// CHECK:           memref.dealloc %[[CS]]
func.func @matmul_step(%a: memref<64x32xf32, #dram>, %b: memref<32x8xf32, #dram>, %c: memref<64x8xf32, #dram>) {
  scf.forall (%i) = (0) to (64) step (16) {
    %ai = memref.subview %a[%i, 0] [16, 32] [1, 1] : memref<64x32xf32, #dram> to memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>
    %ci = memref.subview %c[%i, 0] [16, 8] [1, 1] : memref<64x8xf32, #dram> to memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>
    linalg.matmul ins(%ai, %b : memref<16x32xf32, strided<[32, 1], offset: ?>, #dram>, memref<32x8xf32, #dram>) outs(%ci : memref<16x8xf32, strided<[8, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 2, cols = 2, parts = [4, 1, 1]>}
  return
}

// An output the op only writes is not copied in. A step of dynamic size (the
// short last part of an uneven split) gets a buffer of its largest size.
// CHECK-LABEL: func.func @exp_step
// CHECK:           %[[N:.+]] = affine.min
// CHECK:           %[[XS:.+]] = memref.alloc() : memref<3x500xf32, #sram>
// CHECK:           %[[XV:.+]] = memref.subview %[[XS]][0, 0] [3, %{{.+}}] [1, 1]
// CHECK:           memref.copy %{{.+}}, %[[XV]]
// CHECK:           %[[YS:.+]] = memref.alloc() : memref<3x500xf32, #sram>
// CHECK:           %[[YV:.+]] = memref.subview %[[YS]][0, 0] [3, %{{.+}}] [1, 1]
// CHECK-NOT:       memref.copy %{{.+}}, %[[YV]]
// CHECK:           linalg.generic {{.*}} ins(%[[XV]] : {{.*}}) outs(%[[YV]] : {{.*}})
// CHECK:           memref.copy %[[YV]], %{{.+}}
// The step that is not in a partition is not touched.
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<4xf32, #dram>)
func.func @exp_step(%x: memref<3x999xf32, #dram>, %y: memref<3x999xf32, #dram>, %z: memref<4xf32, #dram>) {
  scf.forall (%i) = (0) to (999) step (500) {
    %n = affine.min affine_map<(d0) -> (-d0 + 999, 500)>(%i)
    %xi = memref.subview %x[0, %i] [3, %n] [1, 1] : memref<3x999xf32, #dram> to memref<3x?xf32, strided<[999, 1], offset: ?>, #dram>
    %yi = memref.subview %y[0, %i] [3, %n] [1, 1] : memref<3x999xf32, #dram> to memref<3x?xf32, strided<[999, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xi : memref<3x?xf32, strided<[999, 1], offset: ?>, #dram>) outs(%yi : memref<3x?xf32, strided<[999, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2]>}
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<4xf32, #dram>)
  return
}

// A resident weight's part slice is loaded once, before the step loops, and
// freed after them; each step reads its slice of that buffer, taken as the
// step took it from DRAM. The allocation, load and deallocation are marked
// for tessel-convert-to-device. The input is still copied in per step.
// CHECK-LABEL: func.func @resident_weight
// CHECK:         scf.forall
// CHECK:           %[[PART:.+]] = memref.subview %{{.+}}[0, %{{.+}}] [64, 16] [1, 1]
// CHECK:           %[[W:.+]] = memref.alloc() {tessel.resident} : memref<64x16xf32, #sram>
// CHECK:           memref.copy %[[PART]], %[[W]] {tessel.resident}
// CHECK:           scf.for %[[K:.+]] =
// CHECK:             %[[WS:.+]] = memref.subview %[[W]][%[[K]], 0] [16, 16] [1, 1] : memref<64x16xf32, #sram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #sram>
// CHECK:             %[[AS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             memref.copy %{{.+}}, %[[AS]]
// CHECK-NOT:         memref.copy %{{.+}}, %[[W]] :
// CHECK:             linalg.matmul ins(%[[AS]], %[[WS]] : {{.*}})
// CHECK:           }
// CHECK-NEXT:      memref.dealloc %[[W]] {tessel.resident}
func.func @resident_weight(%a: memref<16x64xf32, #dram>, %w: memref<64x32xf32, #dram> {tessel.kind = "weight"}, %c: memref<16x32xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.forall (%j) = (0) to (32) step (16) {
    %wj = memref.subview %w[0, %j] [64, 16] [1, 1] : memref<64x32xf32, #dram> to memref<64x16xf32, strided<[32, 1], offset: ?>, #dram>
    %cj = memref.subview %c[0, %j] [16, 16] [1, 1] : memref<16x32xf32, #dram> to memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>
    scf.for %k = %c0 to %c64 step %c16 {
      %ak = memref.subview %a[0, %k] [16, 16] [1, 1] : memref<16x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
      %wk = memref.subview %wj[%k, 0] [16, 16] [1, 1] : memref<64x16xf32, strided<[32, 1], offset: ?>, #dram> to memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>
      linalg.matmul ins(%ak, %wk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>) outs(%cj : memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2, 1], resident>}
  return
}

// Without `resident` the same weight is loaded step by step.
// CHECK-LABEL: func.func @streamed_weight
// CHECK-NOT:     tessel.resident
// CHECK:         scf.for
// CHECK:           memref.alloc() : memref<16x16xf32, #sram>
// CHECK:           memref.alloc() : memref<16x16xf32, #sram>
// CHECK-NOT:     tessel.resident
func.func @streamed_weight(%a: memref<16x64xf32, #dram>, %w: memref<64x32xf32, #dram> {tessel.kind = "weight"}, %c: memref<16x32xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.forall (%j) = (0) to (32) step (16) {
    %wj = memref.subview %w[0, %j] [64, 16] [1, 1] : memref<64x32xf32, #dram> to memref<64x16xf32, strided<[32, 1], offset: ?>, #dram>
    %cj = memref.subview %c[0, %j] [16, 16] [1, 1] : memref<16x32xf32, #dram> to memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>
    scf.for %k = %c0 to %c64 step %c16 {
      %ak = memref.subview %a[0, %k] [16, 16] [1, 1] : memref<16x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
      %wk = memref.subview %wj[%k, 0] [16, 16] [1, 1] : memref<64x16xf32, strided<[32, 1], offset: ?>, #dram> to memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>
      linalg.matmul ins(%ak, %wk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>) outs(%cj : memref<16x16xf32, strided<[32, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2, 1]>}
  return
}

// Over the reduction's steps (k innermost) the accumulator's slice stays the
// same: it is loaded before the k loop, stays in SRAM across it and is stored
// once after it. The inputs change with every step.
// CHECK-LABEL: func.func @accumulator_across_steps
// CHECK:         scf.forall
// CHECK:           scf.for %[[I:.+]] =
// CHECK:             %[[C:.+]] = memref.subview %{{.+}}[%[[I]], 0] [16, 16]
// CHECK:             %[[CS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             memref.copy %[[C]], %[[CS]]
// CHECK:             scf.for %[[K:.+]] =
// CHECK:               %[[AS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:               memref.copy %{{.+}}, %[[AS]]
// CHECK:               %[[BS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:               memref.copy %{{.+}}, %[[BS]]
// CHECK:               linalg.matmul ins(%[[AS]], %[[BS]] : {{.*}}) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK:               memref.dealloc %[[AS]]
// CHECK:               memref.dealloc %[[BS]]
// CHECK:             }
// CHECK-NEXT:        memref.copy %[[CS]], %[[C]]
// CHECK-NEXT:        memref.dealloc %[[CS]]
func.func @accumulator_across_steps(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %c: memref<32x16xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %k = %c0 to %c64 step %c16 {
        %aik = memref.subview %a[%i, %k] [16, 16] [1, 1] : memref<32x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
        %bk = memref.subview %b[%k, 0] [16, 16] [1, 1] : memref<64x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%aik, %bk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return
}

// An input keeps a buffer per step even where the inner loops do not index
// it (the rows of `a` over the column steps) but an outer one does: loading
// it once for several steps measured slower (docs/lowering.md).
// CHECK-LABEL: func.func @input_across_steps
// CHECK:           scf.for %[[I:.+]] =
// CHECK:             %[[A:.+]] = memref.subview %{{.+}}[%[[I]], 0] [16, 64]
// CHECK:             scf.for
// CHECK:               %[[AS:.+]] = memref.alloc() : memref<16x64xf32, #sram>
// CHECK:               memref.copy %[[A]], %[[AS]]
// CHECK:               linalg.matmul ins(%[[AS]], %{{.+}} : memref<16x64xf32, #sram>, memref<64x8xf32, #sram>)
// CHECK:               memref.dealloc %[[AS]]
func.func @input_across_steps(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %c: memref<32x16xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %j = %c0 to %c16 step %c8 {
        %ai = memref.subview %a[%i, 0] [16, 64] [1, 1] : memref<32x64xf32, #dram> to memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>
        %bj = memref.subview %b[0, %j] [64, 8] [1, 1] : memref<64x16xf32, #dram> to memref<64x8xf32, strided<[16, 1], offset: ?>, #dram>
        %cij = memref.subview %c[%i, %j] [16, 8] [1, 1] : memref<32x16xf32, #dram> to memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%ai, %bj : memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>, memref<64x8xf32, strided<[16, 1], offset: ?>, #dram>) outs(%cij : memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return
}

// An input that no step loop changes (`b`, under steps of rows that take
// every column) is loaded once, before the loops, kept across them and
// freed after them; the rows of `a` still change with every step.
// CHECK-LABEL: func.func @input_kept_across_all_steps
// CHECK:           %[[BS:.+]] = memref.alloc() : memref<64x16xf32, #sram>
// CHECK-NEXT:      memref.copy %{{.+}}, %[[BS]] : memref<64x16xf32, #dram> to memref<64x16xf32, #sram>
// CHECK:           scf.for
// CHECK:             %[[AS:.+]] = memref.alloc() : memref<16x64xf32, #sram>
// CHECK:             memref.copy %{{.+}}, %[[AS]]
// CHECK-NOT:         memref.copy %{{.+}}, %[[BS]] :
// CHECK:             linalg.matmul ins(%[[AS]], %[[BS]] : memref<16x64xf32, #sram>, memref<64x16xf32, #sram>)
// CHECK:           }
// CHECK-NEXT:      memref.dealloc %[[BS]]
func.func @input_kept_across_all_steps(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %c: memref<32x16xf32, #dram>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      %ai = memref.subview %a[%i, 0] [16, 64] [1, 1] : memref<32x64xf32, #dram> to memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>
      %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      linalg.matmul ins(%ai, %b : memref<16x64xf32, strided<[64, 1], offset: ?>, #dram>, memref<64x16xf32, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return
}

// The zero fill of a matmul's output, a partition of its own, is folded into
// the accumulator: the SRAM buffer is filled before the reduction's steps
// instead of loaded, and the fill of the DRAM buffer is erased.
// CHECK-LABEL: func.func @zero_fill_into_accumulator
// CHECK:         %[[C:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK-NOT:     linalg.fill
// CHECK:         scf.forall
// CHECK:           scf.for %[[I:.+]] =
// CHECK:             %[[CI:.+]] = memref.subview %[[C]][%[[I]], 0] [16, 16]
// CHECK:             %[[CS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:             linalg.fill ins(%[[ZERO]] : f32) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK-NOT:         memref.copy %[[CI]], %[[CS]]
// CHECK:             scf.for
// CHECK:               linalg.matmul ins({{.*}}) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK:             memref.copy %[[CS]], %[[CI]]
func.func @zero_fill_into_accumulator(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>) -> memref<32x16xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (32) step (16) {
    %cp = memref.subview %c[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    linalg.fill ins(%zero : f32) outs(%cp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %k = %c0 to %c64 step %c16 {
        %aik = memref.subview %a[%i, %k] [16, 16] [1, 1] : memref<32x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
        %bk = memref.subview %b[%k, 0] [16, 16] [1, 1] : memref<64x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%aik, %bk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return %c : memref<32x16xf32, #dram>
}

// A bias broadcast into a matmul's output (tessel-fold-bias-adds) is folded
// like a fill: each accumulator loads the bias slice its columns cover, the
// accumulator's views taken again on the bias, and broadcasts it in SRAM.
// CHECK-LABEL: func.func @bias_into_accumulator
// CHECK-SAME:    %[[BIAS:[^:]+]]: memref<16xf32, #dram>
// CHECK-NOT:     linalg.broadcast
// CHECK:         scf.forall (%[[P:.+]]) =
// CHECK:           %[[BP:.+]] = memref.subview %[[BIAS]][%[[P]]] [8] [1]
// CHECK:           scf.for %[[I:.+]] =
// CHECK:             %[[BI:.+]] = memref.subview %[[BP]][0] [8] [1]
// CHECK:             %[[CS:.+]] = memref.alloc() : memref<16x8xf32, #sram>
// CHECK:             %[[BS:.+]] = memref.alloc() : memref<8xf32, #sram>
// CHECK:             memref.copy %[[BI]], %[[BS]]
// CHECK:             linalg.broadcast ins(%[[BS]] : memref<8xf32, #sram>) outs(%[[CS]] : memref<16x8xf32, #sram>) dimensions = [0]
// CHECK:             memref.dealloc %[[BS]]
// CHECK:             scf.for
// CHECK:               linalg.matmul ins({{.*}}) outs(%[[CS]] : memref<16x8xf32, #sram>)
func.func @bias_into_accumulator(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %bias: memref<16xf32, #dram>) -> memref<32x16xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (16) step (8) {
    %cp = memref.subview %c[0, %p] [32, 8] [1, 1] : memref<32x16xf32, #dram> to memref<32x8xf32, strided<[16, 1], offset: ?>, #dram>
    %bp = memref.subview %bias[%p] [8] [1] : memref<16xf32, #dram> to memref<8xf32, strided<[1], offset: ?>, #dram>
    linalg.broadcast ins(%bp : memref<8xf32, strided<[1], offset: ?>, #dram>) outs(%cp : memref<32x8xf32, strided<[16, 1], offset: ?>, #dram>) dimensions = [0]
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2]>}
  scf.forall (%p) = (0) to (16) step (8) {
    %cp = memref.subview %c[0, %p] [32, 8] [1, 1] : memref<32x16xf32, #dram> to memref<32x8xf32, strided<[16, 1], offset: ?>, #dram>
    %bp = memref.subview %b[0, %p] [64, 8] [1, 1] : memref<64x16xf32, #dram> to memref<64x8xf32, strided<[16, 1], offset: ?>, #dram>
    scf.for %i = %c0 to %c32 step %c16 {
      %ci = memref.subview %cp[%i, 0] [16, 8] [1, 1] : memref<32x8xf32, strided<[16, 1], offset: ?>, #dram> to memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>
      scf.for %k = %c0 to %c64 step %c16 {
        %aik = memref.subview %a[%i, %k] [16, 16] [1, 1] : memref<32x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
        %bk = memref.subview %bp[%k, 0] [16, 8] [1, 1] : memref<64x8xf32, strided<[16, 1], offset: ?>, #dram> to memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%aik, %bk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>) outs(%ci : memref<16x8xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [1, 2, 1]>}
  return %c : memref<32x16xf32, #dram>
}

// An epilogue (tessel-fuse-epilogues) runs on each accumulator after its
// last reduction step: the slice of its other input is loaded, the op runs
// on the accumulator in place, and the result goes to the epilogue's
// output, allocated before the producer now. The epilogue's partition is
// gone (the producer's result buffer, no longer read, is left to the
// canonicalizer).
// CHECK-LABEL: func.func @epilogue_on_accumulator
// CHECK-SAME:    %[[R:[^:]+]]: memref<32x16xf32, #dram>
// CHECK:         %[[Y:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         scf.forall
// CHECK:           scf.for %[[I:.+]] =
// CHECK-DAG:         %[[RI:.+]] = memref.subview %[[R]][%[[I]], 0] [16, 16]
// CHECK-DAG:         %[[YI:.+]] = memref.subview %[[Y]][%[[I]], 0] [16, 16]
// CHECK:             %[[CS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             linalg.fill
// CHECK:             scf.for
// CHECK:               linalg.matmul ins({{.*}}) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK:             %[[RS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             memref.copy %[[RI]], %[[RS]]
// CHECK:             linalg.generic {{.*}} ins(%[[CS]], %[[RS]] : memref<16x16xf32, #sram>, memref<16x16xf32, #sram>) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK:               arith.addf
// CHECK:               arith.maximumf
// CHECK:             memref.copy %[[CS]], %[[YI]]
// CHECK:             memref.dealloc %[[RS]]
// CHECK-NOT:     scf.forall
// CHECK:         return %[[Y]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_on_accumulator(%a: memref<32x64xf32, #dram>, %b: memref<64x16xf32, #dram>, %r: memref<32x16xf32, #dram>) -> memref<32x16xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %k = %c0 to %c64 step %c16 {
        %aik = memref.subview %a[%i, %k] [16, 16] [1, 1] : memref<32x64xf32, #dram> to memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>
        %bk = memref.subview %b[%k, 0] [16, 16] [1, 1] : memref<64x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%aik, %bk : memref<16x16xf32, strided<[64, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  %y = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (32) step (16) {
    %cp = memref.subview %c[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    %rp = memref.subview %r[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    %yp = memref.subview %y[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%cp, %rp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>, memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%yp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %s = arith.addf %in, %in_1 : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
    }
  } {tessel.epilogue, tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  return %y : memref<32x16xf32, #dram>
}

// An epilogue of another element type than its producer's result (the f32
// accumulator of a bf16 matmul truncated to bf16) cannot run in place: it
// writes a bf16 slice of its own, which is stored.
// CHECK-LABEL: func.func @truncating_epilogue
// CHECK:         %[[Y:.+]] = memref.alloc() {{.*}} : memref<32x16xbf16, #dram>
// CHECK:         scf.forall
// CHECK:           scf.for %[[I:.+]] =
// CHECK:             %[[YI:.+]] = memref.subview %[[Y]][%[[I]], 0] [16, 16]
// CHECK:             %[[CS:.+]] = memref.alloc() : memref<16x16xf32, #sram>
// CHECK:             scf.for
// CHECK:               linalg.matmul ins({{.*}} : memref<16x16xbf16, #sram>, memref<16x16xbf16, #sram>) outs(%[[CS]] : memref<16x16xf32, #sram>)
// CHECK:             %[[YS:.+]] = memref.alloc() : memref<16x16xbf16, #sram>
// CHECK:             linalg.generic {{.*}} ins(%[[CS]] : memref<16x16xf32, #sram>) outs(%[[YS]] : memref<16x16xbf16, #sram>)
// CHECK:               arith.truncf
// CHECK:             memref.copy %[[YS]], %[[YI]]
// CHECK:             memref.dealloc %[[YS]]
// CHECK-NOT:     scf.forall
// CHECK:         return %[[Y]]
func.func @truncating_epilogue(%a: memref<32x64xbf16, #dram>, %b: memref<64x16xbf16, #dram>) -> memref<32x16xbf16, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %k = %c0 to %c64 step %c16 {
        %aik = memref.subview %a[%i, %k] [16, 16] [1, 1] : memref<32x64xbf16, #dram> to memref<16x16xbf16, strided<[64, 1], offset: ?>, #dram>
        %bk = memref.subview %b[%k, 0] [16, 16] [1, 1] : memref<64x16xbf16, #dram> to memref<16x16xbf16, strided<[16, 1], offset: ?>, #dram>
        %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
        linalg.matmul ins(%aik, %bk : memref<16x16xbf16, strided<[64, 1], offset: ?>, #dram>, memref<16x16xbf16, strided<[16, 1], offset: ?>, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  %y = memref.alloc() {alignment = 64 : i64} : memref<32x16xbf16, #dram>
  scf.forall (%p) = (0) to (32) step (16) {
    %cp = memref.subview %c[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    %yp = memref.subview %y[%p, 0] [16, 16] [1, 1] : memref<32x16xbf16, #dram> to memref<16x16xbf16, strided<[16, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%cp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%yp : memref<16x16xbf16, strided<[16, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    }
  } {tessel.epilogue, tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  return %y : memref<32x16xbf16, #dram>
}

// An epilogue whose output buffer the producer reads (bufferization let the
// ReLU overwrite the matmul's dead input): run inside the producer it would
// overwrite rows a later step still reads, so it writes a fresh buffer,
// which what follows reads instead.
// CHECK-LABEL: func.func @epilogue_output_read_by_producer
// CHECK:         %[[H:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         %[[FRESH:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         scf.forall
// CHECK:           memref.subview %[[H]]
// CHECK:           linalg.matmul
// CHECK:           linalg.generic
// CHECK:           memref.copy %{{.+}}, %{{.+}} : memref<16x16xf32, #sram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
// CHECK-NOT:     scf.forall
// CHECK:         return %[[FRESH]]
func.func @epilogue_output_read_by_producer(%b: memref<16x16xf32, #dram>) -> memref<32x16xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      %hi = memref.subview %h[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      linalg.matmul ins(%hi, %b : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>, memref<16x16xf32, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  scf.forall (%p) = (0) to (32) step (16) {
    %cp = memref.subview %c[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    %hp = memref.subview %h[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%cp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%hp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
    }
  } {tessel.epilogue, tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  return %h : memref<32x16xf32, #dram>
}

// The same, where a view of the output buffer was taken before the producer
// (CSE makes one padded view for two convolutions that read the buffer at
// different times): what follows the epilogue reads the view taken again of
// the fresh buffer.
// CHECK-LABEL: func.func @epilogue_output_viewed_before_producer
// CHECK:         %[[H:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         memref.expand_shape %[[H]]
// CHECK:         memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         %[[FRESH:.+]] = memref.alloc() {{.*}} : memref<32x16xf32, #dram>
// CHECK:         scf.forall
// CHECK:           memref.subview %[[H]]
// CHECK:           linalg.matmul
// CHECK:           linalg.generic
// CHECK:         %[[NEW:.+]] = memref.expand_shape %[[FRESH]] {{\[}}[0, 1], [2]] output_shape [2, 16, 16]
// CHECK-NOT:     scf.forall
// CHECK:         return %[[NEW]]
func.func @epilogue_output_viewed_before_producer(%b: memref<16x16xf32, #dram>) -> memref<2x16x16xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  %hv = memref.expand_shape %h [[0, 1], [2]] output_shape [2, 16, 16] : memref<32x16xf32, #dram> into memref<2x16x16xf32, #dram>
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %i = %c0 to %c32 step %c16 {
      %hi = memref.subview %h[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      %ci = memref.subview %c[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
      linalg.matmul ins(%hi, %b : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>, memref<16x16xf32, #dram>) outs(%ci : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>)
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  scf.forall (%p) = (0) to (32) step (16) {
    %cp = memref.subview %c[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    %hp = memref.subview %h[%p, 0] [16, 16] [1, 1] : memref<32x16xf32, #dram> to memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%cp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) outs(%hp : memref<16x16xf32, strided<[16, 1], offset: ?>, #dram>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
    }
  } {tessel.epilogue, tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 2, parts = [2, 1]>}
  return %hv : memref<2x16x16xf32, #dram>
}

// A reduction over the middle loop, cut into steps outside the innermost
// output loop, loads its accumulator once per reduction step: only the first
// load would see the fill, so the fill stays and every step loads.
// CHECK-LABEL: func.func @fill_kept_for_a_reloaded_accumulator
// CHECK:         scf.forall
// CHECK:           linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<4x8xf32, #sram>)
// CHECK:           memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32, #sram> to memref<4x8xf32, #dram>
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.copy %{{.+}}, %[[OS:.+]] : memref<4x4xf32, strided<[8, 1], offset: ?>, #dram> to memref<4x4xf32, #sram>
// CHECK:               linalg.generic
// CHECK-SAME:            outs(%[[OS]] : memref<4x4xf32, #sram>)
#sum_in = affine_map<(i, r, j) -> (i, r, j)>
#sum_out = affine_map<(i, r, j) -> (i, j)>
func.func @fill_kept_for_a_reloaded_accumulator(%x: memref<4x16x8xf32, #dram>) -> memref<4x8xf32, #dram> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%o : memref<4x8xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    scf.for %r = %c0 to %c16 step %c8 {
      scf.for %j = %c0 to %c8 step %c4 {
        %xs = memref.subview %x[0, %r, %j] [4, 8, 4] [1, 1, 1] : memref<4x16x8xf32, #dram> to memref<4x8x4xf32, strided<[128, 8, 1], offset: ?>, #dram>
        %os = memref.subview %o[0, %j] [4, 4] [1, 1] : memref<4x8xf32, #dram> to memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>
        linalg.generic {indexing_maps = [#sum_in, #sum_out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%xs : memref<4x8x4xf32, strided<[128, 8, 1], offset: ?>, #dram>) outs(%os : memref<4x4xf32, strided<[8, 1], offset: ?>, #dram>) {
        ^bb0(%in: f32, %acc: f32):
          %s = arith.addf %acc, %in : f32
          linalg.yield %s : f32
        }
      }
    }
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return %o : memref<4x8xf32, #dram>
}

// A fill whose buffer another partition reads before the matmul stays.
// CHECK-LABEL: func.func @fill_kept_when_read_elsewhere
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK:         scf.forall
// CHECK:           linalg.copy
// CHECK:         scf.forall
// CHECK:           memref.copy %{{.+}}, %[[CS:.+]] : memref<16x16xf32, strided<[16, 1]>, #dram> to memref<16x16xf32, #sram>
// CHECK:           linalg.matmul ins({{.*}}) outs(%[[CS]] : memref<16x16xf32, #sram>)
func.func @fill_kept_when_read_elsewhere(%a: memref<16x16xf32, #dram>, %b: memref<16x16xf32, #dram>, %d: memref<16x16xf32, #dram>) -> memref<16x16xf32, #dram> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.copy ins(%c : memref<16x16xf32, #dram>) outs(%d : memref<16x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    %cs = memref.subview %c[0, 0] [16, 16] [1, 1] : memref<16x16xf32, #dram> to memref<16x16xf32, strided<[16, 1]>, #dram>
    linalg.matmul ins(%a, %b : memref<16x16xf32, #dram>, memref<16x16xf32, #dram>) outs(%cs : memref<16x16xf32, strided<[16, 1]>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return %c : memref<16x16xf32, #dram>
}

// A matmul that reads its filled output as an input too keeps the fill: the
// input's load reads the fill's values from DRAM.
// CHECK-LABEL: func.func @fill_kept_when_also_an_input
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK:         scf.forall
// CHECK:           memref.copy
// CHECK:           memref.copy
// CHECK:           memref.copy %{{.+}}, %[[CS:.+]] : memref<16x16xf32, strided<[16, 1]>, #dram> to memref<16x16xf32, #sram>
// CHECK:           linalg.matmul ins({{.*}}) outs(%[[CS]] : memref<16x16xf32, #sram>)
func.func @fill_kept_when_also_an_input(%b: memref<16x16xf32, #dram>) -> memref<16x16xf32, #dram> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32, #dram>
  scf.forall (%p) = (0) to (1) step (1) {
    linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1]>}
  scf.forall (%p) = (0) to (1) step (1) {
    %cs = memref.subview %c[0, 0] [16, 16] [1, 1] : memref<16x16xf32, #dram> to memref<16x16xf32, strided<[16, 1]>, #dram>
    linalg.matmul ins(%c, %b : memref<16x16xf32, #dram>, memref<16x16xf32, #dram>) outs(%cs : memref<16x16xf32, strided<[16, 1]>, #dram>)
  } {tessel.partition = #tessel.mapping<row = 0, col = 0, rows = 1, cols = 1, parts = [1, 1, 1]>}
  return %c : memref<16x16xf32, #dram>
}
