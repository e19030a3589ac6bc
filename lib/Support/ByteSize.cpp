//===- ByteSize.cpp - byte budgets as people write them -------------------===//
//
// Decimal units are powers of 1000 and binary units powers of 1024, as the
// SI and IEC define them; units are case-sensitive except for a lone `b`.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ByteSize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdlib>

using namespace mlir::remat;

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
  std::optional<double> scale =
      llvm::StringSwitch<std::optional<double>>(unit)
          .Cases({"", "B", "b"}, 1.0)
          .Case("KB", 1e3)
          .Case("MB", 1e6)
          .Case("GB", 1e9)
          .Case("TB", 1e12)
          .Case("KiB", 1024.0)
          .Case("MiB", 1024.0 * 1024.0)
          .Case("GiB", 1024.0 * 1024.0 * 1024.0)
          .Case("TiB", 1024.0 * 1024.0 * 1024.0 * 1024.0)
          .Case("%", 0.0)
          .Default(std::nullopt);
  if (!scale) {
    error = "'" + text.str() + "' has an unknown unit '" + unit.str() +
            "': expected B, KB, MB, GB, TB, KiB, MiB, GiB, TiB or %";
    return std::nullopt;
  }
  if (value <= 0.0) {
    error = "'" + text.str() + "' is not a positive byte size";
    return std::nullopt;
  }
  size.percent = unit == "%";
  size.amount = size.percent ? value : value * *scale;
  if (!size.percent && size.amount < 1.0) {
    error = "'" + text.str() + "' is less than one byte";
    return std::nullopt;
  }
  if (!size.percent && size.amount > 9.0e18) {
    error = "'" + text.str() + "' is too large";
    return std::nullopt;
  }
  size.spelling = trimmed.str();
  return size;
}

int64_t ByteSize::resolve(int64_t referencePeakBytes) const {
  if (percent)
    return static_cast<int64_t>(
        std::floor(amount / 100.0 * static_cast<double>(referencePeakBytes)));
  return static_cast<int64_t>(std::floor(amount));
}

ByteSize ByteSize::fromBytes(int64_t bytes) {
  ByteSize size;
  size.spelling = std::to_string(bytes);
  size.amount = double(bytes);
  return size;
}

bool llvm::cl::parser<ByteSize>::parse(Option &option, StringRef, StringRef arg,
                                       ByteSize &value) {
  std::string error;
  std::optional<ByteSize> parsed = ByteSize::parse(arg, error);
  if (!parsed)
    return option.error(error);
  value = *parsed;
  return false;
}

void llvm::cl::parser<ByteSize>::printOptionDiff(
    const Option &option, const ByteSize &value,
    const OptionValue<ByteSize> &defaultValue, size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << value;
  if (defaultValue.hasValue())
    outs() << " (default: " << defaultValue.getValue() << ")";
  outs() << "\n";
}

void llvm::cl::parser<ByteSize>::anchor() {}
