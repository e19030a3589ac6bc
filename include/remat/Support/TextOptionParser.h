//===- TextOptionParser.h - cl::parser for values parsed from text -*- C++ -*-//
//
// The command-line parser shared by remat's typed option values (ByteSize,
// SolverSpec): a value type with `static std::optional<T> parse(StringRef,
// std::string &error)` and an `operator<<` that prints it as written gets
// tool flags and MLIR pass options that reject bad text with the parse
// error and print back in pipeline strings. Each type specializes
// `llvm::cl::parser<T>` by deriving from TextOptionParser<T> and naming its
// value.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_TEXTOPTIONPARSER_H
#define REMAT_SUPPORT_TEXTOPTIONPARSER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::remat {

template <typename T>
class TextOptionParser : public llvm::cl::basic_parser<T> {
public:
  explicit TextOptionParser(llvm::cl::Option &option)
      : llvm::cl::basic_parser<T>(option) {}

  /// Parses `arg`; a parse error is the option's error.
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    std::string error;
    std::optional<T> parsed = T::parse(arg, error);
    if (!parsed)
      return option.error(error);
    value = *parsed;
    return false;
  }

  static void print(llvm::raw_ostream &os, const T &value) { os << value; }

  void printOptionDiff(const llvm::cl::Option &option, const T &value,
                       const llvm::cl::OptionValue<T> &defaultValue,
                       size_t globalWidth) const {
    this->printOptionName(option, globalWidth);
    llvm::outs() << "= " << value;
    if (defaultValue.hasValue())
      llvm::outs() << " (default: " << defaultValue.getValue() << ")";
    llvm::outs() << "\n";
  }
};

} // namespace mlir::remat

#endif // REMAT_SUPPORT_TEXTOPTIONPARSER_H
