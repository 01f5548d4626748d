//===- ArchAttr.cpp - The #tessel.arch attribute --------------------------===//
//
// The architecture description as a dictionary, validated against the schema
// generated from python/tessel/arch/schema.py. The checks run in the order,
// and with the messages, of tessel.arch.model.validate, so a description is
// rejected identically whether it comes from YAML in Python or from IR.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdlib>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::tessel;

namespace {
enum class ArchFieldKind { Int, String, Enum, IntMap, EnumList, Coords };

struct ArchFieldSpec {
  const char *path;
  ArchFieldKind kind;
  int64_t min, max;
  bool powerOfTwo;
  /// Comma-separated: enum values, map keys or list items.
  const char *choices;
  bool allKeys;
  /// An int field a description may leave out, meaning `defaultValue`.
  bool hasDefault;
  int64_t defaultValue;

  SmallVector<StringRef> getChoices() const {
    SmallVector<StringRef> result;
    StringRef(choices).split(result, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    return result;
  }
  std::string choicesText() const {
    return llvm::join(getChoices(), ", ");
  }
  std::string rangeText() const {
    std::string text = "[" + std::to_string(min) + ", " + std::to_string(max) +
                       "]";
    return powerOfTwo ? text + " and a power of two" : text;
  }
};

#include "tessel/Dialect/Tessel/IR/ArchSchema.inc"

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

Attribute lookupPath(DictionaryAttr dict, StringRef path) {
  SmallVector<StringRef> parts;
  path.split(parts, '.');
  Attribute node = dict;
  for (StringRef part : parts) {
    auto section = dyn_cast_or_null<DictionaryAttr>(node);
    if (!section)
      return {};
    node = section.get(part);
  }
  return node;
}

std::optional<int64_t> getI64(Attribute attr) {
  auto integer = dyn_cast_or_null<IntegerAttr>(attr);
  if (!integer || !integer.getType().isSignlessInteger(64))
    return std::nullopt;
  return integer.getInt();
}

std::string print(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

InFlightDiagnostic fieldError(EmitErrorFn emitError, StringRef path) {
  return emitError() << "arch field '" << path << "' ";
}

LogicalResult checkInt(EmitErrorFn emitError, StringRef path, Attribute value,
                       const ArchFieldSpec &spec) {
  std::optional<int64_t> v = getI64(value);
  if (!v)
    return fieldError(emitError, path)
           << "must be an integer, got " << print(value);
  bool powerOk = !spec.powerOfTwo || llvm::isPowerOf2_64(*v);
  if (*v < spec.min || *v > spec.max || !powerOk)
    return fieldError(emitError, path)
           << "= " << *v << " is out of range: must be in " << spec.rangeText();
  return success();
}

bool isValidName(StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '.' || c == '_' || c == '-';
  });
}

LogicalResult checkField(EmitErrorFn emitError, const ArchFieldSpec &spec,
                         Attribute value) {
  StringRef path = spec.path;
  SmallVector<StringRef> choices = spec.getChoices();
  switch (spec.kind) {
  case ArchFieldKind::Int:
    return checkInt(emitError, path, value, spec);
  case ArchFieldKind::String:
  case ArchFieldKind::Enum: {
    auto str = dyn_cast<StringAttr>(value);
    if (!str)
      return fieldError(emitError, path)
             << "must be a string, got " << print(value);
    if (spec.kind == ArchFieldKind::String && !isValidName(str.getValue()))
      return fieldError(emitError, path)
             << "= '" << str.getValue()
             << "' is not allowed: must be non-empty and use only letters, "
                "digits, '.', '_' and '-'";
    if (spec.kind == ArchFieldKind::Enum &&
        !llvm::is_contained(choices, str.getValue()))
      return fieldError(emitError, path)
             << "= '" << str.getValue()
             << "' is not allowed: must be one of " << spec.choicesText();
    return success();
  }
  case ArchFieldKind::IntMap: {
    auto map = dyn_cast<DictionaryAttr>(value);
    if (!map)
      return fieldError(emitError, path)
             << "must be a mapping, got " << print(value);
    if (map.empty())
      return fieldError(emitError, path) << "must not be empty";
    for (NamedAttribute entry : map)
      if (!llvm::is_contained(choices, entry.getName().getValue()))
        return fieldError(emitError, path)
               << "has key '" << entry.getName().getValue()
               << "', which is not allowed: keys must be among "
               << spec.choicesText();
    if (spec.allKeys)
      for (StringRef key : choices)
        if (!map.get(key))
          return fieldError(emitError, path)
                 << "lacks key '" << key << "': every one of "
                 << spec.choicesText() << " is required";
    for (NamedAttribute entry : map) {
      std::string entryPath =
          (path + "." + entry.getName().getValue()).str();
      if (failed(checkInt(emitError, entryPath, entry.getValue(), spec)))
        return failure();
    }
    return success();
  }
  case ArchFieldKind::EnumList: {
    auto list = dyn_cast<ArrayAttr>(value);
    if (!list)
      return fieldError(emitError, path)
             << "must be a list, got " << print(value);
    if (list.empty())
      return fieldError(emitError, path) << "must not be empty";
    std::set<std::string> seen;
    for (Attribute item : list) {
      auto str = dyn_cast<StringAttr>(item);
      std::string text = str ? str.getValue().str() : print(item);
      if (!str || !llvm::is_contained(choices, str.getValue()))
        return fieldError(emitError, path)
               << "has item '" << text
               << "', which is not allowed: items must be among "
               << spec.choicesText();
      if (!seen.insert(text).second)
        return fieldError(emitError, path)
               << "has item '" << text << "' twice";
    }
    return success();
  }
  case ArchFieldKind::Coords: {
    auto list = dyn_cast<ArrayAttr>(value);
    if (!list)
      return fieldError(emitError, path)
             << "must be a list, got " << print(value);
    for (auto [i, entry] : llvm::enumerate(list)) {
      auto pair = dyn_cast<ArrayAttr>(entry);
      if (!pair || pair.size() != 2 || !getI64(pair[0]) || !getI64(pair[1]))
        return fieldError(emitError, path)
               << "entry " << i << " must be [row, col]";
    }
    return success();
  }
  }
  llvm_unreachable("unknown arch field kind");
}

LogicalResult checkNoUnknownFields(EmitErrorFn emitError, DictionaryAttr node,
                                   const std::string &prefix) {
  auto isKnown = [](StringRef path, bool section) {
    if (section)
      return llvm::is_contained(kArchSections, path);
    return llvm::any_of(kArchFields, [&](const ArchFieldSpec &spec) {
      return path == spec.path;
    });
  };
  for (NamedAttribute entry : node) {
    std::string path = prefix + entry.getName().getValue().str();
    if (isKnown(path, /*section=*/false))
      continue;
    if (isKnown(path, /*section=*/true)) {
      if (failed(checkNoUnknownFields(
              emitError, cast<DictionaryAttr>(entry.getValue()), path + ".")))
        return failure();
      continue;
    }
    std::set<std::string> known;
    auto addKnown = [&](StringRef candidate) {
      if (candidate.starts_with(prefix))
        known.insert(
            candidate.drop_front(prefix.size()).split('.').first.str());
    };
    for (const ArchFieldSpec &spec : kArchFields)
      addKnown(spec.path);
    for (const char *section : kArchSections)
      addKnown(section);
    std::string section =
        prefix.empty() ? "the description" : prefix.substr(0, prefix.size() - 1);
    return fieldError(emitError, path)
           << "is not part of the schema: " << section << " has "
           << llvm::join(known, ", ");
  }
  return success();
}

LogicalResult checkDramAttach(EmitErrorFn emitError, DictionaryAttr desc) {
  auto attach = cast<ArrayAttr>(lookupPath(desc, "dram.attach"));
  int64_t channels = *getI64(lookupPath(desc, "dram.channels"));
  int64_t rows = *getI64(lookupPath(desc, "grid.rows"));
  int64_t cols = *getI64(lookupPath(desc, "grid.cols"));
  if (static_cast<int64_t>(attach.size()) != channels)
    return fieldError(emitError, "dram.attach")
           << "has " << attach.size() << " entries but dram.channels = "
           << channels << ": give one [row, col] per channel";
  for (auto [i, entry] : llvm::enumerate(attach)) {
    auto pair = cast<ArrayAttr>(entry);
    int64_t row = *getI64(pair[0]), col = *getI64(pair[1]);
    auto where = [&]() {
      return fieldError(emitError, "dram.attach")
             << "entry " << i << " = [" << row << ", " << col << "] ";
    };
    if (row < 0 || row >= rows || col < 0 || col >= cols)
      return where() << "lies outside the " << rows << "x" << cols << " grid";
    if (row != 0 && row != rows - 1 && col != 0 && col != cols - 1)
      return where() << "is not on the edge of the " << rows << "x" << cols
                     << " grid: row must be 0 or " << rows - 1 << ", or col 0 or "
                     << cols - 1;
  }
  return success();
}

/// Two weight buffers overlap the next weight block's load with the
/// current block's stream: only a weight-stationary array holds weights.
LogicalResult checkWeightBuffers(EmitErrorFn emitError, DictionaryAttr desc) {
  Attribute buffers = lookupPath(desc, "tile.mac.weight_buffers");
  if (!buffers || *getI64(buffers) == 1)
    return success();
  StringRef dataflow =
      cast<StringAttr>(lookupPath(desc, "tile.mac.dataflow")).getValue();
  if (dataflow == "weight_stationary")
    return success();
  return fieldError(emitError, "tile.mac.weight_buffers")
         << "= " << *getI64(buffers)
         << " needs tile.mac.dataflow = weight_stationary: an " << dataflow
         << " array holds no weight block, give 1";
}

/// Prints integers without their (always i64) type, so the attribute reads
/// like the YAML it came from; the parser reads bare integers back as i64.
void printBare(AsmPrinter &printer, Attribute attr) {
  if (std::optional<int64_t> value = getI64(attr)) {
    printer << *value;
  } else if (auto list = dyn_cast<ArrayAttr>(attr)) {
    printer << "[";
    llvm::interleaveComma(list, printer,
                          [&](Attribute item) { printBare(printer, item); });
    printer << "]";
  } else if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    printer << "{";
    llvm::interleaveComma(dict, printer, [&](NamedAttribute entry) {
      printer.printKeywordOrString(entry.getName().getValue());
      printer << " = ";
      printBare(printer, entry.getValue());
    });
    printer << "}";
  } else {
    printer.printAttribute(attr);
  }
}

} // namespace

LogicalResult ArchAttr::verify(EmitErrorFn emitError, DictionaryAttr desc) {
  for (const char *section : kArchSections) {
    Attribute node = lookupPath(desc, section);
    if (!node && llvm::is_contained(kArchOptionalSections, StringRef(section)))
      continue;
    if (!node)
      return fieldError(emitError, section) << "is missing";
    if (!isa<DictionaryAttr>(node))
      return fieldError(emitError, section) << "must be a mapping of fields";
  }
  for (const ArchFieldSpec &spec : kArchFields) {
    Attribute value = lookupPath(desc, spec.path);
    if (!value && spec.hasDefault)
      continue;
    if (!value)
      return fieldError(emitError, spec.path) << "is missing";
    if (failed(checkField(emitError, spec, value)))
      return failure();
  }
  if (failed(checkNoUnknownFields(emitError, desc, "")))
    return failure();
  if (failed(checkDramAttach(emitError, desc)))
    return failure();
  return checkWeightBuffers(emitError, desc);
}

Attribute ArchAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr desc;
  if (parser.parseLess() || parser.parseAttribute(desc) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<ArchAttr>(parser.getContext(), desc);
}

void ArchAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBare(printer, getDescription());
  printer << ">";
}

SmallVector<ArchFieldInfo> mlir::tessel::getArchFields() {
  SmallVector<ArchFieldInfo> fields;
  for (const ArchFieldSpec &spec : kArchFields) {
    ArchFieldInfo::Kind kind;
    switch (spec.kind) {
    case ArchFieldKind::Int: kind = ArchFieldInfo::Kind::Int; break;
    case ArchFieldKind::String: kind = ArchFieldInfo::Kind::String; break;
    case ArchFieldKind::Enum: kind = ArchFieldInfo::Kind::Enum; break;
    case ArchFieldKind::IntMap: kind = ArchFieldInfo::Kind::IntMap; break;
    case ArchFieldKind::EnumList: kind = ArchFieldInfo::Kind::EnumList; break;
    case ArchFieldKind::Coords: kind = ArchFieldInfo::Kind::Coords; break;
    }
    fields.push_back({spec.path, kind, spec.getChoices()});
  }
  return fields;
}

Attribute ArchAttr::getField(StringRef path) const {
  return lookupPath(getDescription(), path);
}

int64_t ArchAttr::getIntField(StringRef path) const {
  if (Attribute value = lookupPath(getDescription(), path))
    return *getI64(value);
  const ArchFieldSpec *spec =
      llvm::find_if(kArchFields, [&](const ArchFieldSpec &candidate) {
        return path == candidate.path;
      });
  assert(spec != std::end(kArchFields) && spec->hasDefault &&
         "a verified #tessel.arch holds every field without a default");
  return spec->defaultValue;
}

StringRef ArchAttr::getStringField(StringRef path) const {
  return cast<StringAttr>(lookupPath(getDescription(), path)).getValue();
}

GridAttr ArchAttr::getGrid() const {
  return GridAttr::get(getContext(), getGridRows(), getGridCols());
}

StringRef ArchAttr::getDtypeName(Type elementType) {
  if (elementType.isF32())
    return "f32";
  if (elementType.isF16())
    return "f16";
  if (elementType.isBF16())
    return "bf16";
  if (elementType.isInteger(8))
    return "i8";
  if (elementType.isInteger(32))
    return "i32";
  if (elementType.isInteger(64))
    return "i64";
  return "";
}

int64_t ArchAttr::getMacsPerCycle(Type elementType) const {
  auto map = cast<DictionaryAttr>(
      lookupPath(getDescription(), "tile.mac.macs_per_cycle"));
  StringRef name = getDtypeName(elementType);
  Attribute value = name.empty() ? Attribute() : map.get(name);
  return value ? *getI64(value) : 0;
}

bool ArchAttr::vectorSupports(Type elementType) const {
  StringRef name = getDtypeName(elementType);
  auto dtypes =
      cast<ArrayAttr>(lookupPath(getDescription(), "tile.vector.dtypes"));
  return !name.empty() && llvm::any_of(dtypes, [&](Attribute item) {
    return cast<StringAttr>(item).getValue() == name;
  });
}

int64_t ArchAttr::getVectorLatency(StringRef op) const {
  auto map =
      cast<DictionaryAttr>(lookupPath(getDescription(), "tile.vector.latency"));
  return *getI64(map.get(op));
}

SmallVector<std::pair<int64_t, int64_t>> ArchAttr::getDramAttach() const {
  SmallVector<std::pair<int64_t, int64_t>> result;
  for (Attribute entry :
       cast<ArrayAttr>(lookupPath(getDescription(), "dram.attach"))) {
    auto pair = cast<ArrayAttr>(entry);
    result.emplace_back(*getI64(pair[0]), *getI64(pair[1]));
  }
  return result;
}

SmallVector<unsigned> ArchAttr::getNearestDramChannels(int64_t row,
                                                       int64_t col) const {
  SmallVector<unsigned> nearest;
  int64_t best = std::numeric_limits<int64_t>::max();
  for (auto [index, at] : llvm::enumerate(getDramAttach())) {
    int64_t hops = std::abs(at.first - row) + std::abs(at.second - col);
    if (hops < best)
      nearest.clear();
    if (hops <= best) {
      best = hops;
      nearest.push_back(index);
    }
  }
  return nearest;
}

unsigned ArchAttr::getSplitChannels(int64_t row, int64_t col) const {
  SmallVector<unsigned> own = getNearestDramChannels(row, col);
  for (int64_t r = 0; r < getGridRows(); ++r)
    for (int64_t c = 0; c < getGridCols(); ++c) {
      if (r == row && c == col)
        continue;
      for (unsigned channel : getNearestDramChannels(r, c))
        if (llvm::is_contained(own, channel))
          return 1;
    }
  return std::max<int64_t>(
      1, std::min<int64_t>(own.size(), getTileDmaChannels()));
}

int64_t ArchAttr::getTransferBytesPerCycle() const {
  return std::min(getTileDmaBytesPerCycle(), getDramBytesPerCycle());
}

int64_t ArchAttr::getFixedTransferBytes() const {
  return (getTileDmaSetupCycles() + getDramLatencyCycles()) *
         getTransferBytesPerCycle();
}

int64_t ArchAttr::getSetupTransferBytes() const {
  return getTileDmaSetupCycles() * getTransferBytesPerCycle();
}

int64_t ArchAttr::getMatmulStreamCycles(int64_t m, int64_t k, int64_t n,
                                        Type elementType) const {
  bool weightStationary = getTileMacDataflow() == "weight_stationary";
  int64_t steps = llvm::divideCeilSigned(
      (weightStationary ? m : k) * getTileMacRows() * getTileMacCols(),
      std::max<int64_t>(getMacsPerCycle(elementType), 1));
  int64_t size = llvm::divideCeilSigned(
      static_cast<int64_t>(elementType.getIntOrFloatBitWidth()), 8);
  int64_t bytes = (m * k + k * n) * size + m * n * 4;
  return std::max(steps,
                  llvm::divideCeilSigned(bytes, getTileSramBytesPerCycle()));
}

ArchAttr mlir::tessel::lookupArch(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (auto device = dyn_cast<DeviceOp>(parent))
      return device.getArch();
    if (isa<ModuleOp>(parent))
      if (auto arch = parent->getAttrOfType<ArchAttr>(
              TesselDialect::getArchAttrName()))
        return arch;
  }
  return {};
}

ArchAttr mlir::tessel::lookupArchOrError(Operation *op) {
  ArchAttr arch = lookupArch(op);
  if (!arch)
    op->emitError() << "no target: the enclosing module has no '"
                    << TesselDialect::getArchAttrName()
                    << "' attribute; attach the target's #tessel.arch to the "
                       "module (the Python driver does this)";
  return arch;
}
