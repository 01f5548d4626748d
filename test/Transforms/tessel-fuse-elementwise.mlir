// RUN: tessel-opt %s -tessel-fuse-elementwise | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A bias add and a ReLU become one op; the matmul and the flatten before it
// stay as they are (no reshape is propagated through the matmul).
// CHECK-LABEL: func.func @linear_relu
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
func.func @linear_relu(%x: tensor<2x4x4xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x4x4xf32> into tensor<2x16xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %mm = linalg.matmul ins(%flat, %w : tensor<2x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %relu : tensor<2x8xf32>
}

// BERT's token types, token_type_ids[position_ids], then their embedding:
// the producer of indices stays its own op, so that each body reads one
// table at indices that are an operand (one dma_gather each).
// CHECK-LABEL: func.func @gather_of_a_gather
// CHECK:         %[[TYPES:.+]] = linalg.generic
// CHECK:           tensor.extract %{{.+}} : tensor<32xi64>
// CHECK:         linalg.generic {{.*}} ins(%[[TYPES]] : tensor<8xi64>)
// CHECK:           tensor.extract %{{.+}} : tensor<2x4xf32>
func.func @gather_of_a_gather(%positions: tensor<8xi64>, %buffered: tensor<32xi64>, %table: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %ei = tensor.empty() : tensor<8xi64>
  %types = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%positions : tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%p: i64, %o: i64):
    %i = arith.index_cast %p : i64 to index
    %t = tensor.extract %buffered[%i] : tensor<32xi64>
    linalg.yield %t : i64
  } -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%types : tensor<8xi64>) outs(%ef : tensor<8x4xf32>) {
  ^bb0(%t: i64, %o: f32):
    %i = arith.index_cast %t : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%i, %j] : tensor<2x4xf32>
    linalg.yield %e : f32
  } -> tensor<8x4xf32>
  return %rows : tensor<8x4xf32>
}

// An ONNX Gather's wrap of negative ids (ids < 0 ? ids + 100 : ids), as
// separate ops on the ids: arithmetic on indices fuses into the lookup.
// CHECK-LABEL: func.func @wrapped_ids
// CHECK:         linalg.generic
// CHECK-DAG:       arith.cmpi slt
// CHECK-DAG:       arith.addi
// CHECK:           arith.select
// CHECK:           tensor.extract %{{.+}} : tensor<100x4xf32>
// CHECK-NOT:     linalg.generic
func.func @wrapped_ids(%ids: tensor<8xi64>, %table: tensor<100x4xf32>) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : i64
  %c100 = arith.constant 100 : i64
  %eb = tensor.empty() : tensor<8xi1>
  %negative = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<8xi64>) outs(%eb : tensor<8xi1>) {
  ^bb0(%i: i64, %o: i1):
    %n = arith.cmpi slt, %i, %c0 : i64
    linalg.yield %n : i1
  } -> tensor<8xi1>
  %ei = tensor.empty() : tensor<8xi64>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%i: i64, %o: i64):
    %s = arith.addi %i, %c100 : i64
    linalg.yield %s : i64
  } -> tensor<8xi64>
  %wrapped = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%negative, %shifted, %ids : tensor<8xi1>, tensor<8xi64>, tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%n: i1, %s: i64, %i: i64, %o: i64):
    %w = arith.select %n, %s, %i : i64
    linalg.yield %w : i64
  } -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%wrapped : tensor<8xi64>) outs(%ef : tensor<8x4xf32>) {
  ^bb0(%w: i64, %o: f32):
    %r = arith.index_cast %w : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%r, %j] : tensor<100x4xf32>
    linalg.yield %e : f32
  } -> tensor<8x4xf32>
  return %rows : tensor<8x4xf32>
}

// The same wrap, of ids [1, 8] that the lookup reads flat (ONNX's Gather):
// the lookup takes the ids' shape, and the wrap fuses into it.
// CHECK-LABEL: func.func @wrapped_ids_reshaped
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<1x8xi64>)
// CHECK:           arith.select
// CHECK:           tensor.extract %{{.+}} : tensor<100x4xf32>
// CHECK-NOT:     linalg.generic
func.func @wrapped_ids_reshaped(%ids: tensor<1x8xi64>, %table: tensor<100x4xf32>) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : i64
  %c100 = arith.constant 100 : i64
  %ei = tensor.empty() : tensor<1x8xi64>
  %wrapped = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<1x8xi64>) outs(%ei : tensor<1x8xi64>) {
  ^bb0(%i: i64, %o: i64):
    %n = arith.cmpi slt, %i, %c0 : i64
    %s = arith.addi %i, %c100 : i64
    %w = arith.select %n, %s, %i : i64
    linalg.yield %w : i64
  } -> tensor<1x8xi64>
  %flat = tensor.collapse_shape %wrapped [[0, 1]] : tensor<1x8xi64> into tensor<8xi64>
  %ef = tensor.empty() : tensor<8x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%flat : tensor<8xi64>) outs(%ef : tensor<8x4xf32>) {
  ^bb0(%w: i64, %o: f32):
    %r = arith.index_cast %w : i64 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %table[%r, %j] : tensor<100x4xf32>
    linalg.yield %e : f32
  } -> tensor<8x4xf32>
  return %rows : tensor<8x4xf32>
}

// A layer norm's squared deviations fuse into their sum, which the vector
// unit reduces after evaluating them. Their input x, which a matmul reads
// too, stays an op of its own, and so does the matmul its sum reads.
// CHECK-LABEL: func.func @variance
// CHECK:         %[[X:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]], %{{.+}} : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[P:.+]] = linalg.matmul
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>)
func.func @variance(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %mean: tensor<4xf32>, %w: tensor<8x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %m: f32, %o: f32):
    %s = arith.subf %u, %m : f32
    %q = arith.mulf %s, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %var = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %pinit = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%pinit : tensor<4x8xf32>) -> tensor<4x8xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<4x8xf32>) outs(%init2 : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %var, %sum, %x : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// Softmax: exp(x - max) has two readers, its sum and the division by it;
// it fuses into both and goes (computed twice, never stored).
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[M:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[S:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0, %[[M]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %[[M]], %[[S]] : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK-NOT:     linalg.generic
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %r = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %minit = linalg.fill ins(%low : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.maximumf %u, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %d = arith.subf %u, %v : f32
    %q = math.exp %d : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x8xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %q = arith.divf %u, %v : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// A masked softmax's exponentials read a mask over the columns: computed
// in each reader, the mask would be read again by each, so they stay an op
// of their own.
// CHECK-LABEL: func.func @masked_softmax
// CHECK:         %[[E:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[E]] : tensor<4x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[E]], %{{.+}} : tensor<4x8xf32>, tensor<4xf32>)
func.func @masked_softmax(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %mask: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %r = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %mask : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %k: f32, %o: f32):
    %d = arith.subf %u, %v : f32
    %a = arith.addf %d, %k : f32
    %q = math.exp %a : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x8xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %q = arith.divf %u, %v : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
