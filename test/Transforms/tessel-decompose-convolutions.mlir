// RUN: tessel-opt %s -split-input-file -tessel-decompose-convolutions | FileCheck %s

// A 1-D convolution (PyTorch's Conv1d, strided and dilated): a 2-D one over
// a unit row, its strides and dilations with a unit first entry.
// CHECK-LABEL: func.func @conv1d
// CHECK-SAME:    (%[[X:.+]]: tensor<1x8x34xf32>, %[[W:.+]]: tensor<16x8x3xf32>, %[[O:.+]]: tensor<1x16x15xf32>)
// CHECK:         %[[X2:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 1, 34]
// CHECK:         %[[W2:.+]] = tensor.expand_shape %[[W]] {{\[}}[0], [1], [2, 3]] output_shape [16, 8, 1, 3]
// CHECK:         %[[O2:.+]] = tensor.expand_shape %[[O]] {{\[}}[0], [1], [2, 3]] output_shape [1, 16, 1, 15]
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>}
// CHECK-SAME:      ins(%[[X2]], %[[W2]] : tensor<1x8x1x34xf32>, tensor<16x8x1x3xf32>) outs(%[[O2]] : tensor<1x16x1x15xf32>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1], [2, 3]] : tensor<1x16x1x15xf32> into tensor<1x16x15xf32>
// CHECK:         return %[[R]]
func.func @conv1d(%x: tensor<1x8x34xf32>, %w: tensor<16x8x3xf32>, %o: tensor<1x16x15xf32>) -> tensor<1x16x15xf32> {
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<2> : vector<1xi64>, strides = dense<2> : vector<1xi64>} ins(%x, %w : tensor<1x8x34xf32>, tensor<16x8x3xf32>) outs(%o : tensor<1x16x15xf32>) -> tensor<1x16x15xf32>
  return %r : tensor<1x16x15xf32>
}

// -----

// A convolution with 2 groups: one 2-D convolution per group, each reading
// its group's input channels and filters and computing in its group's slice
// of the output, which it is inserted back into.
// CHECK-LABEL: func.func @grouped
// CHECK-SAME:    (%[[X:.+]]: tensor<1x2x4x10x10xf32>, %[[W:.+]]: tensor<2x8x4x3x3xf32>, %[[O:.+]]: tensor<1x2x8x8x8xf32>)
// CHECK:         %[[X0:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [1, 1, 4, 10, 10] [1, 1, 1, 1, 1] : tensor<1x2x4x10x10xf32> to tensor<1x4x10x10xf32>
// CHECK:         %[[W0:.+]] = tensor.extract_slice %[[W]][0, 0, 0, 0, 0] [1, 8, 4, 3, 3] [1, 1, 1, 1, 1] : tensor<2x8x4x3x3xf32> to tensor<8x4x3x3xf32>
// CHECK:         %[[O0:.+]] = tensor.extract_slice %[[O]][0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : tensor<1x2x8x8x8xf32> to tensor<1x8x8x8xf32>
// CHECK:         %[[C0:.+]] = linalg.conv_2d_nchw_fchw {{.+}} ins(%[[X0]], %[[W0]] : {{.+}}) outs(%[[O0]] : tensor<1x8x8x8xf32>)
// CHECK:         %[[R0:.+]] = tensor.insert_slice %[[C0]] into %[[O]][0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1]
// CHECK:         %[[X1:.+]] = tensor.extract_slice %[[X]][0, 1, 0, 0, 0] [1, 1, 4, 10, 10]
// CHECK:         %[[W1:.+]] = tensor.extract_slice %[[W]][1, 0, 0, 0, 0] [1, 8, 4, 3, 3]
// CHECK:         %[[O1:.+]] = tensor.extract_slice %[[R0]][0, 1, 0, 0, 0] [1, 1, 8, 8, 8]
// CHECK:         %[[C1:.+]] = linalg.conv_2d_nchw_fchw {{.+}} ins(%[[X1]], %[[W1]] : {{.+}}) outs(%[[O1]] : tensor<1x8x8x8xf32>)
// CHECK:         %[[R1:.+]] = tensor.insert_slice %[[C1]] into %[[R0]][0, 1, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1]
// CHECK:         return %[[R1]]
func.func @grouped(%x: tensor<1x2x4x10x10xf32>, %w: tensor<2x8x4x3x3xf32>, %o: tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32> {
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x4x10x10xf32>, tensor<2x8x4x3x3xf32>) outs(%o : tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  return %r : tensor<1x2x8x8x8xf32>
}

// -----

// A 3-D convolution (stride 2 in depth): output plane d accumulates the 2-D
// convolutions of input planes 2d and 2d + 1 with filter planes 0 and 1.
// CHECK-LABEL: func.func @conv3d
// CHECK-SAME:    (%[[X:.+]]: tensor<1x2x4x6x6xf32>, %[[W:.+]]: tensor<3x2x2x3x3xf32>, %[[O:.+]]: tensor<1x3x2x4x4xf32>)
// CHECK:         %[[P0:.+]] = tensor.extract_slice %[[O]][0, 0, 0, 0, 0] [1, 3, 1, 4, 4] [1, 1, 1, 1, 1] : tensor<1x3x2x4x4xf32> to tensor<1x3x4x4xf32>
// CHECK:         %[[X0:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [1, 2, 1, 6, 6]
// CHECK:         %[[W0:.+]] = tensor.extract_slice %[[W]][0, 0, 0, 0, 0] [3, 2, 1, 3, 3]
// CHECK:         %[[A:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[X0]], %[[W0]] : {{.+}}) outs(%[[P0]] : tensor<1x3x4x4xf32>)
// CHECK:         %[[X1:.+]] = tensor.extract_slice %[[X]][0, 0, 1, 0, 0] [1, 2, 1, 6, 6]
// CHECK:         %[[W1:.+]] = tensor.extract_slice %[[W]][0, 0, 1, 0, 0] [3, 2, 1, 3, 3]
// CHECK:         %[[B:.+]] = linalg.conv_2d_nchw_fchw {{.+}} ins(%[[X1]], %[[W1]] : {{.+}}) outs(%[[A]] : tensor<1x3x4x4xf32>)
// CHECK:         %[[R0:.+]] = tensor.insert_slice %[[B]] into %[[O]][0, 0, 0, 0, 0] [1, 3, 1, 4, 4]
// CHECK:         tensor.extract_slice %[[R0]][0, 0, 1, 0, 0] [1, 3, 1, 4, 4]
// CHECK:         tensor.extract_slice %[[X]][0, 0, 2, 0, 0] [1, 2, 1, 6, 6]
// CHECK:         tensor.extract_slice %[[X]][0, 0, 3, 0, 0] [1, 2, 1, 6, 6]
// CHECK:         %[[R1:.+]] = tensor.insert_slice %{{.+}} into %[[R0]][0, 0, 1, 0, 0] [1, 3, 1, 4, 4]
// CHECK:         return %[[R1]]
func.func @conv3d(%x: tensor<1x2x4x6x6xf32>, %w: tensor<3x2x2x3x3xf32>, %o: tensor<1x3x2x4x4xf32>) -> tensor<1x3x2x4x4xf32> {
  %r = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : vector<3xi64>, strides = dense<[2, 1, 1]> : vector<3xi64>} ins(%x, %w : tensor<1x2x4x6x6xf32>, tensor<3x2x2x3x3xf32>) outs(%o : tensor<1x3x2x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  return %r : tensor<1x3x2x4x4xf32>
}

// -----

// The 2-D NCHW convolution is left as it is.
// CHECK-LABEL: func.func @conv2d
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-NOT:     tensor.expand_shape
func.func @conv2d(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Two grouped convolutions that accumulate into one zero fill (as CSE
// leaves it): the second gets a fill of its own, so that each writes its
// groups in place into a buffer nothing else reads.
// CHECK-LABEL: func.func @shared_fill
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x8x8x8xf32>)
// CHECK:         tensor.extract_slice %[[FILL]]
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<1x2x8x8x8xf32>
// CHECK:         %[[OWN:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<1x2x8x8x8xf32>)
// CHECK:         tensor.extract_slice %[[OWN]]
func.func @shared_fill(%x: tensor<1x2x4x10x10xf32>, %w: tensor<2x8x4x3x3xf32>, %v: tensor<2x8x4x3x3xf32>) -> (tensor<1x2x8x8x8xf32>, tensor<1x2x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x8x8x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x4x10x10xf32>, tensor<2x8x4x3x3xf32>) outs(%o : tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  %s = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %v : tensor<1x2x4x10x10xf32>, tensor<2x8x4x3x3xf32>) outs(%o : tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  return %r, %s : tensor<1x2x8x8x8xf32>, tensor<1x2x8x8x8xf32>
}

// -----

// torch-mlir's MaxPool3d(2), a generic over n, c, d, h, w and the window's
// three loops: per output plane, the 2-D max poolings of the two input
// planes the window's depth reaches, combined into the plane.
// CHECK-LABEL: func.func @max_pool3d
// CHECK:         %[[P0:.+]] = tensor.extract_slice %[[OUT:.+]][0, 0, 0, 0, 0] [1, 2, 1, 2, 2] [1, 1, 1, 1, 1] : tensor<1x2x2x2x2xf32> to tensor<1x2x2x2xf32>
// CHECK:         %[[X0:.+]] = tensor.extract_slice %arg0[0, 0, 0, 0, 0] [1, 2, 1, 4, 4]
// CHECK:         %[[A:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%[[X0]], %{{.+}} : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%[[P0]] : tensor<1x2x2x2xf32>)
// CHECK:         %[[X1:.+]] = tensor.extract_slice %arg0[0, 0, 1, 0, 0] [1, 2, 1, 4, 4]
// CHECK:         %[[B:.+]] = linalg.pooling_nchw_max {{.+}} ins(%[[X1]], %{{.+}} : {{.+}}) outs(%[[A]] : tensor<1x2x2x2xf32>)
// CHECK:         tensor.insert_slice %[[B]] into %[[OUT]][0, 0, 0, 0, 0] [1, 2, 1, 2, 2]
// CHECK:         tensor.extract_slice %arg0[0, 0, 2, 0, 0] [1, 2, 1, 4, 4]
// CHECK:         tensor.extract_slice %arg0[0, 0, 3, 0, 0] [1, 2, 1, 4, 4]
// CHECK-NOT:     linalg.generic
func.func @max_pool3d(%arg0: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<1x2x2x2x2xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  %2 = tensor.empty() : tensor<2x2x2xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %2 : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>) outs(%1 : tensor<1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %4 = arith.maximumf %in, %out : f32
    linalg.yield %4 : f32
  } -> tensor<1x2x2x2x2xf32>
  return %3 : tensor<1x2x2x2x2xf32>
}

// -----

// torch-mlir's AvgPool3d(2) sums in NDHWC (linalg.pooling_ndhwc_sum) between
// transposes: the sum is taken by planes in NCDHW, between the inverse
// transposes (which the canonicalizer folds into torch-mlir's).
// CHECK-LABEL: func.func @ndhwc_sum_pool
// CHECK-DAG:     %[[X:.+]] = linalg.transpose ins(%arg0 : tensor<1x4x4x4x2xf32>) outs(%{{.+}} : tensor<1x2x4x4x4xf32>) permutation = [0, 4, 1, 2, 3]
// CHECK-DAG:     linalg.transpose ins(%{{.+}} : tensor<1x2x2x2x2xf32>) outs(%{{.+}} : tensor<1x2x2x2x2xf32>) permutation = [0, 4, 1, 2, 3]
// CHECK:         %[[X0:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [1, 2, 1, 4, 4]
// CHECK:         linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%[[X0]], %{{.+}} : tensor<1x2x4x4xf32>, tensor<2x2xf32>)
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         %[[SUM:.+]] = tensor.insert_slice
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         %[[ALL:.+]] = tensor.insert_slice
// CHECK:         linalg.transpose ins(%[[ALL]] : tensor<1x2x2x2x2xf32>) outs(%{{.+}} : tensor<1x2x2x2x2xf32>) permutation = [0, 2, 3, 4, 1]
// CHECK-NOT:     linalg.pooling_ndhwc_sum
func.func @ndhwc_sum_pool(%arg0: tensor<1x4x4x4x2xf32>) -> tensor<1x2x2x2x2xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x2x2xf32>
  %1 = tensor.empty() : tensor<1x2x2x2x2xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  %3 = linalg.pooling_ndhwc_sum {dilations = dense<1> : vector<3xi64>, strides = dense<2> : vector<3xi64>} ins(%arg0, %0 : tensor<1x4x4x4x2xf32>, tensor<2x2x2xf32>) outs(%2 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  return %3 : tensor<1x2x2x2x2xf32>
}
