// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: tessel.device @main grid <4, 4> {
// CHECK-NEXT:    %tile_0_0 = tessel.tile(0, 0)
// CHECK-NEXT:    %tile_3_3 = tessel.tile(3, 3)
// CHECK-NEXT:    %tile_1_2 = tessel.tile(1, 2)
// CHECK-NEXT:  }
tessel.device @main grid <4, 4> {
  %a = tessel.tile(0, 0)
  %b = tessel.tile(3, 3)
  %c = tessel.tile(1, 2)
}

// A single big tile, as a systolic array is.
// CHECK-LABEL: tessel.device @systolic grid <1, 1> attributes {note = "one tile"} {
// CHECK-NEXT:    tessel.tile(0, 0)
tessel.device @systolic grid <1, 1> attributes {note = "one tile"} {
  %t = tessel.tile(0, 0)
}

// The attribute also stands on its own, qualified.
// CHECK-LABEL: func.func @grid_attr
// CHECK-SAME:    tessel.grid = #tessel.grid<16, 16>
func.func @grid_attr() attributes {tessel.grid = #tessel.grid<16, 16>} {
  return
}

// CHECK-LABEL: func.func private @tile_type(!tessel.tile)
func.func private @tile_type(!tessel.tile)
