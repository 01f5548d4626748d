//===- tessel-opt.cpp - Tessel's optimizer driver -------------------------===//
//
// mlir-opt with the tessel dialect and the upstream dialects and passes Tessel
// compiles through. Every stage of the compiler is a pass (or a named
// pipeline) runnable from here on a .mlir file.
//
//===----------------------------------------------------------------------===//

#include "tessel/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::tessel::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::tessel::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Tessel optimizer driver\n", registry));
}
