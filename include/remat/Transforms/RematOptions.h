//===- RematOptions.h - the rematerialization options, declared once -*- C++
//-*-//
//
// Every rematerialization option has one declaration: its field and default
// in RematOptions, and its name and help in forEachRematOption. Everything
// that takes these options binds to that declaration instead of declaring
// its own: the remat-rematerialize pass and the remat-pipeline pipeline
// (RematPassOptionBinding, as MLIR pass options that parse and print in
// pipeline strings), and the tools' flags (RematOptionFlags, for remat-opt
// and the remat driver). Each binding shows the default in its help.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_REMATOPTIONS_H
#define REMAT_TRANSFORMS_REMATOPTIONS_H

#include "remat/Remat/SolverSpec.h"
#include "remat/Support/ByteSize.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mlir::remat {

/// The options of rematerialization, with their defaults.
struct RematOptions {
  /// Bytes for arguments + the arena, or a percentage of what the step needs
  /// as given; unset: no rematerialization can run.
  ByteSize budget;
  SolverSpec solver;
  /// Search steps each solver may take (0: its default).
  int64_t workLimit = 0;
  /// Wall-clock cap on a solve (0: none).
  double timeLimitSeconds = 60.0;
  /// An unmet budget is an error (else a warning and the smallest peak).
  bool strict = true;
  /// The cost model's device profile.
  std::string device = "h200";
  /// The budget limits arguments + the planned arena, not only the peak.
  bool fitArena = true;
  /// Record the solve's wall time in the IR (for the report); off by default
  /// so that the output is byte-identical across runs.
  bool recordSolveTime = false;

  // Set by library callers, not options of the passes or tools.

  /// `auto` bounds its choice from below with the stage MILP's LP relaxation
  /// (SolverOptions::autoLpBound); searches that need only feasibility turn
  /// it off.
  bool lowerBound = true;
  std::function<void(const std::string &)> progress;
};

/// Calls `visit(&RematOptions::field, name, help)` for every option, in the
/// order in which help lists them: the one list of names and help texts.
template <typename Visitor> void forEachRematOption(Visitor &&visit) {
  visit(&RematOptions::budget, "budget",
        "Byte budget for arguments + arena: 2.5GB, 512MiB, 123456, or 80% of "
        "what the step needs as given");
  visit(&RematOptions::solver, "solver",
        "none, segments=K, sqrt, marks, block-checkpoints, chain, blocks, "
        "heuristic, search, exact or auto");
  visit(&RematOptions::workLimit, "work-limit",
        "Search steps each solver may take (0: its default); results are "
        "deterministic for a given work limit");
  visit(&RematOptions::timeLimitSeconds, "time-limit",
        "Wall-clock cap on a solve in seconds (0: none); a solve it cuts "
        "short may differ from run to run");
  visit(&RematOptions::strict, "strict",
        "An unmet budget is an error (false: a warning and the smallest "
        "peak)");
  visit(&RematOptions::device, "device",
        "Device profile of the cost model: h200, a100, v100, gtx970m, cpu");
  visit(&RematOptions::fitArena, "fit-arena",
        "Hold arguments + the planned arena (not only the peak) within the "
        "budget");
  visit(&RematOptions::recordSolveTime, "record-solve-time",
        "Record the solve's wall time in remat.solve (makes the output "
        "differ from run to run)");
}

/// `help` followed by the default, as --help shows it.
template <typename T>
std::string withDefaultInHelp(llvm::StringRef help, const T &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << help << " (default: ";
  if constexpr (std::is_same_v<T, bool>)
    os << (value ? "true" : "false");
  else if constexpr (std::is_floating_point_v<T>)
    os << llvm::format("%g", value);
  else if constexpr (std::is_same_v<T, ByteSize>)
    os << (value.isSet() ? value.str() : llvm::StringRef("none"));
  else
    os << value;
  os << ")";
  return text;
}

/// The options as MLIR pass options of `Parent`: a Pass (remat-rematerialize)
/// or PassPipelineOptions (remat-pipeline). Parsed and printed in pipeline
/// strings like options declared in ODS. Construct it as a member of the
/// parent, after the parent's base, in every constructor (the copy
/// constructor included: a cloned pass copies the values afterwards).
template <typename Parent> class RematPassOptionBinding {
public:
  explicit RematPassOptionBinding(Parent &parent) {
    RematOptions defaults;
    forEachRematOption([&](auto field, llvm::StringRef name,
                           llvm::StringRef help) {
      using T = std::decay_t<decltype(defaults.*field)>;
      using OptionT = typename Parent::template Option<T>;
      helps.push_back(std::make_unique<std::string>(
          withDefaultInHelp(help, defaults.*field)));
      auto option =
          std::make_shared<OptionT>(parent, name, llvm::cl::desc(*helps.back()),
                                    llvm::cl::init(defaults.*field));
      read.push_back([option, field](RematOptions &options) {
        options.*field = option->getValue();
      });
      write.push_back([option, field](const RematOptions &options) {
        *option = options.*field;
      });
    });
  }

  /// The options' values.
  RematOptions get() const {
    RematOptions options;
    for (const auto &copy : read)
      copy(options);
    return options;
  }
  void set(const RematOptions &options) {
    for (const auto &copy : write)
      copy(options);
  }

private:
  /// The help texts the options refer to.
  std::vector<std::unique_ptr<std::string>> helps;
  std::vector<std::function<void(RematOptions &)>> read;
  std::vector<std::function<void(const RematOptions &)>> write;
};

/// The options as command-line flags of a tool, stored in `storage`, in
/// `category` and (when given) the subcommands. `except` names options the
/// tool does not take.
class RematOptionFlags {
public:
  RematOptionFlags(RematOptions &storage, llvm::cl::OptionCategory &category,
                   std::vector<llvm::cl::SubCommand *> subcommands = {},
                   std::vector<llvm::StringRef> except = {});

private:
  std::vector<std::unique_ptr<std::string>> helps;
  std::vector<std::unique_ptr<llvm::cl::Option>> flags;
};

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_REMATOPTIONS_H
