// RUN: tessel-opt %s -split-input-file -tessel-fold-operand-extensions | FileCheck %s

// A bf16 nn.Linear as torch-mlir imports it: both operands extended to f32.
// The matmul reads the bf16 tensors into its f32 accumulator; the
// extensions go.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xbf16>, %[[W:.+]]: tensor<64x16xbf16>)
// CHECK-NOT:     arith.extf
// CHECK:         linalg.matmul ins(%[[X]], %[[W]] : tensor<8x64xbf16>, tensor<64x16xbf16>) outs(%{{.+}} : tensor<8x16xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear(%x: tensor<8x64xbf16>, %w: tensor<64x16xbf16>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xbf16>) outs(%0 : tensor<8x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  %1 = tensor.empty() : tensor<64x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x16xbf16>) outs(%1 : tensor<64x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<64x16xf32>
  %2 = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// An extension another op also reads stays for that op; the batch matmul
// reads the f16 tensors.
// CHECK-LABEL: func.func @shared
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4x8xf16>, %[[W:.+]]: tensor<2x8x4xf16>)
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK:           arith.extf
// CHECK-NOT:     arith.extf
// CHECK:         %[[Y:.+]] = linalg.batch_matmul ins(%[[X]], %[[W]] : tensor<2x4x8xf16>, tensor<2x8x4xf16>) outs(%{{.+}} : tensor<2x4x4xf32>)
// CHECK:         return %[[Y]], %[[A]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @shared(%x: tensor<2x4x8xf16>, %w: tensor<2x8x4xf16>) -> (tensor<2x4x4xf32>, tensor<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<2x4x8xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x8xf16>) outs(%0 : tensor<2x4x8xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  } -> tensor<2x4x8xf32>
  %1 = tensor.empty() : tensor<2x8x4xf32>
  %b = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<2x8x4xf16>) outs(%1 : tensor<2x8x4xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    linalg.yield %e : f32
  } -> tensor<2x8x4xf32>
  %2 = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>)
                           outs(%acc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y, %a : tensor<2x4x4xf32>, tensor<2x4x8xf32>
}

// -----

// One bf16 operand beside an f32 one: the MAC array multiplies two operands
// of one type, so nothing changes.
// CHECK-LABEL: func.func @mixed
// CHECK:         arith.extf
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x16xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed(%x: tensor<8x64xbf16>, %w: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xbf16>) outs(%0 : tensor<8x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  %2 = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// An int8 linear layer from ONNX's QDQ format: the activation dequantized
// per tensor (zero point -3, scale 0.5), the constant weight [N, K] per row
// (zero points 0, scales %s), transposed, an f32 matmul. The matmul reads
// the i8 activation and the weight transposed at compile time into an i32
// accumulator; the activation's zero point times each weight row's sum
// (-3 * (1 + 2) = -9, -3 * (3 + -4) = 3) is subtracted, the scales applied
// after.
// CHECK-LABEL: func.func @int8_linear
// CHECK-SAME:    (%[[Q:.+]]: tensor<4x2xi8>, %[[S:.+]]: tensor<2xf32>)
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NOT:     linalg.fill ins(%{{.+}} : f32)
// CHECK:         %[[WT:.+]] = arith.constant dense<{{\[}}[1, 3], [2, -4]]> : tensor<2x2xi8>
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4x2xi32>)
// CHECK:         %[[P:.+]] = linalg.matmul ins(%[[Q]], %[[WT]] : tensor<4x2xi8>, tensor<2x2xi8>) outs(%[[ACC]] : tensor<4x2xi32>)
// CHECK:         %[[C:.+]] = arith.constant dense<[-9, 3]> : tensor<2xi32>
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[C]], %[[S]] : tensor<4x2xi32>, tensor<2xi32>, tensor<2xf32>)
// CHECK:           arith.subi
// CHECK:           arith.sitofp
// CHECK:           arith.mulf %{{.+}}, %[[HALF]]
// CHECK:           arith.mulf
// CHECK:         return %[[Y]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @int8_linear(%q: tensor<4x2xi8>, %s: tensor<2xf32>) -> tensor<4x2xf32> {
  %zp = arith.constant -3 : i32
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %wzp = arith.constant dense<0> : tensor<2xi8>
  %0 = tensor.empty() : tensor<4x2xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<4x2xi8>) outs(%0 : tensor<4x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %d = arith.subi %e, %zp : i32
    %f = arith.sitofp %d : i32 to f32
    %y = arith.mulf %f, %half : f32
    linalg.yield %y : f32
  } -> tensor<4x2xf32>
  %1 = tensor.empty() : tensor<2x2xf32>
  %b = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s, %wzp : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) outs(%1 : tensor<2x2xf32>) {
  ^bb0(%in: i8, %scale: f32, %z: i8, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %ez = arith.extsi %z : i8 to i32
    %d = arith.subi %e, %ez : i32
    %f = arith.sitofp %d : i32 to f32
    %y = arith.mulf %f, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x2xf32>
  %2 = tensor.empty() : tensor<2x2xf32>
  %bt = linalg.transpose ins(%b : tensor<2x2xf32>) outs(%2 : tensor<2x2xf32>) permutation = [1, 0]
  %3 = tensor.empty() : tensor<4x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%3 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%a, %bt : tensor<4x2xf32>, tensor<2x2xf32>)
                     outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// ONNX's MatMul: the weight stored [K, N], a scale per column, no
// transpose. The activation's zero point is 0: nothing to subtract.
// CHECK-LABEL: func.func @int8_matmul
// CHECK-SAME:    (%[[Q:.+]]: tensor<4x2xi8>, %[[S:.+]]: tensor<3xf32>)
// CHECK:         %[[W:.+]] = arith.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
// CHECK:         %[[P:.+]] = linalg.matmul ins(%[[Q]], %[[W]] : tensor<4x2xi8>, tensor<2x3xi8>) outs(%{{.+}} : tensor<4x3xi32>)
// CHECK:         arith.constant dense<0> : tensor<3xi32>
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.+}}, %[[S]] : tensor<4x3xi32>, tensor<3xi32>, tensor<3xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @int8_matmul(%q: tensor<4x2xi8>, %s: tensor<3xf32>) -> tensor<4x3xf32> {
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %0 = tensor.empty() : tensor<4x2xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<4x2xi8>) outs(%0 : tensor<4x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %f = arith.sitofp %e : i32 to f32
    %y = arith.mulf %f, %quarter : f32
    linalg.yield %y : f32
  } -> tensor<4x2xf32>
  %1 = tensor.empty() : tensor<2x3xf32>
  %b = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<2x3xi8>, tensor<3xf32>) outs(%1 : tensor<2x3xf32>) {
  ^bb0(%in: i8, %scale: f32, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %f = arith.sitofp %e : i32 to f32
    %y = arith.mulf %f, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  %3 = tensor.empty() : tensor<4x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%3 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x3xf32>)
                     outs(%acc : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// ONNX's MatMul of a 3-D activation: a batch matmul of one batch whose
// weight is broadcast from [K, N]. The i8 weight is the constant seen as
// [1, K, N]; the activation dequantized without a zero point (sitofp of the
// i8 value itself).
// CHECK-LABEL: func.func @int8_batch_of_one
// CHECK-SAME:    (%[[Q:.+]]: tensor<1x4x2xi8>, %[[S:.+]]: tensor<3xf32>)
// CHECK:         %[[W:.+]] = arith.constant dense<{{\[}}{{\[}}[1, 2, 3], [4, 5, 6]]]> : tensor<1x2x3xi8>
// CHECK:         %[[P:.+]] = linalg.batch_matmul ins(%[[Q]], %[[W]] : tensor<1x4x2xi8>, tensor<1x2x3xi8>) outs(%{{.+}} : tensor<1x4x3xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.+}}, %[[S]] : tensor<1x4x3xi32>, tensor<3xi32>, tensor<3xf32>)
// CHECK-NOT:     linalg.batch_matmul
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#bcast = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @int8_batch_of_one(%q: tensor<1x4x2xi8>, %s: tensor<3xf32>) -> tensor<1x4x3xf32> {
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %0 = tensor.empty() : tensor<1x4x2xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<1x4x2xi8>) outs(%0 : tensor<1x4x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    %y = arith.mulf %f, %quarter : f32
    linalg.yield %y : f32
  } -> tensor<1x4x2xf32>
  %1 = tensor.empty() : tensor<2x3xf32>
  %b = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<2x3xi8>, tensor<3xf32>) outs(%1 : tensor<2x3xf32>) {
  ^bb0(%in: i8, %scale: f32, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %f = arith.sitofp %e : i32 to f32
    %y = arith.mulf %f, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  %2 = tensor.empty() : tensor<1x2x3xf32>
  %bb = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<2x3xf32>) outs(%2 : tensor<1x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x3xf32>
  %3 = tensor.empty() : tensor<1x4x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%3 : tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %y = linalg.batch_matmul ins(%a, %bb : tensor<1x4x2xf32>, tensor<1x2x3xf32>)
                           outs(%acc : tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  return %y : tensor<1x4x3xf32>
}

// -----

// PT2E's linear of a 3-D activation: the activation dequantized by a chain
// of ops (to f32, minus the zero point 6, times the scale 0.5), its leading
// dimensions merged; the weight a function argument [N, K] dequantized per
// row by scales [N, 1] (its zero points, all 0, left out by the capture),
// transposed. The chain is fused, the i8 activation merged, the weight
// transposed as i8; its column sums are not known here, so the product is
// a quantized matmul with the activation's zero point, rescaled after.
// CHECK-LABEL: func.func @pt2e_linear
// CHECK-SAME:    (%[[Q:.+]]: tensor<1x4x2xi8>, %[[W:.+]]: tensor<3x2xi8>, %[[S:.+]]: tensor<3x1xf32>)
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[QM:.+]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2]] : tensor<1x4x2xi8> into tensor<4x2xi8>
// CHECK:         %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<3x2xi8>) outs(%{{.+}} : tensor<2x3xi8>) permutation = [1, 0]
// CHECK:         %[[Z:.+]] = arith.constant 0 : i32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[Z]] : i32) outs(%{{.+}} : tensor<4x3xi32>)
// CHECK:         %[[ZP:.+]] = arith.constant 6 : i32
// CHECK:         %[[P:.+]] = linalg.quantized_matmul ins(%[[QM]], %[[WT]], %[[ZP]], %[[Z]] : tensor<4x2xi8>, tensor<2x3xi8>, i32, i32) outs(%[[ACC]] : tensor<4x3xi32>)
// CHECK:         %[[SN:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[SN]] : tensor<4x3xi32>, tensor<3xf32>)
// CHECK-NOT:       arith.subi
// CHECK:           arith.sitofp
// CHECK:           arith.mulf %{{.+}}, %[[HALF]]
// CHECK:           arith.mulf
// CHECK:         return %[[Y]]
// CHECK-NOT:     tensor<1x4x2xf32>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#per_row = affine_map<(d0, d1) -> (d0, 0)>
func.func @pt2e_linear(%q: tensor<1x4x2xi8>, %w: tensor<3x2xi8>, %s: tensor<3x1xf32>) -> tensor<4x3xf32> {
  %zp = arith.constant 6.0 : f32
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x4x2xf32>
  %f = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<1x4x2xi8>) outs(%0 : tensor<1x4x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %c = arith.sitofp %in : i8 to f32
    linalg.yield %c : f32
  } -> tensor<1x4x2xf32>
  %d = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%f : tensor<1x4x2xf32>) outs(%0 : tensor<1x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.subf %in, %zp : f32
    linalg.yield %c : f32
  } -> tensor<1x4x2xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d : tensor<1x4x2xf32>) outs(%0 : tensor<1x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.mulf %in, %half : f32
    linalg.yield %c : f32
  } -> tensor<1x4x2xf32>
  %am = tensor.collapse_shape %a [[0, 1], [2]] : tensor<1x4x2xf32> into tensor<4x2xf32>
  %1 = tensor.empty() : tensor<3x2xf32>
  %b = linalg.generic {indexing_maps = [#id2, #per_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<3x2xi8>, tensor<3x1xf32>) outs(%1 : tensor<3x2xf32>) {
  ^bb0(%in: i8, %scale: f32, %out: f32):
    %c = arith.sitofp %in : i8 to f32
    %y = arith.mulf %c, %scale : f32
    linalg.yield %y : f32
  } -> tensor<3x2xf32>
  %2 = tensor.empty() : tensor<2x3xf32>
  %bt = linalg.transpose ins(%b : tensor<3x2xf32>) outs(%2 : tensor<2x3xf32>) permutation = [1, 0]
  %3 = tensor.empty() : tensor<4x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%3 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.matmul ins(%am, %bt : tensor<4x2xf32>, tensor<2x3xf32>)
                     outs(%acc : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// An int8 convolution (ONNX's QDQ, PT2E's): the input dequantized per
// tensor (zero point -2, scale 0.5) and padded by a view with 0, the
// constant filter [F, C, KH, KW] per output channel, the bias broadcast
// into the accumulator. The i8 input is padded with its zero point (the
// value that dequantizes to 0), the i8 filter read as it is into an i32
// accumulator from zero; each output channel's filter sum times the zero
// point (-2 * (1 + 2 + 3 + 4) = -20, -2 * (-1 + 0 + 0 + 1) = 0) is
// subtracted, the scales and the bias applied after.
// CHECK-LABEL: func.func @int8_conv
// CHECK-SAME:    (%[[Q:.+]]: tensor<1x1x3x3xi8>, %[[S:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[W:.+]] = arith.constant dense<{{.+}}> : tensor<2x1x2x2xi8>
// CHECK:         %[[P:.+]] = tessel.pad_view %[[Q]] low [0, 0, 1, 1] high [0, 0, 1, 1] value -2.000000e+00 : tensor<1x1x3x3xi8> to tensor<1x1x5x5xi8>
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<1x2x4x4xi32>)
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[P]], %[[W]] : tensor<1x1x5x5xi8>, tensor<2x1x2x2xi8>) outs(%[[ACC]] : tensor<1x2x4x4xi32>)
// CHECK:         %[[SUMS:.+]] = arith.constant dense<[-20, 0]> : tensor<2xi32>
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[C]], %[[SUMS]], %[[S]], %[[B]] : tensor<1x2x4x4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:           arith.subi
// CHECK:           arith.sitofp
// CHECK:           arith.mulf %{{.+}}, %[[HALF]]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[Y]]
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#per_filter = affine_map<(d0, d1, d2, d3) -> (d0)>
func.func @int8_conv(%q: tensor<1x1x3x3xi8>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %zp = arith.constant -2 : i32
  %half = arith.constant 0.5 : f32
  %w = arith.constant dense<[[[[1, 2], [3, 4]]], [[[-1, 0], [0, 1]]]]> : tensor<2x1x2x2xi8>
  %0 = tensor.empty() : tensor<1x1x3x3xf32>
  %a = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q : tensor<1x1x3x3xi8>) outs(%0 : tensor<1x1x3x3xf32>) {
  ^bb0(%in: i8, %out: f32):
    %e = arith.extsi %in : i8 to i32
    %d = arith.subi %e, %zp : i32
    %f = arith.sitofp %d : i32 to f32
    %y = arith.mulf %f, %half : f32
    linalg.yield %y : f32
  } -> tensor<1x1x3x3xf32>
  %padded = tessel.pad_view %a low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x1x3x3xf32> to tensor<1x1x5x5xf32>
  %1 = tensor.empty() : tensor<2x1x2x2xf32>
  %f = linalg.generic {indexing_maps = [#nchw, #per_filter, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %s : tensor<2x1x2x2xi8>, tensor<2xf32>) outs(%1 : tensor<2x1x2x2xf32>) {
  ^bb0(%in: i8, %scale: f32, %out: f32):
    %c = arith.sitofp %in : i8 to f32
    %y = arith.mulf %c, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x1x2x2xf32>
  %2 = tensor.empty() : tensor<1x2x4x4xf32>
  %bias = linalg.broadcast ins(%b : tensor<2xf32>) outs(%2 : tensor<1x2x4x4xf32>) dimensions = [0, 2, 3]
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %f : tensor<1x1x5x5xf32>, tensor<2x1x2x2xf32>)
      outs(%bias : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
