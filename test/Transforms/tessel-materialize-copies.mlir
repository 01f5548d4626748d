// RUN: tessel-opt %s -split-input-file -tessel-materialize-copies | FileCheck %s

// A pad: a fill of the padded tensor and a copy of the source into its
// interior.
// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<4x11xf32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<4x11xf32>)
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[F]][0, 1] [4, 8] [1, 1]
// CHECK:         %[[C:.+]] = linalg.copy ins(%[[X]] : tensor<4x8xf32>) outs(%[[S]] : tensor<4x8xf32>)
// CHECK:         tensor.insert_slice %[[C]] into %[[F]][0, 1] [4, 8] [1, 1]
// CHECK-NOT:     tensor.pad
func.func @pad(%x: tensor<4x8xf32>) -> tensor<4x11xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<4x11xf32>
  return %p : tensor<4x11xf32>
}

// -----

// A constant pad that only linalg ops read as inputs is a view: the
// readers' loads fill the border in SRAM, and no padded tensor is written.
// CHECK-LABEL: func.func @pad_read_by_linalg
// CHECK-SAME:    (%[[X:.+]]: tensor<1x2x6x6xf32>, %[[W:.+]]: tensor<4x2x3x3xf32>
// CHECK:         %[[P:.+]] = tessel.pad_view %[[X]] low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.000000e+00 : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %[[W]] :
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     linalg.copy
func.func @pad_read_by_linalg(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>,
                              %init: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// A pad something else also reads (here, the return) is a tensor.
// CHECK-LABEL: func.func @pad_also_returned
// CHECK-NOT:     tessel.pad_view
// CHECK:         linalg.fill
// CHECK:         linalg.copy
func.func @pad_also_returned(%x: tensor<4x8xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<4x10xf32>
  %e = tensor.empty() : tensor<4x10xf32>
  %n = linalg.negf ins(%p : tensor<4x10xf32>) outs(%e : tensor<4x10xf32>) -> tensor<4x10xf32>
  return %p, %n : tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// A concatenation: each part copied into its slice.
// CHECK-LABEL: func.func @concat
// CHECK:         tensor.empty() : tensor<6x4xf32>
// CHECK:         linalg.copy ins(%{{.+}} : tensor<2x4xf32>)
// CHECK:         tensor.insert_slice %{{.+}}[0, 0] [2, 4] [1, 1]
// CHECK:         linalg.copy ins(%{{.+}} : tensor<4x4xf32>)
// CHECK:         tensor.insert_slice %{{.+}}[2, 0] [4, 4] [1, 1]
// CHECK-NOT:     tensor.concat
func.func @concat(%a: tensor<2x4xf32>, %b: tensor<4x4xf32>) -> tensor<6x4xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  return %c : tensor<6x4xf32>
}

// -----

// Insertions inside a partition are the partition's own; they stay.
// CHECK-LABEL: func.func @in_forall
// CHECK-NOT:     linalg.copy
func.func @in_forall(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = scf.forall (%i) in (2) shared_outs(%o = %a) -> (tensor<8xf32>) {
    %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  return %0 : tensor<8xf32>
}

// -----

// An op computed in the very slice of a tensor it is inserted back into (a
// group of a grouped convolution) bufferizes in place: no copy. Inserted
// elsewhere, it is copied.
// CHECK-LABEL: func.func @computed_in_place
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[O:.+]][0, 0] [4, 8] [1, 1]
// CHECK:         %[[E:.+]] = linalg.exp ins(%{{.+}} : tensor<4x8xf32>) outs(%[[S]] : tensor<4x8xf32>)
// CHECK-NEXT:    %[[R:.+]] = tensor.insert_slice %[[E]] into %[[O]][0, 0] [4, 8] [1, 1]
// CHECK:         linalg.copy ins(%[[E]] : tensor<4x8xf32>)
// CHECK:         tensor.insert_slice %{{.+}} into %[[R]][4, 0] [4, 8] [1, 1]
func.func @computed_in_place(%x: tensor<4x8xf32>, %o: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %o[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %e = linalg.exp ins(%x : tensor<4x8xf32>) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.insert_slice %e into %o[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  %r2 = tensor.insert_slice %e into %r[4, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  return %r2 : tensor<8x8xf32>
}

// -----

// Through a chain of ops each accumulating into the one before (the kernel
// depths of a 3-D convolution's output plane), the same: no copy.
// CHECK-LABEL: func.func @computed_in_place_by_a_chain
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[O:.+]][0, 0] [4, 8] [1, 1]
// CHECK:         %[[A:.+]] = linalg.matmul {{.+}} outs(%[[S]] : tensor<4x8xf32>)
// CHECK:         %[[B:.+]] = linalg.matmul {{.+}} outs(%[[A]] : tensor<4x8xf32>)
// CHECK-NEXT:    tensor.insert_slice %[[B]] into %[[O]][0, 0] [4, 8] [1, 1]
// CHECK-NOT:     linalg.copy
func.func @computed_in_place_by_a_chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %o: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %o[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %a = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.insert_slice %b into %o[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A zero fill shared by two matmuls (as CSE leaves it): each matmul gets a
// fill of its own to accumulate into.
// CHECK-LABEL: func.func @shared_fill
// CHECK:         %[[E1:.+]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         %[[F1:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         %[[F2:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<4x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x4xf32>) outs(%[[F1]] : tensor<4x4xf32>)
func.func @shared_fill(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A bias broadcast shared by two convolutions (an ONNX file stores equal
// biases once): each accumulates into a broadcast of its own.
// CHECK-LABEL: func.func @shared_bias
// CHECK:         %[[B1:.+]] = linalg.broadcast ins(%{{.+}} : tensor<4xf32>) outs(%{{.+}} : tensor<1x4x6x6xf32>)
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<1x4x6x6xf32>
// CHECK:         %[[B2:.+]] = linalg.broadcast ins(%{{.+}} : tensor<4xf32>) outs(%[[E2]] : tensor<1x4x6x6xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw {{.+}} outs(%[[B2]] : tensor<1x4x6x6xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw {{.+}} outs(%[[B1]] : tensor<1x4x6x6xf32>)
func.func @shared_bias(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>, %v: tensor<4x2x3x3xf32>, %bias: tensor<4xf32>)
    -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %b = linalg.broadcast ins(%bias : tensor<4xf32>) outs(%e : tensor<1x4x6x6xf32>) dimensions = [0, 2, 3]
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%b : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %v : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%b : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %0, %1 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Results returned as a view of an argument or as a slice are copied into
// tensors of their own; a reshape of a computed result is returned as it is.
// CHECK-LABEL: func.func @returned_views
// CHECK:         %[[V:.+]] = tensor.collapse_shape %[[X:.+]] {{\[}}[0, 1]]
// CHECK:         %[[S:.+]] = tensor.extract_slice
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[E:.+]] {{\[}}[0, 1]]
// CHECK:         %[[E1:.+]] = tensor.empty() : tensor<32xf32>
// CHECK:         %[[C1:.+]] = linalg.copy ins(%[[V]] : tensor<32xf32>) outs(%[[E1]] : tensor<32xf32>)
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<4x2xf32>
// CHECK:         %[[C2:.+]] = linalg.copy ins(%[[S]] : tensor<4x2xf32>) outs(%[[E2]] : tensor<4x2xf32>)
// CHECK:         return %[[C1]], %[[C2]], %[[R]]
func.func @returned_views(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x2xf32>, tensor<32xf32>) {
  %v = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %s = tensor.extract_slice %x[0, 2] [4, 2] [1, 1] : tensor<4x8xf32> to tensor<4x2xf32>
  %o = tensor.empty() : tensor<4x8xf32>
  %e = linalg.exp ins(%x : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.collapse_shape %e [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %v, %s, %r : tensor<32xf32>, tensor<4x2xf32>, tensor<32xf32>
}
