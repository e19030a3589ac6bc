//===- SolverSpec.cpp - a solver's name and parameters, parsed once ------===//

#include "remat/Remat/SolverSpec.h"

#include "remat/Remat/Solvers.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir::remat;
using llvm::StringRef;

SolverSpec SolverSpec::segmentsOf(int64_t count) {
  SolverSpec spec(SolverKind::Segments);
  spec.segments = count;
  return spec;
}

std::optional<SolverSpec> SolverSpec::parse(StringRef text,
                                            std::string &error) {
  StringRef segmentCount = text;
  if (segmentCount.consume_front("segments=")) {
    int64_t count;
    if (!segmentCount.getAsInteger(10, count) && count >= 1)
      return segmentsOf(count);
    error = "'" + text.str() + "' needs a positive whole number of segments";
    return std::nullopt;
  }
  std::optional<SolverKind> kind =
      llvm::StringSwitch<std::optional<SolverKind>>(text)
          .Case("none", SolverKind::None)
          .Case("sqrt", SolverKind::Sqrt)
          .Case("marks", SolverKind::Marks)
          .Case("block-checkpoints", SolverKind::BlockCheckpoints)
          .Case("chain", SolverKind::Chain)
          .Case("blocks", SolverKind::Blocks)
          .Case("heuristic", SolverKind::Heuristic)
          .Case("search", SolverKind::Search)
          .Case("exact", SolverKind::Exact)
          .Case("auto", SolverKind::Auto)
          .Default(std::nullopt);
  if (!kind) {
    error = "unknown solver '" + text.str() +
            "': expected none, segments=K, sqrt, marks, "
            "block-checkpoints, chain, blocks, heuristic, "
            "search, exact or auto";
    return std::nullopt;
  }
  if (*kind == SolverKind::Exact && !isExactSolverAvailable()) {
    error = "this build of remat has no exact solver (it needs CBC: "
            "configure with -DREMAT_ENABLE_CBC=ON)";
    return std::nullopt;
  }
  return SolverSpec(*kind);
}

std::string SolverSpec::str() const {
  switch (kind) {
  case SolverKind::None:
    return "none";
  case SolverKind::Segments:
    return "segments=" + std::to_string(segments);
  case SolverKind::Sqrt:
    return "sqrt";
  case SolverKind::Marks:
    return "marks";
  case SolverKind::BlockCheckpoints:
    return "block-checkpoints";
  case SolverKind::Chain:
    return "chain";
  case SolverKind::Blocks:
    return "blocks";
  case SolverKind::Heuristic:
    return "heuristic";
  case SolverKind::Search:
    return "search";
  case SolverKind::Exact:
    return "exact";
  case SolverKind::Auto:
    return "auto";
  }
  return "auto";
}
