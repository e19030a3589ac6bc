//===- RematerializePass.cpp - the remat-rematerialize pass and pipeline --===//
//
// Thin: reads the options and calls rematerializeFunction on every function
// with a body, wherever it is nested. The options are the one declaration of
// RematOptions.h, bound as pass options here and as the options of
// remat's default pipeline, which this file also registers.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
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

SmallVector<FunctionOpInterface>
mlir::remat::getFunctionsWithBodies(ModuleOp module) {
  SmallVector<FunctionOpInterface> functions;
  module.walk<WalkOrder::PreOrder>([&](FunctionOpInterface function) {
    if (!function.isExternal())
      functions.push_back(function);
    return WalkResult::skip();
  });
  return functions;
}

namespace {
struct RematRematerializePass
    : public remat::impl::RematRematerializePassBase<RematRematerializePass> {
  RematRematerializePass() = default;
  RematRematerializePass(const RematRematerializePass &other)
      : RematRematerializePassBase(other) {}
  explicit RematRematerializePass(const RematOptions &values) {
    options.set(values);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    RematOptions values = options.get();
    FailureOr<const DeviceProfile *> profile =
        lookupDeviceProfile(values.device, module.getLoc());
    if (failed(profile))
      return signalPassFailure();
    CostModel costModel(**profile);
    values.progress = [](const std::string &line) {
      llvm::errs() << "remat: " << line << "\n";
    };
    if (failed(verifyRematOptions(values, module.getLoc())))
      return signalPassFailure();
    for (FunctionOpInterface function : getFunctionsWithBodies(module)) {
      if (failed(rematerializeFunction(function, costModel, values)))
        return signalPassFailure();
      function.walk([&](Operation *op) {
        if (op->hasAttr(attr::kRecomputeOf))
          ++recomputedOps;
      });
    }
  }

  RematPassOptionBinding<Pass> options{*this};
};
} // namespace

std::unique_ptr<Pass>
mlir::remat::createRematRematerializePass(const RematOptions &options) {
  return std::make_unique<RematRematerializePass>(options);
}

void mlir::remat::buildRematPipeline(OpPassManager &pm,
                                     const RematOptions &options) {
  pm.addPass(createRematRematerializePass(options));
  pm.addPass(createRematPlanMemoryPass());
}

void mlir::remat::registerRematPipeline() {
  registerPassPipeline(
      "remat-pipeline",
      "Rematerialize every function under a byte budget, then plan its "
      "memory",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        StringRef anchor = pm.getOpAnchorName();
        if (anchor != ModuleOp::getOperationName() &&
            anchor != OpPassManager::getAnyOpAnchorName())
          return errorHandler("remat-pipeline runs on a module (it plans "
                              "every function in it), not nested under '" +
                              anchor +
                              "': write builtin.module(remat-"
                              "pipeline{...})");
        RematPipelineOptions options;
        std::string errors;
        llvm::raw_string_ostream errorStream(errors);
        if (failed(options.parseFromString(text, errorStream)))
          return errorHandler(StringRef(errors).rtrim());
        buildRematPipeline(pm, options.remat.get());
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)>
             optionHandler) { optionHandler(RematPipelineOptions()); });
}
