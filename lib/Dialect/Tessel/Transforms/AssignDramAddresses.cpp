//===- AssignDramAddresses.cpp - A byte offset for every DRAM buffer ------===//
//
// The program format lists each DRAM buffer at a byte offset in the DRAM
// image (docs/isa.md). Buffers that a user or an earlier pass placed keep
// their `at`; the others are packed first-fit in declaration order, so the
// same IR always gives the same layout and the layout can be read, and
// pinned, in the IR.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNDRAMADDRESSES
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

/// Every DRAM buffer starts at a multiple of this many bytes (docs/isa.md),
/// so that every element type is aligned and bursts start on a line.
constexpr int64_t kDramAlignment = 64;

/// The lowest multiple of the alignment where `size` bytes overlap none of
/// `taken` (half-open byte ranges, sorted). An empty buffer overlaps nothing.
int64_t firstFit(ArrayRef<std::pair<int64_t, int64_t>> taken, int64_t size) {
  int64_t offset = 0;
  for (auto [begin, end] : taken) {
    if (offset + size <= begin || size == 0)
      break;
    offset = std::max<int64_t>(offset, llvm::alignTo(end, kDramAlignment));
  }
  return offset;
}

LogicalResult assignAddresses(DeviceOp device) {
  SmallVector<std::pair<int64_t, int64_t>> taken;
  SmallVector<DramBufferOp> unplaced;
  for (auto buffer : device.getBody().front().getOps<DramBufferOp>()) {
    if (std::optional<uint64_t> address = buffer.getAddress())
      taken.push_back({static_cast<int64_t>(*address),
                       static_cast<int64_t>(*address) +
                           buffer.getSizeInBytes()});
    else
      unplaced.push_back(buffer);
  }
  int64_t capacity = device.getArch().getDramCapacityBytes();
  for (DramBufferOp buffer : unplaced) {
    llvm::sort(taken);
    int64_t size = buffer.getSizeInBytes();
    int64_t offset = firstFit(taken, size);
    if (offset + size > capacity)
      return buffer.emitOpError()
             << "does not fit in DRAM: its " << size
             << " bytes would start at " << offset
             << " (the lowest offset free of the buffers placed before it) and "
                "the DRAM holds "
             << capacity << " bytes";
    taken.push_back({offset, offset + size});
    buffer.setAddress(offset);
  }
  return success();
}

struct AssignDramAddresses
    : impl::TesselAssignDramAddressesBase<AssignDramAddresses> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](DeviceOp device) {
      return failed(assignAddresses(device)) ? WalkResult::interrupt()
                                             : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessel
