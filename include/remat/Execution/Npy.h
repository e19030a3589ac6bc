//===- Npy.h - NumPy .npy arrays ----------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (version 1.0, little-endian; C order
// written, Fortran order reordered into C order on reading) for
// the executors' inputs, weights and results. IR-free and LibTorch-free.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_EXECUTION_NPY_H
#define REMAT_EXECUTION_NPY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

/// Element types the executors exchange.
enum class NpyType { F16, BF16, F32, F64, I32, I64, U8 };

int64_t getNpyTypeBytes(NpyType type);

struct NpyArray {
  NpyType type = NpyType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t getNumElements() const;
};

/// Reads `path`; on failure returns std::nullopt and sets `error`.
std::optional<NpyArray> readNpy(llvm::StringRef path, std::string &error);

/// Parses the contents of a .npy file (`bytes`); `name` names it in `error`.
/// On failure returns std::nullopt and sets `error`.
std::optional<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef name,
                                 std::string &error);

/// Writes `array` to `path` whole (an OutputFile: through a temporary
/// renamed into place); on failure returns false, sets `error` and leaves
/// an existing `path` as it was.
bool writeNpy(llvm::StringRef path, const NpyArray &array, std::string &error);

/// Writes `array` in the .npy format to `os`.
void writeNpy(llvm::raw_ostream &os, const NpyArray &array);

} // namespace mlir::remat

#endif // REMAT_EXECUTION_NPY_H
