//===- remat-run.cpp - run a planned training step on the CPU -------------===//
//
//   remat-run STEP.mlir [--seed N] [--inputs DIR] [--classes N] [--steps N]
//             [--lr LR1,LR2,...] [--output-dir DIR] [--reference ORIGINAL.mlir]
//             [--tolerance X]
//
// Runs the step's function with ATen kernels inside its planned arena
// (CpuExecutor.h), N times with --steps (the updated state carried in the
// argument buffers, seeds advanced, each step's learning rate from --lr),
// prints what it measured and every step's loss, writes the results and the
// final state as .npy (all or none, once the runs are done:
// Support/OutputFile.h), and with --reference runs the original step on the
// same inputs (both runs on one ATen thread, so that results reproduce from
// run to run) and compares every result (the two steps must return the same
// results by name; NaN equals only NaN; f16 and bf16 are compared by value).
// Exits non-zero when a check fails or a result differs by more than the
// tolerance (0: bit for bit).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Execution/CpuExecutor.h"
#include "remat/InitAll.h"
#include "remat/Support/FileName.h"
#include "remat/Support/OutputFile.h"
#include "remat/Support/ToolDiagnostics.h"
#include "remat/Support/ToolMain.h"
#include "remat/Support/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::remat;
namespace cl = llvm::cl;

/// The tool's own options: --help lists these, not LLVM's.
static cl::OptionCategory &getToolCategory() {
  static cl::OptionCategory category("remat-run options");
  return category;
}

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<step.mlir>"),
                                      cl::cat(getToolCategory()));
static cl::opt<uint64_t>
    seed("seed", cl::init(0),
         cl::desc("Seed of the generated arguments (default: 0)"),
         cl::cat(getToolCategory()));
static cl::opt<std::string>
    inputsDir("inputs",
              cl::desc("Directory of <argument name>.npy inputs (default: "
                       "none, every argument generated)"),
              cl::cat(getToolCategory()));
static cl::opt<int64_t>
    classes("classes", cl::init(0),
            cl::desc("Class count of label arguments (default 0: the "
                     "logits' or embedding's size)"),
            cl::cat(getToolCategory()));
static cl::opt<int64_t>
    steps("steps", cl::init(1),
          cl::desc("Steps to run, the updated state carried from step to "
                   "step (default: 1)"),
          cl::cat(getToolCategory()));
static cl::list<double>
    learningRates("lr", cl::CommaSeparated,
                  cl::desc("Each step's learning rate, one per step, set on "
                           "every optimizer update (default: the step's "
                           "own)"),
                  cl::value_desc("lr1,lr2,..."), cl::cat(getToolCategory()));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write each result as <name>.npy here, and each "
                       "updated argument's final value as <argument "
                       "name>.npy (default: none)"),
              cl::cat(getToolCategory()));
static cl::opt<std::string>
    referenceFile("reference",
                  cl::desc("Run this original step too and compare, both "
                           "on one thread (default: none)"),
                  cl::cat(getToolCategory()));
static cl::opt<double>
    tolerance("tolerance", cl::init(0.0),
              cl::desc("Largest relative difference accepted (default 0: "
                       "bitwise)"),
              cl::cat(getToolCategory()));

/// Checks the options the command line parser cannot: says what is wrong
/// with the first bad one and returns false.
static bool checkOptions() {
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "remat-run: " << message << "\n";
    return false;
  };
  if (!inputsDir.empty() && !llvm::sys::fs::is_directory(inputsDir))
    return fail("--inputs: '" + inputsDir + "' is not a directory");
  if (steps < 1)
    return fail("--steps must be at least 1, got " +
                llvm::Twine(steps.getValue()));
  if (classes < 0)
    return fail("--classes must be a positive class count (0: the default), "
                "got " +
                llvm::Twine(classes.getValue()));
  if (!(tolerance >= 0.0)) {
    std::string value;
    llvm::raw_string_ostream(value) << llvm::format("%g", tolerance.getValue());
    return fail("--tolerance must be a non-negative relative difference, "
                "got " +
                value);
  }
  return true;
}

/// The function to run: the module's only function with a body.
static FailureOr<FunctionOpInterface> getFunction(ModuleOp module) {
  FunctionOpInterface found;
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    if (found)
      return module.emitError("remat-run runs one function; the module has "
                              "several");
    found = function;
  }
  if (!found)
    return module.emitError("the module has no function to run");
  return found;
}

/// With --output-dir, checks that every file the run would write there
/// (`<result name>.npy`, or `<argument name>.npy` for a result that updates
/// an argument) stays inside it, before anything runs or is written.
static LogicalResult checkOutputNames(FunctionOpInterface function) {
  if (outputDir.empty())
    return success();
  for (unsigned index = 0, e = function.getNumResults(); index < e; ++index) {
    auto updates =
        function.getResultAttrOfType<StringAttr>(index, attr::kUpdates);
    auto name = function.getResultAttrOfType<StringAttr>(index, attr::kName);
    if (!updates && !name)
      continue; // written as result<index>.npy
    StringRef fileName = updates ? updates.getValue() : name.getValue();
    StringRef why = whyNotPlainFileName(fileName);
    if (!why.empty())
      return function.emitOpError()
             << "--output-dir: result " << index << " would be written as '"
             << fileName << ".npy', which is not a file name inside '"
             << outputDir << "' (" << why << ")";
  }
  return success();
}

static FailureOr<CpuRunReport> runFile(StringRef path, MLIRContext &context,
                                       OwningOpRef<ModuleOp> &module,
                                       bool isReference) {
  module = parseSourceFile<ModuleOp>(path, &context);
  if (!module)
    return failure();
  FailureOr<FunctionOpInterface> function = getFunction(*module);
  if (failed(function) || (!isReference && failed(checkOutputNames(*function))))
    return failure();
  CpuRunOptions options;
  options.seed = seed;
  options.inputsDir = inputsDir;
  options.classes = classes;
  options.steps = steps;
  options.learningRates.assign(learningRates.begin(), learningRates.end());
  // Comparing bit for bit needs results reproducible from run to run: ATen
  // on one thread (CpuRunOptions::threads).
  if (!referenceFile.empty())
    options.threads = 1;
  // The reference is the step as written, normally without a plan.
  options.warnUnplanned = !isReference;
  return runOnCpu(*function, options);
}

/// Element `i` of `array` as a double.
static double getElement(const NpyArray &array, int64_t i) {
  const uint8_t *data = array.data.data();
  switch (array.type) {
  case NpyType::F32: {
    float value;
    std::memcpy(&value, data + 4 * i, 4);
    return value;
  }
  case NpyType::F64: {
    double value;
    std::memcpy(&value, data + 8 * i, 8);
    return value;
  }
  case NpyType::I64: {
    int64_t value;
    std::memcpy(&value, data + 8 * i, 8);
    return double(value);
  }
  case NpyType::I32: {
    int32_t value;
    std::memcpy(&value, data + 4 * i, 4);
    return double(value);
  }
  case NpyType::U8:
    return data[i];
  case NpyType::F16:
  case NpyType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    llvm::APFloat value(array.type == NpyType::F16 ? llvm::APFloat::IEEEhalf()
                                                   : llvm::APFloat::BFloat(),
                        llvm::APInt(16, bits));
    return value.convertToDouble();
  }
  }
  return 0.0;
}

/// Checks that the run and the reference return the same results by name,
/// in the same order; says what differs and returns false otherwise.
static bool checkSameResults(const CpuRunReport &run,
                             const CpuRunReport &reference) {
  if (run.results.size() != reference.results.size()) {
    llvm::errs() << "remat-run: --reference: the step returns "
                 << run.results.size() << " results, the reference step "
                 << reference.results.size() << "\n";
    return false;
  }
  for (auto [index, mine, theirs] :
       llvm::enumerate(run.results, reference.results)) {
    if (mine.name == theirs.name)
      continue;
    llvm::errs() << "remat-run: --reference: result " << index << " is '"
                 << mine.name << "', the reference step's is '" << theirs.name
                 << "'\n";
    return false;
  }
  return true;
}

/// How far one result is from the reference's: the largest absolute and
/// relative differences, and the elements that are NaN in one of them only
/// (NaN against NaN is equal; NaN against a number is a difference).
struct Difference {
  double maxAbs = 0.0, maxRel = 0.0;
  int64_t nanMismatches = 0;
};

static Difference measureDifference(const NpyArray &mine,
                                    const NpyArray &theirs) {
  Difference difference;
  for (int64_t i = 0, e = mine.getNumElements(); i < e; ++i) {
    double a = getElement(mine, i), b = getElement(theirs, i);
    if (a == b || (std::isnan(a) && std::isnan(b)))
      continue;
    if (std::isnan(a) || std::isnan(b)) {
      ++difference.nanMismatches;
      continue;
    }
    double diff = std::fabs(a - b);
    difference.maxAbs = std::max(difference.maxAbs, diff);
    difference.maxRel =
        std::max(difference.maxRel, diff / std::max(std::fabs(b), 1e-30));
  }
  return difference;
}

/// Compares every result with the reference's; returns false on a result
/// that differs by more than the tolerance, or when the two steps do not
/// return the same results.
static bool compareResults(const CpuRunReport &run,
                           const CpuRunReport &reference) {
  if (!checkSameResults(run, reference))
    return false;
  bool ok = true;
  int identical = 0;
  for (auto [mine, theirs] : llvm::zip(run.results, reference.results)) {
    if (mine.array.shape != theirs.array.shape ||
        mine.array.type != theirs.array.type) {
      llvm::outs() << "  " << mine.name << ": shape or type differs\n";
      ok = false;
      continue;
    }
    if (mine.array.data == theirs.array.data) {
      ++identical;
      continue;
    }
    Difference difference = measureDifference(mine.array, theirs.array);
    llvm::outs() << "  " << mine.name << ": max abs diff "
                 << llvm::format("%.3g", difference.maxAbs) << ", max rel diff "
                 << llvm::format("%.3g", difference.maxRel);
    if (difference.nanMismatches)
      llvm::outs() << ", NaN against a number at " << difference.nanMismatches
                   << (difference.nanMismatches == 1 ? " element"
                                                     : " elements");
    llvm::outs() << "\n";
    if (difference.maxRel > tolerance || difference.nanMismatches)
      ok = false;
  }
  llvm::outs() << "reference: " << identical << " of " << run.results.size()
               << " results bit-identical";
  llvm::outs() << (ok ? "\n" : "; results differ\n");
  return ok;
}

/// Writes every result as <output-dir>/<name>.npy, except that a result
/// marked `remat.updates` is written as its argument's final value,
/// <output-dir>/<argument name>.npy (the weights-directory layout): all into
/// temporaries first, then renamed into place, so that a failure while
/// writing leaves every existing result file as it was.
static bool writeResults(const CpuRunReport &report) {
  if (outputDir.empty())
    return true;
  std::vector<const NamedArray *> files;
  llvm::StringMap<const NamedArray *> byName;
  for (const NamedArray &result : report.results)
    if (result.updates.empty())
      files.push_back(&result);
  for (const NamedArray &state : report.finalState)
    files.push_back(&state);
  for (const NamedArray *file : files) {
    auto [it, inserted] = byName.try_emplace(file->name, file);
    if (inserted)
      continue;
    llvm::errs() << "remat-run: --output-dir: two results would be written "
                    "to '"
                 << file->name << ".npy'"
                 << (report.finalState.empty()
                         ? ""
                         : " (an updated argument's final value is written "
                           "under the argument's name)")
                 << "\n";
    return false;
  }
  if (std::error_code code = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "remat-run: cannot create '" << outputDir
                 << "': " << code.message() << "\n";
    return false;
  }
  std::string error;
  OutputGroup outputs;
  for (const NamedArray *result : files) {
    llvm::SmallString<128> path(outputDir);
    llvm::sys::path::append(path, result->name + ".npy");
    FailureOr<OutputFile *> file = outputs.addFile(path, error);
    if (failed(file)) {
      llvm::errs() << "remat-run: " << error << "\n";
      return false;
    }
    writeNpy((*file)->os(), result->array);
  }
  if (failed(outputs.commit(error))) {
    llvm::errs() << "remat-run: " << error << "\n";
    return false;
  }
  return true;
}

/// Prints each step's single-element results (its loss) that are not state
/// updates: `name = value` for one step; `step K: name = value, ...` (K from
/// 1) for several.
static void printStepScalars(const CpuRunReport &report) {
  bool several = report.stepScalars.size() > 1;
  for (auto [index, scalars] : llvm::enumerate(report.stepScalars)) {
    if (several)
      llvm::outs() << "step " << index + 1 << ": ";
    for (auto [position, scalar] : llvm::enumerate(scalars))
      llvm::outs() << (position == 0 ? "" : ", ") << scalar.name << " = "
                   << llvm::format("%.9g", getElement(scalar.array, 0));
    if (!scalars.empty())
      llvm::outs() << "\n";
  }
}

/// What the run measured: the plan's bytes and the bytes live in it, what
/// ATen held besides, and the time.
static void printMemory(const CpuRunReport &run) {
  llvm::raw_ostream &os = llvm::outs();
  if (run.planned) {
    os << "planned: arguments " << run.argumentBytes << " bytes + arena "
       << run.arenaBytes << " bytes\n"
       << "measured: arguments + the most arena bytes live at once = "
       << run.measuredPeakBytes << " bytes (the analysis says "
       << run.analysisPeakBytes << ")\n"
       << "ATen outside the arena (kernel temporaries, results before "
          "they are copied into their slots): at most "
       << run.outsideArenaPeakBytes << " bytes";
    if (run.outsideArenaPeakBytes > 0 && !run.outsideArenaPeakOp.empty())
      os << ", while " << run.outsideArenaPeakOp << " ran";
    os << "\n";
  } else {
    os << "unplanned: no arena, every value in an allocation of its own; "
          "the analysis' peak is "
       << run.analysisPeakBytes << " bytes\n"
       << "ATen allocations besides the arguments (every value and kernel "
          "temporary): at most "
       << run.outsideArenaPeakBytes << " bytes\n";
  }
  int64_t count = steps;
  os << "time: " << llvm::format("%.3f", 1e3 * run.runSeconds / count)
     << " ms a step";
  if (count > 1)
    os << " (" << count << " steps, "
       << llvm::format("%.3f", 1e3 * run.runSeconds) << " ms)";
  os << ": ATen's CPU kernels with remat-run's copies and checks\n";
}

/// The tool itself; main runs it at the tool's edge (ToolMain.h).
static int runTool(int argc, char **argv) {
  setVersionPrinter("remat-run");
  cl::HideUnrelatedOptions(getToolCategory());
  cl::ParseCommandLineOptions(argc, argv,
                              "remat-run: run a training step on the CPU\n");
  if (!checkOptions())
    return 1;
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  ToolDiagnosticHandler handler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module;
  FailureOr<CpuRunReport> run =
      runFile(inputFile, context, module, /*isReference=*/false);
  if (failed(run))
    return 1;
  printMemory(*run);
  printStepScalars(*run);
  if (referenceFile.empty())
    return writeResults(*run) ? 0 : 1;
  // Results are written once both runs are done (a failed reference run
  // writes nothing), and also when they differ from the reference's, so
  // that the difference can be looked at.
  OwningOpRef<ModuleOp> referenceModule;
  FailureOr<CpuRunReport> reference =
      runFile(referenceFile, context, referenceModule, /*isReference=*/true);
  if (failed(reference) || !writeResults(*run))
    return 1;
  bool same = compareResults(*run, *reference);
  llvm::outs() << "reference time: "
               << llvm::format("%.3f", 1e3 * reference->runSeconds /
                                           std::max<int64_t>(steps, 1))
               << " ms a step\n";
  return same ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::remat::runToolMain("remat-run",
                                  [&] { return runTool(argc, argv); });
}
