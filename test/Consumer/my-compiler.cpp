//===- my-compiler.cpp - another compiler that uses remat as a library ----===//
//
// Parses a module, adds remat's pipeline with a budget to its own pass
// manager, runs it and prints the result:
//   my-compiler INPUT.mlir BUDGET
//
//===----------------------------------------------------------------------===//

#include "remat/API.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: my-compiler INPUT.mlir BUDGET\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::remat::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  std::string error;
  std::optional<mlir::remat::ByteSize> budget =
      mlir::remat::ByteSize::parse(argv[2], error);
  if (!budget) {
    llvm::errs() << error << "\n";
    return 1;
  }
  mlir::PassManager pm(&context);
  mlir::remat::RematOptions options;
  options.budget = *budget;
  mlir::remat::buildRematPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
