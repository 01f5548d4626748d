//===- InstructionStreams.h - Tile programs encoded from tessel IR -*- C++ -*-===//
//
// The instruction streams of a lowered `tessel.device` (docs/isa.md): each
// core's ops encoded as the ISA's words, each tile's semaphores and token
// slots, and the source tags the instructions carry. Every decision is read
// from the IR (the tessel-assign-* passes make them); what is made here is
// only the encoding: tags numbered by first appearance, views folded to the
// ISA's rank 4. The same IR gives the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_PROGRAM_INSTRUCTIONSTREAMS_H
#define TESSEL_TARGET_PROGRAM_INSTRUCTIONSTREAMS_H

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir::tessel {

/// One tile of a program: its stream file and its initial state.
struct TileStream {
  uint32_t row = 0, col = 0;
  /// The stream file's bytes: header, then the instructions' words.
  std::string stream;
  /// How many instructions the stream holds.
  uint32_t instructions = 0;
  /// The initial count of each of the tile's semaphores, by id.
  llvm::SmallVector<uint32_t> semaphores;
  /// Token slots the tile's transfers use.
  uint32_t tokens = 0;
};

/// The source op of instructions, for per-layer reports; its id is its
/// index in `InstructionStreams::tags`.
struct SourceTag {
  std::string name;
  std::string loc;
};

struct InstructionStreams {
  /// Every tile that runs code or owns a semaphore, by (row, col).
  llvm::SmallVector<TileStream> tiles;
  llvm::SmallVector<SourceTag> tags;
};

/// The streams of `device`. Fails with a message naming the op (and its
/// source line), the operand or the buffer, and what to do: a decision the
/// IR lacks names the pass that makes it.
llvm::Expected<InstructionStreams> encodeInstructionStreams(DeviceOp device);

/// `(name, "file:line:col")` of a location, as a tag names it, or nothing
/// for an unknown one. A NameLoc gives its name; otherwise the name is the
/// position. A fused location takes its first name and first position; a
/// call site (torch-mlir's stack of frames) its innermost frame outside
/// library code, the line of the model that made the op.
std::optional<SourceTag> describeLocation(Location loc);

} // namespace mlir::tessel

#endif // TESSEL_TARGET_PROGRAM_INSTRUCTIONSTREAMS_H
