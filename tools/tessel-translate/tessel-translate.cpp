//===- tessel-translate.cpp - Tessel's translation driver -----------------===//
//
// Translations out of MLIR that do not produce one text: today the program
// format (docs/isa.md), a directory. The input is lowered IR, as
// `tessel-opt -tessel-lowering-pipeline` prints it; every decision the
// program holds is read from it, and IR that lacks one is refused with the
// pass to run.
//
//   tessel-opt mapped.mlir -tessel-lowering-pipeline \
//     | tessel-translate --tessel-to-program --weights weights/ -o prog/
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/InitAll.h"
#include "tessel/Target/Program/ProgramWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <memory>
#include <vector>

using namespace mlir;
using namespace mlir::tessel;

namespace {

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<input .mlir>"),
                                     llvm::cl::init("-"));

llvm::cl::opt<bool> toProgram(
    "tessel-to-program",
    llvm::cl::desc("Write the program of the one tessel.device (docs/isa.md) "
                   "into the directory -o names"));

llvm::cl::opt<std::string> outputDir(
    "o", llvm::cl::desc("The program directory to write (replaced if it "
                        "holds a program)"),
    llvm::cl::value_desc("directory"));

llvm::cl::opt<std::string> weightsDir(
    "weights",
    llvm::cl::desc("A directory holding <name>.bin for each weight buffer: "
                   "its bytes in the buffer's layout and element type, as "
                   "`tessel compile --dump-ir` writes them ('%', '/' and a "
                   "leading '.' of the name as %25, %2F and %2E)"),
    llvm::cl::value_desc("directory"));

/// The file of weight `name` in --weights: `<name>.bin`, with `%`, `/` and
/// a leading `.` written as `%25`, `%2F` and `%2E` (ONNX initializers are
/// often named by paths). `tessel compile --dump-ir` names them alike.
std::string weightFileName(StringRef name) {
  std::string file;
  for (auto [i, c] : llvm::enumerate(name)) {
    if (c == '%')
      file += "%25";
    else if (c == '/')
      file += "%2F";
    else if (c == '.' && i == 0)
      file += "%2E";
    else
      file += c;
  }
  return file + ".bin";
}

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tessel-translate") << message << "\n";
  return 1;
}

/// The one tessel.device in `module`, or null.
DeviceOp findDevice(ModuleOp module, std::string &problem) {
  SmallVector<DeviceOp> devices;
  module.walk([&](DeviceOp device) { devices.push_back(device); });
  if (devices.size() != 1) {
    problem = "expected exactly one tessel.device, found " +
              std::to_string(devices.size());
    return nullptr;
  }
  return devices.front();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "Tessel translation driver\n");
  if (!toProgram)
    return fail("choose a translation: --tessel-to-program");
  if (outputDir.empty())
    return fail("--tessel-to-program writes a directory: give it with -o DIR");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string problem;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &problem);
  if (!input)
    return fail(problem);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1; // the parser or the verifier reported why
  DeviceOp device = findDevice(*module, problem);
  if (!device)
    return fail(problem);

  // The weight buffers' bytes, read from --weights.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> files;
  WeightData weights;
  for (auto buffer : device.getBody().front().getOps<DramBufferOp>()) {
    if (buffer.getKind() != DramBufferKind::weight)
      continue;
    StringRef name = buffer.getSymName();
    if (weightsDir.empty())
      return fail("weight buffer @" + name + " needs its data: give --weights "
                  "DIR holding " + weightFileName(name));
    SmallString<256> path(weightsDir.getValue());
    llvm::sys::path::append(path, weightFileName(name));
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file)
      return fail("no data for weight buffer @" + name + ": cannot read " +
                  path + ": " + file.getError().message());
    weights[name] = ArrayRef<char>((*file)->getBufferStart(),
                                   (*file)->getBufferSize());
    files.push_back(std::move(*file));
  }

  llvm::Expected<ProgramFiles> program = buildProgram(device, weights);
  if (!program)
    return fail(llvm::toString(program.takeError()));
  if (llvm::Error error = writeProgram(*program, outputDir))
    return fail(llvm::toString(std::move(error)));
  return 0;
}
