//===- ConvPlan.h - How a convolution step meets the MAC array --*- C++ -*-===//
//
// How tessel-lower-to-instructions turns a conv_2d_nchw_fchw step into
// MAC-array instructions: the arrangement with the fewest.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_CONVPLAN_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_CONVPLAN_H

#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cstdint>

namespace mlir::tessel {

/// The shape of one conv_2d_nchw_fchw step and of the MAC array.
struct ConvShape {
  int64_t images, filters, outRows, outCols;
  /// The length of the contraction each instruction runs (the longest of
  /// channels, kernel rows, kernel columns) and the number of (outer, inner)
  /// kernel loop iterations around it.
  int64_t contraction, taps;
  /// Distance between consecutive output rows' first inputs, counted in
  /// steps between consecutive output columns' inputs (the input row pitch
  /// times the vertical stride, over the horizontal stride); 0 when that is
  /// not a whole number.
  int64_t pitch;
  int64_t macRows, macCols;
  bool weightStationary;
};

/// The shape of a step with `channels` x `kernelRows` x `kernelCols` taps
/// whose input rows are `inputPitch` elements apart (in units of the
/// input's column stride).
inline ConvShape getConvShape(int64_t images, int64_t filters, int64_t outRows,
                              int64_t outCols, int64_t channels,
                              int64_t kernelRows, int64_t kernelCols,
                              int64_t strideRows, int64_t strideCols,
                              int64_t inputPitch, int64_t macRows,
                              int64_t macCols, bool weightStationary) {
  int64_t contraction = std::max({channels, kernelRows, kernelCols});
  int64_t rowStep = strideRows * inputPitch;
  return {images,
          filters,
          outRows,
          outCols,
          contraction,
          channels * kernelRows * kernelCols / contraction,
          rowStep % strideCols == 0 ? rowStep / strideCols : 0,
          macRows,
          macCols,
          weightStationary};
}

/// How the step runs.
///
/// Per output row, the weights (filters x contraction) stream against a
/// stationary block of the row's input pixels: the output's row is the
/// MAC array's column dimension. Or, transposed, the pixels stream against
/// a stationary block of weights; then, where the output's rows are as far
/// apart as the input's (a 1x1 convolution without stride or padding),
/// `rowsPerStream` output rows form one stream of rows x outCols pixels.
///
/// Merging rows whose input pitch is wider than the output's would stream
/// (rows - 1) * pitch + outCols pixels into an SRAM temporary and drop the
/// pixels between rows; with the temporary, first-fit SRAM allocation
/// fragments (ResNet-18 needs 297 KB of a 256 KB SRAM for 232 KB of live
/// buffers), so it waits for an allocator that packs by lifetime.
struct ConvPlan {
  bool pixelsStream = false;
  int64_t rowsPerStream = 1;
  int64_t instructions = 0;
};

/// MAC-array instructions for one (m x k) * (k x n) product: the array
/// holds a rows x cols block of the stationary operand (rhs when weight
/// stationary, the accumulator otherwise) and streams the rest.
inline int64_t countMatmulBlocks(const ConvShape &s, int64_t m, int64_t k,
                                 int64_t n) {
  int64_t stationary = s.weightStationary ? llvm::divideCeil(k, s.macRows)
                                          : llvm::divideCeil(m, s.macRows);
  return stationary * llvm::divideCeil(n, s.macCols);
}

/// The plan with the fewest instructions.
inline ConvPlan planConv(const ConvShape &s) {
  ConvPlan best;
  best.instructions = s.images * s.outRows * s.taps *
                      countMatmulBlocks(s, s.filters, s.contraction, s.outCols);
  int64_t maxRows = s.pitch == s.outCols ? s.outRows : 1;
  for (int64_t rows = 1; rows <= maxRows; ++rows) {
    int64_t streams = s.images * llvm::divideCeil(s.outRows, rows);
    int64_t count = streams * s.taps *
                    countMatmulBlocks(s, rows * s.outCols, s.contraction,
                                      s.filters);
    if (count < best.instructions)
      best = {true, rows, count};
  }
  return best;
}

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_CONVPLAN_H
