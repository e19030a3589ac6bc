//===- remat-fuzz-measured-profile.cpp - fuzz measured-profile JSON -------===//
//
// The input is a measured profile (`measured-profile=` of remat-report and
// the driver): a JSON object of op -> seconds. A profile that reads holds
// only finite, non-negative times.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

using namespace mlir;
using namespace mlir::remat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static MLIRContext *context = [] {
    auto *context = new MLIRContext(MLIRContext::Threading::DISABLED);
    return context;
  }();
  ScopedDiagnosticHandler quiet(context,
                                [](Diagnostic &) { return success(); });
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  FailureOr<MeasuredProfile> profile =
      parseMeasuredProfile(text, "fuzz.json", UnknownLoc::get(context));
  if (failed(profile))
    return 0;
  for (const auto &entry : *profile) {
    if (!std::isfinite(entry.second) || entry.second < 0.0) {
      llvm::errs() << "'" << entry.first() << "' read as " << entry.second
                   << " seconds\n";
      abort();
    }
  }
  return 0;
}
