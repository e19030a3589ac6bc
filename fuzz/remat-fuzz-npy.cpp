//===- remat-fuzz-npy.cpp - fuzz the .npy reader --------------------------===//
//
// The input is a .npy file's contents. An array that reads holds exactly the
// bytes its shape and element type say.
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir::remat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<NpyArray> array = parseNpy(bytes, "fuzz.npy", error);
  if (!array)
    return 0;
  int64_t expected = array->getNumElements() * getNpyTypeBytes(array->type);
  if (static_cast<int64_t>(array->data.size()) != expected) {
    llvm::errs() << "read " << array->data.size() << " data bytes, the shape "
                 << "says " << expected << "\n";
    abort();
  }
  return 0;
}
