//===- ProgramWriter.h - A program's files from tessel IR -------*- C++ -*-===//
//
// The program of a lowered `tessel.device` (docs/isa.md): its manifest, its
// DRAM image and one instruction stream per tile, as files. Every decision
// is read from the IR; the weights' data comes from outside (a model's
// weights are not in the IR).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_PROGRAM_PROGRAMWRITER_H
#define TESSEL_TARGET_PROGRAM_PROGRAMWRITER_H

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace mlir::tessel {

/// The bytes of each weight buffer, by name: the buffer's elements in its
/// own shape, order and element type (a buffer `permuted` by `p` holds the
/// model's weight transposed by `p`; bf16 as its 16-bit patterns).
using WeightData = llvm::StringMap<llvm::ArrayRef<char>>;

/// A program as its files hold it, by path relative to the program
/// directory: `manifest.json`, `dram.bin`, `tiles/r<R>c<C>.bin`.
struct ProgramFiles {
  llvm::SmallVector<std::pair<std::string, std::string>> files;
};

/// The files of the program of `device`. Fails with a message naming the
/// op, buffer or weight at fault and what to do. Without `digests` the
/// manifest has no SHA-256s (`sha256`, `manifest_sha256`): for a program
/// that is read back in the same process, never from a file.
llvm::Expected<ProgramFiles> buildProgram(DeviceOp device,
                                          const WeightData &weights,
                                          bool digests = true);

/// Writes `program` into `directory` atomically: the files go to a fresh
/// sibling that is renamed into place. An existing program there is
/// replaced; a path that is a file, or a non-empty directory without a
/// manifest.json, is not.
llvm::Error writeProgram(const ProgramFiles &program, llvm::StringRef directory);

} // namespace mlir::tessel

#endif // TESSEL_TARGET_PROGRAM_PROGRAMWRITER_H
