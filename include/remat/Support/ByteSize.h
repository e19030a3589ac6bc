//===- ByteSize.h - byte budgets as people write them ------------*- C++ -*-===//
//
// A byte budget: `2.5GB` (GB = 10^9 bytes, MB = 10^6, KB = 10^3), `2.5GiB`
// (GiB = 2^30, MiB, KiB), plain bytes (`123456`, `123456B`), or `80%`, a
// percentage of what the function needs as given (the caller says what:
// remat-rematerialize takes arguments + the packed arena of the given
// order). It prints back as it was written, so pass pipelines round-trip,
// and has a cl::parser so that pass options and tool options take it
// directly. Sizes in units are
// whole bytes, computed exactly from the decimal text (`1.5B` is an error,
// not 1 byte) and within the int64 range; a percentage is resolved against
// its reference when that is known, and must come to at least one byte.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_BYTESIZE_H
#define REMAT_SUPPORT_BYTESIZE_H

#include "remat/Support/TextOptionParser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::remat {

class ByteSize {
public:
  /// An unset size (no budget).
  ByteSize() = default;

  /// Parses `text`; on failure returns std::nullopt and sets `error` to a
  /// message saying what is wrong. The empty string is the unset size.
  static std::optional<ByteSize> parse(llvm::StringRef text,
                                       std::string &error);

  /// `bytes` bytes, spelled as a plain number.
  static ByteSize fromBytes(int64_t bytes);

  bool isSet() const { return !spelling.empty(); }
  bool isPercent() const { return percent; }

  /// The budget in bytes; a percentage is taken of `referenceBytes` and
  /// rounded down. Returns std::nullopt and sets `error` when a percentage
  /// comes to less than one byte or to more than the int64 range holds.
  std::optional<int64_t> resolve(int64_t referenceBytes,
                                 std::string &error) const;

  /// The bytes of a size that is not a percentage.
  int64_t getBytes() const { return bytes; }

  /// The text it was parsed from.
  llvm::StringRef str() const { return spelling; }

  bool operator==(const ByteSize &other) const {
    return spelling == other.spelling;
  }
  bool operator!=(const ByteSize &other) const { return !(*this == other); }

private:
  std::string spelling;
  /// The bytes of a size in units.
  int64_t bytes = 0;
  /// The percentage when `percent` is set.
  double amount = 0.0;
  bool percent = false;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const ByteSize &size) {
  return os << size.str();
}

} // namespace mlir::remat

namespace llvm::cl {
/// Lets `cl::opt<ByteSize>` and MLIR pass options parse and print it.
template <>
class parser<mlir::remat::ByteSize>
    : public mlir::remat::TextOptionParser<mlir::remat::ByteSize> {
public:
  using TextOptionParser::TextOptionParser;
  StringRef getValueName() const override { return "size"; }
};
} // namespace llvm::cl

#endif // REMAT_SUPPORT_BYTESIZE_H
