//===- remat-fuzz-byte-size.cpp - fuzz the budget parser ------------------===//
//
// The input is a budget as a user writes it (`--budget=`, `budget=` in a
// pipeline). A size that parses resolves against a few reference peaks,
// including the extremes, and parses again from its own spelling.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ByteSize.h"

#include <cstdint>
#include <cstdlib>
#include <limits>

using namespace mlir::remat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<ByteSize> budget = ByteSize::parse(text, error);
  if (!budget)
    return 0;
  for (int64_t peak : {int64_t(0), int64_t(1), int64_t(1000), int64_t(1) << 40,
                       std::numeric_limits<int64_t>::max()})
    (void)budget->resolve(peak, error);
  std::optional<ByteSize> again = ByteSize::parse(budget->str(), error);
  if (!again || *again != *budget) {
    llvm::errs() << "'" << budget->str() << "' does not parse back\n";
    abort();
  }
  return 0;
}
