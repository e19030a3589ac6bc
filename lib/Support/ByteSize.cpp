//===- ByteSize.cpp - byte budgets as people write them -------------------===//
//
// Decimal units are powers of 1000 and binary units powers of 1024, as the
// SI and IEC define them; units are case-sensitive except for a lone `b`.
// Sizes in units are computed from the decimal digits in integers, so that
// `2.5GB` is exactly 2500000000 bytes and `1.5B` is told to be fractional.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ByteSize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir::remat;

/// A unit's scale in bytes (0 for `%`), or std::nullopt for an unknown unit.
static std::optional<int64_t> getUnitScale(llvm::StringRef unit) {
  constexpr int64_t kKiB = 1024;
  return llvm::StringSwitch<std::optional<int64_t>>(unit)
      .Cases({"", "B", "b"}, 1)
      .Case("KB", 1000)
      .Case("MB", 1000 * 1000)
      .Case("GB", 1000 * 1000 * 1000)
      .Case("TB", int64_t(1000) * 1000 * 1000 * 1000)
      .Case("KiB", kKiB)
      .Case("MiB", kKiB * kKiB)
      .Case("GiB", kKiB * kKiB * kKiB)
      .Case("TiB", kKiB * kKiB * kKiB * kKiB)
      .Case("%", 0)
      .Default(std::nullopt);
}

namespace {
/// What a positive decimal number times a unit scale comes to.
enum class Exactness { Whole, Fractional, TooLarge };
} // namespace

/// Multiplies the decimal `number` (digits with at most one point, already
/// known to be a valid positive number) by `scale` exactly: the whole part
/// and the fraction separately, in 128 bits.
static Exactness multiplyExactly(llvm::StringRef number, int64_t scale,
                                 int64_t &result) {
  number.consume_front("+");
  auto [whole, fraction] = number.split('.');
  whole = whole.ltrim('0');
  fraction = fraction.rtrim('0');
  // 19 digits hold any int64; a longer whole part is beyond it, and a
  // fraction of more than 18 digits is finer than a byte of any unit.
  if (whole.size() > 19)
    return Exactness::TooLarge;
  if (fraction.size() > 18)
    return Exactness::Fractional;
  unsigned __int128 wholeValue = 0, fractionValue = 0, denominator = 1;
  for (char digit : whole)
    wholeValue = wholeValue * 10 + (digit - '0');
  for (char digit : fraction) {
    fractionValue = fractionValue * 10 + (digit - '0');
    denominator *= 10;
  }
  unsigned __int128 fractionBytes = fractionValue * scale;
  if (fractionBytes % denominator != 0)
    return Exactness::Fractional;
  unsigned __int128 total = wholeValue * scale + fractionBytes / denominator;
  if (total >
      static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()))
    return Exactness::TooLarge;
  result = static_cast<int64_t>(total);
  return Exactness::Whole;
}

std::optional<ByteSize> ByteSize::parse(llvm::StringRef text,
                                        std::string &error) {
  ByteSize size;
  llvm::StringRef trimmed = text.trim();
  if (trimmed.empty())
    return size;
  size_t numberEnd = 0;
  while (numberEnd < trimmed.size() &&
         (llvm::isDigit(trimmed[numberEnd]) || trimmed[numberEnd] == '.' ||
          trimmed[numberEnd] == '-' || trimmed[numberEnd] == '+'))
    ++numberEnd;
  llvm::StringRef number = trimmed.take_front(numberEnd);
  llvm::StringRef unit = trimmed.drop_front(numberEnd).trim();
  double value = 0.0;
  if (number.empty() || number.getAsDouble(value) || !std::isfinite(value)) {
    error = "'" + text.str() +
            "' is not a byte size: expected a number followed by B, KB, MB, "
            "GB, TB, KiB, MiB, GiB, TiB or %";
    return std::nullopt;
  }
  std::optional<int64_t> scale = getUnitScale(unit);
  if (!scale) {
    error = "'" + text.str() + "' has an unknown unit '" + unit.str() +
            "': expected B, KB, MB, GB, TB, KiB, MiB, GiB, TiB or %";
    return std::nullopt;
  }
  if (!(value > 0.0)) {
    error = "'" + text.str() + "' is not a positive byte size";
    return std::nullopt;
  }
  size.percent = *scale == 0;
  size.spelling = trimmed.str();
  if (size.percent) {
    size.amount = value;
    return size;
  }
  switch (multiplyExactly(number, *scale, size.bytes)) {
  case Exactness::Whole:
    return size;
  case Exactness::TooLarge:
    error = "'" + text.str() +
            "' is too large: a budget is at most 9223372036854775807 bytes";
    return std::nullopt;
  case Exactness::Fractional:
    error = value * static_cast<double>(*scale) < 1.0
                ? "'" + text.str() + "' is less than one byte"
                : "'" + text.str() + "' is not a whole number of bytes";
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> ByteSize::resolve(int64_t referenceBytes,
                                         std::string &error) const {
  if (!percent)
    return bytes;
  double resolved =
      std::floor(amount / 100.0 * static_cast<double>(referenceBytes));
  // 2^63 is the first double beyond the int64 range.
  if (!(resolved < 9223372036854775808.0)) {
    error = "'" + spelling + "' of " + std::to_string(referenceBytes) +
            " bytes exceeds the int64 range";
    return std::nullopt;
  }
  if (!(resolved >= 1.0)) {
    error = "'" + spelling + "' of " + std::to_string(referenceBytes) +
            " bytes is less than one byte";
    return std::nullopt;
  }
  return static_cast<int64_t>(resolved);
}

ByteSize ByteSize::fromBytes(int64_t bytes) {
  ByteSize size;
  size.spelling = std::to_string(bytes);
  size.bytes = bytes;
  return size;
}
