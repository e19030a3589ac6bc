//===- RematerializePass.cpp - the remat-rematerialize pass and pipeline --===//
//
// Thin: reads the options and calls rematerializeFunction on every function.
// Also registers remat's default pipeline.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;

namespace mlir::remat {
#define GEN_PASS_DEF_REMATREMATERIALIZEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace mlir::remat

namespace {
struct RematRematerializePass
    : public remat::impl::RematRematerializePassBase<RematRematerializePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<const DeviceProfile *> profile =
        lookupDeviceProfile(device, module.getLoc());
    if (failed(profile))
      return signalPassFailure();
    CostModel costModel(**profile);
    RematOptions options;
    options.budget = budget;
    options.solver = solver;
    options.workLimit = workLimit;
    options.timeLimitSeconds = timeLimit;
    options.strict = strict;
    options.fitArena = fitArena;
    options.recordSolveTime = recordSolveTime;
    options.progress = [](const std::string &line) {
      llvm::errs() << "remat: " << line << "\n";
    };
    if (failed(verifyRematOptions(options, module.getLoc())))
      return signalPassFailure();
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      if (failed(rematerializeFunction(function, costModel, options)))
        return signalPassFailure();
      function.walk([&](Operation *op) {
        if (op->hasAttr("remat.recompute_of"))
          ++recomputedOps;
      });
    }
  }
};
} // namespace

void mlir::remat::buildRematPipeline(OpPassManager &pm,
                                     const RematPipelineOptions &options) {
  RematRematerializePassOptions remat;
  remat.budget = options.budget;
  remat.solver = options.solver;
  remat.workLimit = options.workLimit;
  remat.timeLimit = options.timeLimit;
  remat.strict = options.strict;
  remat.device = options.device;
  remat.recordSolveTime = options.recordSolveTime;
  pm.addPass(createRematRematerializePass(remat));
  pm.addPass(createRematPlanMemoryPass());
}

void mlir::remat::registerRematPipeline() {
  PassPipelineRegistration<RematPipelineOptions>(
      "remat-pipeline",
      "Rematerialize every function under a byte budget, then plan its memory",
      buildRematPipeline);
}
