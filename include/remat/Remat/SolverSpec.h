//===- SolverSpec.h - a solver's name and parameters, parsed once -*- C++
//-*-===//
//
// Which solver to run, as a typed value: `none`, `segments=K`, `sqrt`,
// `marks`, `block-checkpoints`, `chain`, `blocks`, `heuristic`, `search`,
// `exact` or `auto`. Parsed once where the
// user writes it (a pass option, a tool flag, a list of policies), so that a
// bad name or value is rejected there, not when a solve starts. Prints back
// as written, so pass pipelines round-trip, and has a cl::parser so that
// pass options and tool flags take it directly.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_REMAT_SOLVERSPEC_H
#define REMAT_REMAT_SOLVERSPEC_H

#include "remat/Support/TextOptionParser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::remat {

enum class SolverKind {
  None,
  Segments,
  Sqrt,
  Marks,
  BlockCheckpoints,
  Chain,
  Blocks,
  Heuristic,
  Search,
  Exact,
  Auto
};

class SolverSpec {
public:
  /// `auto`.
  SolverSpec() = default;
  explicit SolverSpec(SolverKind kind) : kind(kind) {}
  /// `segments=K` (K >= 1).
  static SolverSpec segmentsOf(int64_t count);

  /// Parses `text`; on failure returns std::nullopt and sets `error` to a
  /// message that names what is accepted. `exact` is an error in a build
  /// without CBC.
  static std::optional<SolverSpec> parse(llvm::StringRef text,
                                         std::string &error);

  SolverKind getKind() const { return kind; }
  /// The K of `segments=K`.
  int64_t getSegments() const { return segments; }

  /// The spelling: `auto`, `segments=4`, ...
  std::string str() const;

  bool operator==(const SolverSpec &other) const {
    return kind == other.kind && segments == other.segments;
  }
  bool operator!=(const SolverSpec &other) const { return !(*this == other); }

private:
  SolverKind kind = SolverKind::Auto;
  int64_t segments = 0;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const SolverSpec &spec) {
  return os << spec.str();
}

} // namespace mlir::remat

namespace llvm::cl {
/// Lets `cl::opt<SolverSpec>` and MLIR pass options parse and print it.
template <>
class parser<mlir::remat::SolverSpec>
    : public mlir::remat::TextOptionParser<mlir::remat::SolverSpec> {
public:
  using TextOptionParser::TextOptionParser;
  StringRef getValueName() const override { return "solver"; }
};
} // namespace llvm::cl

#endif // REMAT_REMAT_SOLVERSPEC_H
