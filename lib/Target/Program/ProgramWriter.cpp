//===- ProgramWriter.cpp - A program's files from tessel IR ---------------===//
//
// The manifest is JSON as Python's json module writes it (`indent=1`, keys
// in order, non-ASCII escaped), and its own digest is the SHA-256 of the
// canonical form (keys sorted, no spaces) without the digest: the program
// loader (runtime/program.py) reads and checks exactly these bytes, and a
// program saved again from Python is byte-identical.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Program/ProgramWriter.h"

#include "tessel/Target/Program/InstructionStreams.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <map>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

namespace mlir::tessel {
namespace {

constexpr llvm::StringLiteral kFormat = "tessel-program";
constexpr int64_t kVersion = 2;
constexpr int64_t kDramAlignment = 64;

//===----------------------------------------------------------------------===//
// JSON as Python's json.dumps writes it.
//===----------------------------------------------------------------------===//

/// A JSON value: an integer, a string, an array or an object (members in
/// order). The manifest holds no other kind.
struct Json {
  using Members = std::vector<std::pair<std::string, Json>>;
  std::variant<int64_t, std::string, std::vector<Json>, Members> value;

  Json(int64_t v) : value(v) {}
  Json(std::string v) : value(std::move(v)) {}
  Json(llvm::StringRef v) : value(v.str()) {}
  Json(const char *v) : value(std::string(v)) {}
  Json(std::vector<Json> v) : value(std::move(v)) {}
  Json(Members v) : value(std::move(v)) {}

  static Json object() { return Json(Members{}); }
  /// Member `key` of an object, created (last) if absent.
  Json &operator[](llvm::StringRef key) {
    Members &members = std::get<Members>(value);
    for (auto &[name, member] : members)
      if (name == key)
        return member;
    members.emplace_back(key.str(), object());
    return members.back().second;
  }
};

/// `text` as a JSON string with ensure_ascii: `"` and `\` escaped, the
/// control characters by name or as \u00XX, and everything outside
/// printable ASCII as \uXXXX (UTF-16, surrogate pairs above the BMP).
void writeString(llvm::raw_ostream &os, llvm::StringRef text) {
  os << '"';
  const auto *bytes = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const llvm::UTF8 *end = bytes + text.size();
  while (bytes < end) {
    char c = static_cast<char>(*bytes);
    if (static_cast<unsigned char>(c) < 0x80) {
      ++bytes;
      switch (c) {
      case '"': os << "\\\""; continue;
      case '\\': os << "\\\\"; continue;
      case '\n': os << "\\n"; continue;
      case '\r': os << "\\r"; continue;
      case '\t': os << "\\t"; continue;
      case '\b': os << "\\b"; continue;
      case '\f': os << "\\f"; continue;
      default:
        if (c < 0x20 || c == 0x7f)
          os << llvm::formatv("\\u{0:x-4}", static_cast<unsigned>(c));
        else
          os << c;
        continue;
      }
    }
    llvm::UTF32 codePoint;
    if (llvm::convertUTF8Sequence(&bytes, end, &codePoint,
                                  llvm::strictConversion) != llvm::conversionOK) {
      // Not UTF-8 (names come from MLIR strings, which are): replaced, as a
      // decoder with errors="replace" would.
      codePoint = 0xFFFD;
      ++bytes;
    }
    if (codePoint >= 0x10000) {
      codePoint -= 0x10000;
      os << llvm::formatv("\\u{0:x-4}\\u{1:x-4}", 0xD800 + (codePoint >> 10),
                          0xDC00 + (codePoint & 0x3FF));
    } else {
      os << llvm::formatv("\\u{0:x-4}", static_cast<unsigned>(codePoint));
    }
  }
  os << '"';
}

/// `json.dumps(value, indent=1)` with `indent` >= 0, or
/// `json.dumps(value, sort_keys=True, separators=(",", ":"))` with -1.
void writeJson(llvm::raw_ostream &os, const Json &json, int indent,
               int depth = 0) {
  auto newline = [&](int level) {
    if (indent < 0)
      return;
    os << '\n';
    os.indent(level * indent);
  };
  if (const auto *v = std::get_if<int64_t>(&json.value)) {
    os << *v;
  } else if (const auto *s = std::get_if<std::string>(&json.value)) {
    writeString(os, *s);
  } else if (const auto *items = std::get_if<std::vector<Json>>(&json.value)) {
    if (items->empty()) {
      os << "[]";
      return;
    }
    os << '[';
    for (auto [i, item] : llvm::enumerate(*items)) {
      if (i)
        os << ',';
      newline(depth + 1);
      writeJson(os, item, indent, depth + 1);
    }
    newline(depth);
    os << ']';
  } else {
    const auto &members = std::get<Json::Members>(json.value);
    if (members.empty()) {
      os << "{}";
      return;
    }
    std::vector<const std::pair<std::string, Json> *> order;
    for (const auto &member : members)
      order.push_back(&member);
    if (indent < 0) // the canonical form sorts the keys
      llvm::stable_sort(order, [](auto *a, auto *b) { return a->first < b->first; });
    os << '{';
    for (auto [i, member] : llvm::enumerate(order)) {
      if (i)
        os << ',';
      newline(depth + 1);
      writeString(os, member->first);
      os << (indent < 0 ? ":" : ": ");
      writeJson(os, member->second, indent, depth + 1);
    }
    newline(depth);
    os << '}';
  }
}

std::string sha256Hex(llvm::StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)),
                     /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The arch, as Arch.to_dict() gives it.
//===----------------------------------------------------------------------===//

Json archJson(ArchAttr arch) {
  auto integer = [](Attribute attr) {
    return Json(cast<IntegerAttr>(attr).getValue().getSExtValue());
  };
  Json root = Json::object();
  for (const ArchFieldInfo &field : getArchFields()) {
    llvm::SmallVector<llvm::StringRef> sections;
    field.path.split(sections, '.');
    llvm::StringRef leaf = sections.pop_back_val();
    Json *node = &root;
    for (llvm::StringRef section : sections)
      node = &(*node)[section];
    Attribute value = arch.getField(field.path);
    switch (field.kind) {
    case ArchFieldInfo::Kind::Int:
      (*node)[leaf] = Json(arch.getIntField(field.path));
      break;
    case ArchFieldInfo::Kind::String:
    case ArchFieldInfo::Kind::Enum:
      (*node)[leaf] = Json(cast<StringAttr>(value).getValue());
      break;
    case ArchFieldInfo::Kind::IntMap: {
      // Keys in the schema's order, as Arch.from_dict keeps them.
      auto map = cast<DictionaryAttr>(value);
      Json members = Json::object();
      for (llvm::StringRef key : field.choices)
        if (Attribute entry = map.get(key))
          members[key] = integer(entry);
      (*node)[leaf] = std::move(members);
      break;
    }
    case ArchFieldInfo::Kind::EnumList: {
      std::vector<Json> items;
      for (Attribute item : cast<ArrayAttr>(value))
        items.emplace_back(cast<StringAttr>(item).getValue());
      (*node)[leaf] = Json(std::move(items));
      break;
    }
    case ArchFieldInfo::Kind::Coords: {
      std::vector<Json> items;
      for (Attribute pair : cast<ArrayAttr>(value)) {
        auto coords = cast<ArrayAttr>(pair);
        items.emplace_back(std::vector<Json>{integer(coords[0]), integer(coords[1])});
      }
      (*node)[leaf] = Json(std::move(items));
      break;
    }
    }
  }
  return root;
}

//===----------------------------------------------------------------------===//
// The DRAM buffers and image.
//===----------------------------------------------------------------------===//

/// The bytes a `constant` DRAM buffer starts with: its value's elements in
/// order, each in the buffer's element type.
llvm::Expected<std::string> constantBytes(DramBufferOp buffer, int64_t nbytes) {
  auto dense = dyn_cast_or_null<DenseIntOrFPElementsAttr>(buffer.getValueAttr());
  auto type = cast<MemRefType>(buffer.getResult().getType());
  if (!dense || dense.getElementType() != type.getElementType() ||
      dense.getElementType().isInteger(1))
    return llvm::createStringError(llvm::formatv(
        "constant DRAM buffer @{0} holds no dense value of its element type",
        buffer.getSymName()));
  llvm::ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    std::string bytes;
    bytes.reserve(nbytes);
    while (static_cast<int64_t>(bytes.size()) < nbytes)
      bytes.append(raw.data(), raw.size());
    return bytes;
  }
  return std::string(raw.data(), raw.size());
}

/// The manifest's `dram` section but for its digest, and the image: each
/// buffer that has data at its offset, zeros between, up to the last such
/// buffer.
struct DramLayout {
  std::vector<Json> buffers, inputs, outputs;
  int64_t bytes = 0;
  std::string image;
};

/// The DRAM buffers of `device` in declaration order, with `weights` and
/// the constants' values in the image.
llvm::Expected<DramLayout> layOutDram(DeviceOp device,
                                      const WeightData &weights) {
  DramLayout layout;
  std::vector<Json> &buffers = layout.buffers, &inputs = layout.inputs,
                    &outputs = layout.outputs;
  // Offset -> initial bytes: the caller's weights, and the constants'
  // bytes, which `constants` owns.
  std::map<int64_t, llvm::StringRef> data;
  std::deque<std::string> constants; // grows without moving what it holds
  int64_t end = 0;
  llvm::StringSet<> weightNames;
  for (auto buffer : device.getBody().front().getOps<DramBufferOp>()) {
    llvm::StringRef name = buffer.getSymName();
    auto type = cast<MemRefType>(buffer.getResult().getType());
    llvm::StringRef dtype = ArchAttr::getDtypeName(type.getElementType());
    if (dtype.empty())
      return llvm::createStringError(llvm::formatv(
          "DRAM buffer @{0} has element type {1}; the ISA has f32, f16, bf16, "
          "i8, i32, i64",
          name, type.getElementType()));
    // The encoder names a buffer without one, and its errors come first.
    if (!buffer.getAddress())
      return llvm::createStringError(
          llvm::formatv("DRAM buffer @{0} has no address", name));
    int64_t offset = *buffer.getAddress();
    int64_t nbytes = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
    end = std::max(end, offset + nbytes);
    DramBufferKind kind = buffer.getKind();
    if (kind == DramBufferKind::weight) {
      weightNames.insert(name);
      auto found = weights.find(name);
      if (found == weights.end())
        return llvm::createStringError(llvm::formatv(
            "no data for weight buffer @{0}", name));
      if (static_cast<int64_t>(found->second.size()) != nbytes)
        return llvm::createStringError(llvm::formatv(
            "weight @{0} has {1} bytes, the buffer {2}", name,
            found->second.size(), nbytes));
      data[offset] = llvm::toStringRef(found->second);
    } else if (kind == DramBufferKind::constant) {
      llvm::Expected<std::string> bytes = constantBytes(buffer, nbytes);
      if (!bytes)
        return bytes.takeError();
      data[offset] = constants.emplace_back(std::move(*bytes));
    } else if (kind == DramBufferKind::input) {
      inputs.emplace_back(name);
    } else if (kind == DramBufferKind::output) {
      outputs.emplace_back(name);
    }
    std::vector<Json> shape;
    for (int64_t n : type.getShape())
      shape.emplace_back(n);
    Json entry = Json::object();
    entry["name"] = Json(name);
    entry["kind"] = Json(stringifyDramBufferKind(kind));
    entry["offset"] = Json(offset);
    entry["shape"] = Json(std::move(shape));
    entry["dtype"] = Json(dtype);
    buffers.push_back(std::move(entry));
  }
  llvm::SmallVector<llvm::StringRef> unknown;
  for (const auto &entry : weights)
    if (!weightNames.contains(entry.getKey()))
      unknown.push_back(entry.getKey());
  if (!unknown.empty()) {
    llvm::sort(unknown);
    return llvm::createStringError(llvm::formatv(
        "weights given for {0}: the device has no weight buffer of that name",
        llvm::join(unknown, ", ")));
  }
  layout.bytes = llvm::alignTo(end, kDramAlignment);
  // Sized once: the weights are most of it (ResNet-18's 46 MB), and a
  // string grown buffer by buffer would copy them again as it grows.
  int64_t imageBytes = 0;
  for (auto &[offset, bytes] : data)
    imageBytes = std::max<int64_t>(imageBytes, offset + bytes.size());
  std::string &image = layout.image;
  image.assign(imageBytes, '\0');
  for (auto &[offset, bytes] : data)
    llvm::copy(bytes, image.begin() + offset);
  return layout;
}

} // namespace

llvm::Expected<ProgramFiles> buildProgram(DeviceOp device,
                                          const WeightData &weights,
                                          bool digests) {
  // The image first, so that its digest, the longest part of writing a
  // large model's program (ResNet-18's 46 MB), is taken on a second thread
  // while the instruction streams are encoded. Where both fail, the
  // encoder's error is the one reported, as when it ran first.
  llvm::Expected<DramLayout> dram = layOutDram(device, weights);
  if (!dram) {
    llvm::Expected<InstructionStreams> streams =
        encodeInstructionStreams(device);
    if (!streams) {
      llvm::consumeError(dram.takeError());
      return streams.takeError();
    }
    return dram.takeError();
  }
  std::string imageDigest;
  std::thread hashing([&] {
    if (digests)
      imageDigest = sha256Hex(dram->image);
  });
  llvm::Expected<InstructionStreams> streams = encodeInstructionStreams(device);
  hashing.join();
  if (!streams)
    return streams.takeError();

  ProgramFiles program;
  Json dramSection = Json::object();
  dramSection["bytes"] = Json(dram->bytes);
  dramSection["image"] = Json("dram.bin");
  dramSection["buffers"] = Json(std::move(dram->buffers));
  Json manifest = Json::object();
  manifest["format"] = Json(kFormat);
  manifest["version"] = Json(kVersion);
  manifest["arch"] = archJson(device.getArch());
  manifest["dram"] = std::move(dramSection);
  manifest["inputs"] = Json(std::move(dram->inputs));
  manifest["outputs"] = Json(std::move(dram->outputs));
  std::vector<Json> tiles, tags;
  Json fileDigests = Json::object();
  if (digests)
    fileDigests["dram.bin"] = Json(std::move(imageDigest));
  program.files.emplace_back("dram.bin", std::move(dram->image));
  for (TileStream &tile : streams->tiles) {
    std::string path = llvm::formatv("tiles/r{0}c{1}.bin", tile.row, tile.col);
    std::vector<Json> semaphores;
    for (uint32_t init : tile.semaphores)
      semaphores.emplace_back(static_cast<int64_t>(init));
    Json entry = Json::object();
    entry["row"] = Json(static_cast<int64_t>(tile.row));
    entry["col"] = Json(static_cast<int64_t>(tile.col));
    entry["stream"] = Json(path);
    entry["instructions"] = Json(static_cast<int64_t>(tile.instructions));
    entry["semaphores"] = Json(std::move(semaphores));
    entry["tokens"] = Json(static_cast<int64_t>(tile.tokens));
    tiles.push_back(std::move(entry));
    if (digests)
      fileDigests[path] = Json(sha256Hex(tile.stream));
    program.files.emplace_back(std::move(path), std::move(tile.stream));
  }
  for (auto [id, tag] : llvm::enumerate(streams->tags)) {
    Json entry = Json::object();
    entry["id"] = Json(static_cast<int64_t>(id));
    entry["name"] = Json(tag.name);
    entry["op"] = Json("");
    entry["loc"] = Json(tag.loc);
    tags.push_back(std::move(entry));
  }
  manifest["tiles"] = Json(std::move(tiles));
  manifest["tags"] = Json(std::move(tags));
  if (digests) {
    manifest["sha256"] = std::move(fileDigests);
    std::string canonical;
    llvm::raw_string_ostream canonicalOs(canonical);
    writeJson(canonicalOs, manifest, /*indent=*/-1);
    manifest["manifest_sha256"] = Json(sha256Hex(canonical));
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  writeJson(os, manifest, /*indent=*/1);
  os << '\n';
  program.files.insert(program.files.begin(),
                       std::make_pair(std::string("manifest.json"), std::move(text)));
  return program;
}

llvm::Error writeProgram(const ProgramFiles &program,
                         llvm::StringRef directoryName) {
  namespace fs = llvm::sys::fs;
  namespace path = llvm::sys::path;
  // `prog/` and `./prog` name `prog`: its parent holds the fresh sibling.
  llvm::SmallString<256> normalized(directoryName);
  path::remove_dots(normalized, /*remove_dot_dot=*/false);
  while (normalized.size() > 1 && path::is_separator(normalized.back()))
    normalized.pop_back();
  if (normalized.empty() || normalized == ".")
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "%s names no program directory; give one, e.g. -o prog",
        directoryName.str().c_str());
  llvm::StringRef directory = normalized;
  auto failed = [&](const llvm::Twine &what, std::error_code ec) {
    return llvm::createStringError(ec, "%s: %s", what.str().c_str(),
                                   ec.message().c_str());
  };
  if (fs::exists(directory)) {
    if (!fs::is_directory(directory))
      return llvm::createStringError(
          std::make_error_code(std::errc::file_exists),
          "%s exists and is not a program directory", directory.str().c_str());
    llvm::SmallString<256> manifest(directory);
    path::append(manifest, "manifest.json");
    std::error_code ec;
    bool empty = fs::directory_iterator(directory, ec) == fs::directory_iterator();
    if (!fs::exists(manifest) && !empty)
      return llvm::createStringError(
          std::make_error_code(std::errc::file_exists),
          "%s is a non-empty directory without a manifest.json: not replacing it",
          directory.str().c_str());
  }
  llvm::SmallString<256> parent(directory);
  path::remove_filename(parent);
  if (parent.empty())
    parent = ".";
  if (std::error_code ec = fs::create_directories(parent))
    return failed(parent, ec);
  llvm::SmallString<256> model(parent);
  path::append(model, "." + path::filename(directory) + ".new.%%%%%%");
  llvm::SmallString<256> fresh;
  if (std::error_code ec = fs::createUniqueDirectory(model, fresh))
    return failed(model, ec);
  auto discard = [&](llvm::Error error) {
    (void)fs::remove_directories(fresh);
    return error;
  };
  llvm::SmallString<256> tiles(fresh);
  path::append(tiles, "tiles");
  if (std::error_code ec = fs::create_directory(tiles))
    return discard(failed(tiles, ec));
  for (const auto &[relative, bytes] : program.files) {
    llvm::SmallString<256> file(fresh);
    path::append(file, relative);
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    if (ec)
      return discard(failed(file, ec));
    os << bytes;
    os.close();
    if (os.has_error())
      return discard(failed(file, os.error()));
  }
  if (!fs::exists(directory)) {
    if (std::error_code ec = fs::rename(fresh, directory))
      return discard(failed(directory, ec));
    return llvm::Error::success();
  }
  // Replace the old program: moved aside, the new one moved in, the old one
  // removed (or put back if moving the new one in fails).
  llvm::SmallString<256> old(parent);
  path::append(old, "." + path::filename(directory) + ".old.%%%%%%");
  llvm::SmallString<256> graveyard;
  if (std::error_code ec = fs::createUniqueDirectory(old, graveyard))
    return discard(failed(old, ec));
  llvm::SmallString<256> aside(graveyard);
  path::append(aside, path::filename(directory));
  if (std::error_code ec = fs::rename(directory, aside)) {
    (void)fs::remove(graveyard);
    return discard(failed(directory, ec));
  }
  if (std::error_code ec = fs::rename(fresh, directory)) {
    (void)fs::rename(aside, directory);
    (void)fs::remove(graveyard);
    return discard(failed(directory, ec));
  }
  (void)fs::remove_directories(graveyard);
  return llvm::Error::success();
}

} // namespace mlir::tessel
