//===- TestPeakMemory.cpp - print the peak-memory analysis ----------------===//
//
// test-print-peak-memory: prints, for every function, the live bytes at each
// op, the peak, where it occurs and what it is made of (to stderr), so that
// lit tests can check numbers computed by hand.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/PeakMemory.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;

namespace {
struct TestPrintPeakMemoryPass
    : public PassWrapper<TestPrintPeakMemoryPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintPeakMemoryPass)

  StringRef getArgument() const final { return "test-print-peak-memory"; }
  StringRef getDescription() const final {
    return "Print the live bytes at every op and the peak of each function";
  }

  void runOnOperation() override {
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      FailureOr<PeakMemory> analysis = PeakMemory::analyze(function);
      if (failed(analysis))
        return signalPassFailure();
      analysis->print(llvm::errs());
    }
  }
};
} // namespace

namespace mlir::remat::test {
void registerTestPeakMemoryPass() {
  PassRegistration<TestPrintPeakMemoryPass>();
}
} // namespace mlir::remat::test
