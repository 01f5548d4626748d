// RUN: tessel-opt %s -split-input-file -tessel-fold-constant-tensors | FileCheck %s

// A causal mask as torch-mlir imports `ones(t, t).tril()` and `masked_fill`:
// arange from linalg.index, a broadcast difference, a comparison, `and` with
// all-true, `not`. It folds to one i1 constant, which the select reads as
// 0.0 / 1.0 in f32 through `cmpf une`.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NOT:     linalg.index
// CHECK-NOT:     i64
// CHECK:         %[[MASK:.+]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[MASK]], %{{.+}} : tensor<3x3xf32>, tensor<3x3xf32>)
// CHECK:         ^bb0(%[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK:           %[[BIT:.+]] = arith.cmpf une, %[[M]], %{{.+}} : f32
// CHECK:           arith.select %[[BIT]], %{{.+}}, %[[S]] : f32
#id1 = affine_map<(d0) -> (d0)>
#row = affine_map<(d0, d1) -> (0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal_mask(%scores: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %zero = arith.constant 0 : i64
  %true = arith.constant true
  %ninf = arith.constant 0xFF800000 : f32
  %ones = arith.constant dense<true> : tensor<3x3xi1>
  %e1 = tensor.empty() : tensor<3xi64>
  %arange = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e1 : tensor<3xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<3xi64>
  %r = tensor.expand_shape %arange [[0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
  %c = tensor.expand_shape %arange [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
  %e2 = tensor.empty() : tensor<3x3xi64>
  %diff = linalg.generic {indexing_maps = [#row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c : tensor<1x3xi64>, tensor<3x1xi64>) outs(%e2 : tensor<3x3xi64>) {
  ^bb0(%a: i64, %b: i64, %out: i64):
    %d = arith.subi %a, %b : i64
    linalg.yield %d : i64
  } -> tensor<3x3xi64>
  %e3 = tensor.empty() : tensor<3x3xi1>
  %le = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<3x3xi64>) outs(%e3 : tensor<3x3xi1>) {
  ^bb0(%a: i64, %out: i1):
    %p = arith.cmpi sle, %a, %zero : i64
    linalg.yield %p : i1
  } -> tensor<3x3xi1>
  %and = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%le, %ones : tensor<3x3xi1>, tensor<3x3xi1>) outs(%e3 : tensor<3x3xi1>) {
  ^bb0(%a: i1, %b: i1, %out: i1):
    %p = arith.andi %a, %b : i1
    linalg.yield %p : i1
  } -> tensor<3x3xi1>
  %not = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%and : tensor<3x3xi1>) outs(%e3 : tensor<3x3xi1>) {
  ^bb0(%a: i1, %out: i1):
    %p = arith.xori %a, %true : i1
    linalg.yield %p : i1
  } -> tensor<3x3xi1>
  %e4 = tensor.empty() : tensor<3x3xf32>
  %masked = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%not, %scores : tensor<3x3xi1>, tensor<3x3xf32>) outs(%e4 : tensor<3x3xf32>) {
  ^bb0(%m: i1, %s: f32, %out: f32):
    %v = arith.select %m, %ninf, %s : f32
    linalg.yield %v : f32
  } -> tensor<3x3xf32>
  return %masked : tensor<3x3xf32>
}

// -----

// A generic that reads an input is not constant; it stays. Its i1 result is
// not the chip's to compute, so no mask is widened for it either.
// CHECK-LABEL: func.func @reads_input
// CHECK:         linalg.generic
// CHECK:         arith.cmpf ogt
// CHECK-NOT:     arith.constant dense
#id = affine_map<(d0) -> (d0)>
func.func @reads_input(%x: tensor<4xf32>) -> tensor<4xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xi1>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: f32, %out: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<4xi1>
  return %p : tensor<4xi1>
}

// -----

// A reduction is evaluated on the chip (its order of accumulation is the
// ISA's to state), even over constants.
// CHECK-LABEL: func.func @reduction
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @reduction(%acc: tensor<f32>) -> tensor<f32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%c : tensor<2xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Larger than 2^20 elements: left for the program to compute.
// CHECK-LABEL: func.func @too_large
// CHECK:         linalg.index
func.func @too_large() -> tensor<1025x1024xf32> {
  %e = tensor.empty() : tensor<1025x1024xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<1025x1024xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  } -> tensor<1025x1024xf32>
  return %g : tensor<1025x1024xf32>
}

// -----

// A tensor literal (`torch.tensor([3, 1, 5])`) arrives as a dense_resource:
// it becomes the dense constant of its bytes.
// CHECK-LABEL: func.func @literal
// CHECK:         arith.constant dense<[3, 1, 5]> : tensor<3xi64>
// CHECK-NOT:     dense_resource
func.func @literal() -> tensor<3xi64> {
  %c = arith.constant dense_resource<literal> : tensor<3xi64>
  return %c : tensor<3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      literal: "0x08000000030000000000000001000000000000000500000000000000"
    }
  }
#-}

// -----

// T5's relative position buckets: log of a distance that may be 0 (-inf),
// converted to an integer, and masked by a select. The f64 scale truncates
// to nearest, the -inf converts to the most negative integer (as x86, and
// PyTorch on it, do) and is masked: the whole op folds.
// CHECK-LABEL: func.func @buckets
// CHECK:         arith.constant dense<[0, 2]> : tensor<2xi64>
// CHECK-NOT:     linalg.generic
func.func @buckets() -> tensor<2xi64> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 1.4426950408889634 : f64
  %distances = arith.constant dense<[0.0, 4.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%distances : tensor<2xf32>) outs(%e : tensor<2xi64>) {
  ^bb0(%d: f32, %out: i64):
    %log = math.log %d : f32
    %s = arith.truncf %scale : f64 to f32
    %b = arith.mulf %log, %s : f32
    %i = arith.fptosi %b : f32 to i64
    %small = arith.cmpf oeq, %d, %zero : f32
    %c0 = arith.constant 0 : i64
    %v = arith.select %small, %c0, %i : i64
    linalg.yield %v : i64
  } -> tensor<2xi64>
  return %r : tensor<2xi64>
}
