//===- TesselAttrs.cpp - Attributes of the tessel dialect -----------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"

void TesselDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GridAttr
//===----------------------------------------------------------------------===//

/// The limit of the architecture schema's grid.rows / grid.cols.
static constexpr unsigned kMaxGridSide = 1024;

LogicalResult GridAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned rows, unsigned cols) {
  if (rows < 1 || rows > kMaxGridSide)
    return emitError() << "grid rows must be in [1, " << kMaxGridSide
                       << "], got " << rows;
  if (cols < 1 || cols > kMaxGridSide)
    return emitError() << "grid cols must be in [1, " << kMaxGridSide
                       << "], got " << cols;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

std::optional<MemorySpace> mlir::tessel::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

int64_t mlir::tessel::getSizeInBytes(MemRefType type) {
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  return llvm::divideCeil(bits, 8);
}

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

/// `<row = R, col = C, rows = N, cols = M, parts = [..]` then, in any order
/// and each at most once, `, stage = S`, `, steps = [..]`, `, order = [..]`,
/// `, resident`, `, shared` and `, on_chip`, then `>`.
Attribute MappingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t row, col, rows, cols, stage = 0;
  SmallVector<int64_t> parts, steps, order;
  auto parseField = [&](StringRef key, int64_t &value) -> ParseResult {
    return failure(parser.parseKeyword(key) || parser.parseEqual() ||
                   parser.parseInteger(value));
  };
  auto parseList = [&](SmallVector<int64_t> &values) -> ParseResult {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
      return parser.parseInteger(values.emplace_back());
    });
  };
  if (parser.parseLess() || parseField("row", row) || parser.parseComma() ||
      parseField("col", col) || parser.parseComma() ||
      parseField("rows", rows) || parser.parseComma() ||
      parseField("cols", cols) || parser.parseComma() ||
      parser.parseKeyword("parts") || parser.parseEqual() || parseList(parts))
    return {};
  bool seenStage = false, seenSteps = false, seenOrder = false,
       resident = false, shared = false, onChip = false;
  while (succeeded(parser.parseOptionalComma())) {
    if (!seenStage && succeeded(parser.parseOptionalKeyword("stage"))) {
      seenStage = true;
      if (parser.parseEqual() || parser.parseInteger(stage))
        return {};
    } else if (!seenSteps && succeeded(parser.parseOptionalKeyword("steps"))) {
      seenSteps = true;
      if (parser.parseEqual() || parseList(steps))
        return {};
    } else if (!seenOrder && succeeded(parser.parseOptionalKeyword("order"))) {
      seenOrder = true;
      if (parser.parseEqual() || parseList(order))
        return {};
    } else if (!resident &&
               succeeded(parser.parseOptionalKeyword("resident"))) {
      resident = true;
    } else if (!shared && succeeded(parser.parseOptionalKeyword("shared"))) {
      shared = true;
    } else if (!onChip &&
               succeeded(parser.parseOptionalKeyword("on_chip"))) {
      onChip = true;
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       seenStage || seenSteps || seenOrder || resident ||
                               shared || onChip
                           ? "expected 'stage', 'steps', 'order', "
                             "'resident', 'shared' or 'on_chip', each at "
                             "most once"
                           : "expected 'stage', 'steps', 'order', "
                             "'resident', 'shared' or 'on_chip'");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MappingAttr>(loc, parser.getContext(), row, col,
                                        rows, cols, parts, stage, steps,
                                        order, resident, shared, onChip);
}

void MappingAttr::print(AsmPrinter &printer) const {
  printer << "<row = " << getRow() << ", col = " << getCol()
          << ", rows = " << getRows() << ", cols = " << getCols()
          << ", parts = [";
  llvm::interleaveComma(getParts(), printer);
  printer << "]";
  if (getStage() != 0)
    printer << ", stage = " << getStage();
  if (!getSteps().empty()) {
    printer << ", steps = [";
    llvm::interleaveComma(getSteps(), printer);
    printer << "]";
  }
  if (!getOrder().empty()) {
    printer << ", order = [";
    llvm::interleaveComma(getOrder(), printer);
    printer << "]";
  }
  if (getResident())
    printer << ", resident";
  if (getShared())
    printer << ", shared";
  if (getOnChip())
    printer << ", on_chip";
  printer << ">";
}

LogicalResult MappingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t row, int64_t col, int64_t rows,
                                  int64_t cols, ArrayRef<int64_t> parts,
                                  int64_t stage, ArrayRef<int64_t> steps,
                                  ArrayRef<int64_t> order, bool resident,
                                  bool shared, bool onChip) {
  if (row < 0 || col < 0)
    return emitError() << "mapping origin (" << row << ", " << col
                       << ") must not be negative";
  if (rows < 1 || cols < 1)
    return emitError() << "mapping rectangle " << rows << "x" << cols
                       << " must have at least one tile";
  if (stage < 0)
    return emitError() << "mapping stage must not be negative, got " << stage;
  int64_t product = 1;
  for (int64_t p : parts) {
    if (p < 1)
      return emitError() << "mapping parts must be >= 1, got " << p;
    product *= p;
  }
  if (product != rows * cols)
    return emitError() << "mapping splits into " << product
                       << " parts but its " << rows << "x" << cols
                       << " rectangle has " << rows * cols << " tiles";
  if (!steps.empty() && steps.size() != parts.size())
    return emitError() << "mapping has " << steps.size() << " steps but "
                       << parts.size() << " parts: give one step per loop";
  for (int64_t step : steps)
    if (step < 1)
      return emitError() << "mapping steps must be >= 1, got " << step;
  if (!order.empty() &&
      (order.size() != parts.size() || !isPermutationVector(order)))
    return emitError() << "mapping order must list each of the "
                       << parts.size() << " loops once (0 to "
                       << int64_t(parts.size()) - 1 << "), got [" << order
                       << "]";
  return success();
}

std::pair<int64_t, int64_t> MappingAttr::getTileOfPart(int64_t index) const {
  ArrayRef<int64_t> order = getOrder();
  if (!order.empty()) {
    // The part's index along each loop, then its place with the loops in
    // `order`, the last fastest.
    ArrayRef<int64_t> parts = getParts();
    SmallVector<int64_t> coords = delinearize(index, computeStrides(parts));
    index = linearize(applyPermutation(coords, order),
                      computeStrides(applyPermutation(parts, order)));
  }
  return {getRow() + index / getCols(), getCol() + index % getCols()};
}
