//===- Harness.cuh - the main() of an emitted step ------------------------===//
//
// Part of every source `remat-translate --emit-cuda` writes, after the ops.
// Fills the step's arguments exactly as remat-run does (the counter-based
// generator of include/remat/Execution/Random.h, by role; `--inputs` DIR of
// <argument>.npy files, one batch per step where an input's or label's file
// has a leading dimension of steps; the weights directory for weights and
// buffers), allocates one device block for the arguments and one arena of
// the planned size (plus the scratch area of updates whose library call is
// not alias-safe), runs warm-up steps, restores the initial state, runs the
// timed steps - each carrying the updated state to the next in the argument
// buffers - prints every step's loss, writes the results and the final state
// as .npy and prints a JSON line with the time per step and device memory
// measured with cudaMemGetInfo: taken by the library handles, by the
// allocations, and while running.
//
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace remat_rt {

//===----------------------------------------------------------------------===//
// The generator (as lib/Execution/Random.cpp)
//===----------------------------------------------------------------------===//

// mixBits and uniformAt are in RematCudaOps.cuh (the kernels draw from them).

inline uint64_t getStreamKey(uint64_t seed, const char *name) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char *c = (const unsigned char *)name; *c; ++c) {
    hash ^= *c;
    hash *= 0x100000001b3ULL;
  }
  return mixBits(seed ^ hash);
}

inline double normalAt(uint64_t key, uint64_t index) {
  double u1 = uniformAt(key, 2 * index), u2 = uniformAt(key, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) *
         std::cos(2.0 * 3.14159265358979323846 * u2);
}

//===----------------------------------------------------------------------===//
// The step's description (emitted tables) and its arguments
//===----------------------------------------------------------------------===//

enum class ElementType { F32, I64 };

struct ArgumentInfo {
  const char *name;
  const char *role;
  ElementType type;
  int rank;
  int64_t shape[kMaxRank];
  /// For integer arguments: the classes or rows of their reader.
  int64_t integerBound;
};

struct ResultInfo {
  const char *name;
  ElementType type;
  int rank;
  int64_t shape[kMaxRank];
  /// The argument this result is the new value of (remat.updates; its
  /// pointer is that argument's buffer), or -1.
  int updates;
};

using StepFunction = void (*)(Context &, void *const *arguments, char *arena,
                              void **results);

/// An optimizer update of the step: the weight it trains and its kind
/// (`sgd`, `adam`).
struct UpdateInfo {
  const char *weight;
  const char *kind;
};

struct StepInfo {
  const char *function;
  const ArgumentInfo *arguments;
  int numArguments;
  const ResultInfo *results;
  int numResults;
  int64_t arenaBytes;
  /// The scratch area after the arena (from arena + arenaBytes rounded up to
  /// 256): where updates whose library call is not alias-safe are computed
  /// before they are copied into their argument's buffer. 0 for most steps.
  int64_t scratchBytes;
  /// The function's remat.weights, or null.
  const char *weightsDir;
  StepFunction step;
  const UpdateInfo *updates;
  int numUpdates;
  /// kNumHyperparameters per update: the values of the ops' attributes.
  const double *hyperparameters;
};

inline int64_t countOf(int rank, const int64_t *shape) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= shape[d];
  return count;
}

inline size_t elementBytes(ElementType type) {
  return type == ElementType::F32 ? 4 : 8;
}

[[noreturn]] inline void fail(const std::string &message) {
  failStep(message);
}

//===----------------------------------------------------------------------===//
// .npy files (little-endian <f4 and <i8, C order)
//===----------------------------------------------------------------------===//

inline std::string npyDescr(ElementType type) {
  return type == ElementType::F32 ? "<f4" : "<i8";
}

inline std::string shapeText(int rank, const int64_t *shape) {
  std::string text = "(";
  for (int d = 0; d < rank; ++d)
    text += std::to_string(shape[d]) + (rank == 1 || d + 1 < rank ? "," : "");
  return text + ")";
}

/// The sizes of the header's 'shape' tuple, however it is spaced: numpy
/// writes "(2, 3)", remat "(2, 3,)", the harness "(2,3)". False when it has
/// none.
inline bool npyShape(const std::string &header, std::vector<int64_t> &sizes) {
  size_t at = header.find("'shape':");
  size_t open = at == std::string::npos ? at : header.find('(', at);
  size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos)
    return false;
  sizes.clear();
  bool inNumber = false;
  for (size_t i = open + 1; i < close; ++i) {
    char c = header[i];
    if (c >= '0' && c <= '9') {
      if (!inNumber)
        sizes.push_back(0);
      sizes.back() = sizes.back() * 10 + (c - '0');
      inNumber = true;
    } else if (c == ',' || c == ' ') {
      inNumber = false;
    } else {
      return false;
    }
  }
  return true;
}

/// An open .npy file positioned at its data, with its header's shape; a
/// file that is not a version 1.0 .npy of this type in C order has ok false.
struct NpyReader {
  FILE *file = nullptr;
  bool ok = false;
  std::vector<int64_t> shape;

  NpyReader(const std::string &path, ElementType type) {
    file = std::fopen(path.c_str(), "rb");
    if (!file)
      return;
    char magic[8];
    uint16_t headerLength = 0;
    ok = std::fread(magic, 1, 8, file) == 8 &&
         std::memcmp(magic, "\x93NUMPY\x01", 7) == 0 &&
         std::fread(&headerLength, 2, 1, file) == 1;
    std::string header(ok ? headerLength : 0, '\0');
    ok = ok && std::fread(&header[0], 1, headerLength, file) == headerLength;
    std::string descr = "'descr': '" + npyDescr(type) + "'";
    ok = ok && header.find(descr) != std::string::npos &&
         header.find("'fortran_order': False") != std::string::npos &&
         npyShape(header, shape);
  }
  ~NpyReader() {
    if (file)
      std::fclose(file);
  }
  bool is(int rank, const int64_t *sizes) const {
    return ok && shape == std::vector<int64_t>(sizes, sizes + rank);
  }
  /// Reads the next bytes.size() bytes of data.
  void read(const std::string &path, std::vector<char> &bytes) {
    if (std::fread(bytes.data(), 1, bytes.size(), file) != bytes.size())
      fail("'" + path + "' is shorter than its header says");
  }
};

/// Reads `path` into `bytes` if it holds exactly this type and shape.
inline bool readNpy(const std::string &path, ElementType type, int rank,
                    const int64_t *shape, std::vector<char> &bytes) {
  NpyReader reader(path, type);
  if (!reader.file)
    return false;
  if (!reader.is(rank, shape))
    fail("'" + path + "' does not hold a " + npyDescr(type) +
         " array of shape " + shapeText(rank, shape) + " (version 1.0 .npy)");
  reader.read(path, bytes);
  return true;
}

/// The result files, written as remat-run writes them (remat's
/// Support/OutputFile.h): each into a temporary `<path>.partial` beside it,
/// all renamed into place once every one is written. A failure removes the
/// temporaries, so every existing result file stays as it was and none is
/// half-written.
struct ResultFiles {
  std::vector<std::string> paths;

  [[noreturn]] void abandon(const std::string &message) {
    for (const std::string &path : paths)
      std::remove((path + ".partial").c_str());
    fail(message);
  }

  void write(const std::string &path, ElementType type, int rank,
             const int64_t *shape, const std::vector<char> &bytes) {
    std::string header = "{'descr': '" + npyDescr(type) +
                         "', 'fortran_order': False, 'shape': " +
                         shapeText(rank, shape) + ", }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string partial = path + ".partial";
    FILE *file = std::fopen(partial.c_str(), "wb");
    if (!file)
      abandon("cannot write '" + path + "'");
    paths.push_back(path);
    uint16_t length = uint16_t(header.size());
    bool ok = std::fwrite("\x93NUMPY\x01\x00", 1, 8, file) == 8 &&
              std::fwrite(&length, 2, 1, file) == 1 &&
              std::fwrite(header.data(), 1, header.size(), file) ==
                  header.size() &&
              std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    ok = std::fclose(file) == 0 && ok;
    if (!ok)
      abandon("cannot write '" + path + "'");
  }

  /// Renames every temporary into place, in the order written.
  void commit() {
    for (size_t i = 0; i < paths.size(); ++i) {
      if (std::rename((paths[i] + ".partial").c_str(), paths[i].c_str()) ==
          0)
        continue;
      std::string failed = paths[i];
      paths.erase(paths.begin(), paths.begin() + i);
      abandon("cannot write '" + failed + "'");
    }
    paths.clear();
  }
};

//===----------------------------------------------------------------------===//
// Filling the arguments (as remat-run's generateArgument)
//===----------------------------------------------------------------------===//

inline void generateArgument(const ArgumentInfo &info, uint64_t seed,
                             int64_t classes, std::vector<char> &bytes) {
  int64_t count = countOf(info.rank, info.shape);
  uint64_t key = getStreamKey(seed, info.name);
  std::string role = info.role;
  std::vector<double> values(count, 0.0);
  if (role == "seed") {
    int64_t *out = (int64_t *)bytes.data();
    for (int64_t i = 0; i < count; ++i)
      out[i] = int64_t(mixBits(key + 0x9e3779b97f4a7c15ULL) >> 1);
    return;
  }
  if (role == "opt_state" || role == "step") {
    std::memset(bytes.data(), 0, bytes.size());
    return;
  }
  if (info.type == ElementType::I64) {
    int64_t bound = classes > 0 ? classes : info.integerBound;
    int64_t *out = (int64_t *)bytes.data();
    for (int64_t i = 0; i < count; ++i)
      out[i] = int64_t(std::floor(uniformAt(key, i) * double(bound)));
    return;
  }
  if (role == "weight") {
    int64_t fanIn = info.rank >= 2
                        ? count / (info.shape[0] > 1 ? info.shape[0] : 1)
                        : (count > 1 ? count : 1);
    double bound = 1.0 / std::sqrt(double(fanIn));
    for (int64_t i = 0; i < count; ++i)
      values[i] = (2.0 * uniformAt(key, i) - 1.0) * bound;
  } else if (role == "buffer") {
    for (int64_t i = 0; i < count; ++i)
      values[i] = 0.5 + uniformAt(key, i);
  } else {
    for (int64_t i = 0; i < count; ++i)
      values[i] = normalAt(key, i);
  }
  float *out = (float *)bytes.data();
  for (int64_t i = 0; i < count; ++i)
    out[i] = float(values[i]);
}

/// The roles of the step's state: their arguments are updated in place and
/// written to --output-dir as `<argument name>.npy` after the last step.
inline bool isStateRole(const std::string &role) {
  return role == "weight" || role == "buffer" || role == "opt_state" ||
         role == "step";
}

/// Fills `bytes` with the argument's value. An input's or label's file in
/// `inputsDir` may instead hold a batch per step, [S, <argument shape>] with
/// S >= `steps`: then `batches` receives the first `steps` of them, `bytes`
/// the first, and the result is true.
inline bool loadArgument(const ArgumentInfo &info, const StepInfo &step,
                         const std::string &inputsDir, uint64_t seed,
                         int64_t classes, int steps, std::vector<char> &bytes,
                         std::vector<char> &batches) {
  std::string role = info.role;
  std::string name = std::string(info.name) + ".npy";
  if (!inputsDir.empty()) {
    std::string path = inputsDir + "/" + name;
    NpyReader reader(path, info.type);
    if (reader.file) {
      if (reader.is(info.rank, info.shape)) {
        reader.read(path, bytes);
        return false;
      }
      bool batchRole = role == "input" || role == "label";
      bool perStep = batchRole && reader.ok &&
                     int(reader.shape.size()) == info.rank + 1 &&
                     std::vector<int64_t>(reader.shape.begin() + 1,
                                          reader.shape.end()) ==
                         std::vector<int64_t>(info.shape,
                                              info.shape + info.rank);
      if (!perStep) {
        std::string message = "'" + path + "' does not hold a " +
                              npyDescr(info.type) + " array of shape " +
                              shapeText(info.rank, info.shape);
        if (batchRole) {
          // (S, 4, 8): a batch per step, S >= steps.
          std::string batched = "(S";
          for (int d = 0; d < info.rank; ++d)
            batched += "," + std::to_string(info.shape[d]);
          message += " or, a batch per step, " + batched +
                     ") with S >= " + std::to_string(steps);
        }
        fail(message + " (version 1.0 .npy)");
      }
      if (reader.shape[0] < steps)
        fail("'" + path + "' holds " + std::to_string(reader.shape[0]) +
             " batches of argument '" + info.name + "'; --steps=" +
             std::to_string(steps) + " needs " + std::to_string(steps));
      batches.resize(bytes.size() * size_t(steps));
      reader.read(path, batches);
      std::memcpy(bytes.data(), batches.data(), bytes.size());
      return true;
    }
  }
  if (step.weightsDir && (role == "weight" || role == "buffer")) {
    std::string path = std::string(step.weightsDir) + "/" + name;
    if (!readNpy(path, info.type, info.rank, info.shape, bytes))
      fail("argument '" + std::string(info.name) + "': cannot read '" + path +
           "'");
    return false;
  }
  generateArgument(info, seed, classes, bytes);
  return false;
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

struct HarnessOptions {
  int steps = 10;
  int warmup = 3;
  uint64_t seed = 0;
  int64_t classes = 0;
  std::string inputsDir, outputDir;
  /// One learning rate per step for every optimizer update (--lr); empty:
  /// the ops' own.
  std::vector<double> learningRates;
};

/// --lr's comma-separated learning rates.
inline std::vector<double> parseLearningRates(const char *text) {
  std::vector<double> rates;
  std::string list = text;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    std::string item = list.substr(start, end - start);
    char *rest = nullptr;
    double rate = std::strtod(item.c_str(), &rest);
    if (item.empty() || *rest != '\0' || !std::isfinite(rate) || rate < 0)
      fail("--lr: '" + item + "' is not a learning rate (a number >= 0)");
    rates.push_back(rate);
    start = end + 1;
  }
  return rates;
}

/// --help: the options and their defaults.
inline void printHelp(const char *program) {
  HarnessOptions defaults;
  std::printf(
      "usage: %s [--steps=N] [--warmup=N] [--seed=N] [--classes=N] "
      "[--inputs=DIR] [--output-dir=DIR] [--lr=LR1,...]\n"
      "\n"
      "Runs the training step remat-translate --emit-cuda wrote: its "
      "arguments filled as remat-run fills them, one arena of the planned "
      "size. Prints each timed step's loss, then a JSON line with the time "
      "per step and the device memory measured.\n"
      "\n"
      "  --steps=N         timed steps, the updated state carried from step "
      "to step (default: %d)\n"
      "  --warmup=N        untimed steps first, the initial state restored "
      "after them (default: %d)\n"
      "  --seed=N          seed of the generated arguments, as remat-run's "
      "(default: %llu)\n"
      "  --classes=N       class count of label arguments (default 0: the "
      "logits' or embedding's size)\n"
      "  --inputs=DIR      <argument name>.npy inputs; an input's or label's "
      "file may hold one batch per step (default: none, generated)\n"
      "  --output-dir=DIR  write each result, and each updated argument's "
      "final value under the argument's name, as .npy (default: none)\n"
      "  --lr=LR1,...      one learning rate per step for every optimizer "
      "update, as remat-run's --lr (default: the ops' own)\n"
      "  --help            this text\n",
      program, defaults.steps, defaults.warmup,
      (unsigned long long)defaults.seed);
}

inline HarnessOptions parseOptions(int argc, char **argv) {
  HarnessOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp(argv[0]);
      std::exit(0);
    }
    auto value = [&](const char *flag) -> const char * {
      size_t length = std::strlen(flag);
      if (arg.compare(0, length, flag) == 0 && arg.size() > length &&
          arg[length] == '=')
        return argv[i] + length + 1;
      return nullptr;
    };
    if (const char *v = value("--steps"))
      options.steps = std::atoi(v);
    else if (const char *v = value("--warmup"))
      options.warmup = std::atoi(v);
    else if (const char *v = value("--seed"))
      options.seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("--classes"))
      options.classes = std::atoll(v);
    else if (const char *v = value("--inputs"))
      options.inputsDir = v;
    else if (const char *v = value("--output-dir"))
      options.outputDir = v;
    else if (const char *v = value("--lr"))
      options.learningRates = parseLearningRates(v);
    else
      fail("unknown option '" + arg +
           "' (expected --steps=N --warmup=N --seed=N --classes=N "
           "--inputs=DIR --output-dir=DIR --lr=LR1,...; --help lists them)");
  }
  if (options.steps < 1 || options.warmup < 0)
    fail("--steps must be at least 1 and --warmup at least 0");
  if (!options.learningRates.empty() &&
      int(options.learningRates.size()) != options.steps)
    fail("--lr gives " + std::to_string(options.learningRates.size()) +
         " learning rates for " + std::to_string(options.steps) +
         " steps: give one per step");
  return options;
}

/// The step's losses: every one-element f32 result that is not state.
inline std::vector<int> getLossResults(const StepInfo &step) {
  std::vector<int> losses;
  for (int r = 0; r < step.numResults; ++r) {
    const ResultInfo &info = step.results[r];
    if (info.type == ElementType::F32 && info.updates < 0 &&
        countOf(info.rank, info.shape) == 1)
      losses.push_back(r);
  }
  return losses;
}

/// Writes `value` to `*seed`, in stream order: the seed of a step.
__global__ void setSeed(int64_t *seed, int64_t value) { *seed = value; }

inline size_t freeDeviceBytes() {
  size_t freeBytes = 0, totalBytes = 0;
  REMAT_CHECK_CUDA(cudaMemGetInfo(&freeBytes, &totalBytes));
  return freeBytes;
}

inline int64_t alignUp(int64_t value) { return (value + 255) / 256 * 256; }

inline int runHarness(int argc, char **argv, const StepInfo &step) {
  HarnessOptions options = parseOptions(argc, argv);
  currentOp = "setup";
  REMAT_CHECK_CUDA(cudaSetDevice(0));
  REMAT_CHECK_CUDA(cudaFree(nullptr)); // creates the context
  size_t freeAtStart = freeDeviceBytes();

  if (!options.learningRates.empty() && step.numUpdates == 0)
    fail("--lr sets the learning rate of the step's optimizer updates, and "
         "this step has none");
  // The updates' hyperparameters, from the ops' attributes; --lr sets each
  // step's learning rate in them before the step runs.
  std::vector<double> hyperparameters(
      step.hyperparameters,
      step.hyperparameters + step.numUpdates * kNumHyperparameters);
  Context ctx;
  ctx.hyperparameters = hyperparameters.data();
  REMAT_CHECK_CUDA(cudaStreamCreate(&ctx.stream));
  REMAT_CHECK_CUBLAS(cublasCreate(&ctx.cublas));
  REMAT_CHECK_CUBLAS(cublasSetStream(ctx.cublas, ctx.stream));
  // No TF32, and no workspace of cuBLAS's own: memory stays in the plan.
  REMAT_CHECK_CUBLAS(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH));
  REMAT_CHECK_CUBLAS(cublasSetWorkspace(ctx.cublas, nullptr, 0));
  REMAT_CHECK_CUDNN(cudnnCreate(&ctx.cudnn));
  REMAT_CHECK_CUDNN(cudnnSetStream(ctx.cudnn, ctx.stream));
  size_t freeAfterLibraries = freeDeviceBytes();

  // One block for the arguments (256-byte aligned each) and the arena, with
  // the scratch area after it where the step has one.
  std::vector<int64_t> argumentOffsets;
  int64_t argumentBytes = 0, argumentBlock = 0;
  for (int a = 0; a < step.numArguments; ++a) {
    const ArgumentInfo &info = step.arguments[a];
    argumentOffsets.push_back(argumentBlock);
    int64_t bytes = countOf(info.rank, info.shape) * elementBytes(info.type);
    argumentBytes += bytes;
    argumentBlock += alignUp(bytes);
  }
  int64_t arenaBlock = step.scratchBytes > 0
                           ? alignUp(step.arenaBytes) + step.scratchBytes
                           : step.arenaBytes;
  char *arguments = nullptr, *arena = nullptr;
  if (argumentBlock > 0)
    REMAT_CHECK_CUDA(cudaMalloc(&arguments, argumentBlock));
  if (arenaBlock > 0)
    REMAT_CHECK_CUDA(cudaMalloc(&arena, arenaBlock));
  size_t freeAfterAllocation = freeDeviceBytes();

  // The initial values stay on the host: the timed steps start from them
  // again after the warm-up steps trained.
  std::vector<std::vector<char>> initial(step.numArguments);
  struct PerStep {
    int argument;
    int64_t offset, rowBytes;
  };
  std::vector<PerStep> perStep;
  std::vector<std::vector<char>> batches(step.numArguments);
  int64_t batchBytes = 0;
  std::vector<void *> argumentPointers;
  for (int a = 0; a < step.numArguments; ++a) {
    const ArgumentInfo &info = step.arguments[a];
    initial[a].resize(countOf(info.rank, info.shape) *
                      elementBytes(info.type));
    if (loadArgument(info, step, options.inputsDir, options.seed,
                     options.classes, options.steps, initial[a], batches[a])) {
      perStep.push_back({a, batchBytes, int64_t(initial[a].size())});
      batchBytes += alignUp(int64_t(batches[a].size()));
    }
    argumentPointers.push_back(arguments + argumentOffsets[a]);
  }
  auto upload = [&](int a) {
    if (!initial[a].empty())
      REMAT_CHECK_CUDA(cudaMemcpy(argumentPointers[a], initial[a].data(),
                                  initial[a].size(), cudaMemcpyHostToDevice));
  };
  for (int a = 0; a < step.numArguments; ++a)
    upload(a);
  // Inputs with a batch per step: every batch on the device before the
  // first step (outside the plan: the harness's, reported as batch_bytes);
  // step i reads its batch in place.
  char *batchBlock = nullptr;
  if (batchBytes > 0) {
    REMAT_CHECK_CUDA(cudaMalloc(&batchBlock, batchBytes));
    for (const PerStep &input : perStep) {
      REMAT_CHECK_CUDA(cudaMemcpy(batchBlock + input.offset,
                                  batches[input.argument].data(),
                                  batches[input.argument].size(),
                                  cudaMemcpyHostToDevice));
      std::vector<char>().swap(batches[input.argument]);
    }
  }
  size_t freeBeforeRun = freeDeviceBytes();

  // The losses, copied to pinned host memory after each timed step (no
  // synchronization).
  std::vector<int> lossResults = getLossResults(step);
  float *losses = nullptr;
  size_t lossCount = lossResults.size() * size_t(options.steps);
  if (lossCount > 0)
    REMAT_CHECK_CUDA(cudaMallocHost(&losses, lossCount * sizeof(float)));

  std::vector<void *> results(step.numResults, nullptr);
  // Step `index` (of the timed steps; warm-up step w is index w mod steps):
  // its batch of every per-step input, the state as the previous step left
  // it in the argument buffers.
  // Seeds move on by one after every step, as remat-run's: step `index`
  // draws its dropout masks from the initial seed plus `index`.
  auto runStep = [&](int index) {
    for (const PerStep &input : perStep)
      argumentPointers[input.argument] =
          batchBlock + input.offset + int64_t(index) * input.rowBytes;
    for (int a = 0; a < step.numArguments; ++a) {
      if (std::string(step.arguments[a].role) != "seed")
        continue;
      const int64_t *first = (const int64_t *)initial[a].data();
      for (int64_t e = 0;
           e < countOf(step.arguments[a].rank, step.arguments[a].shape); ++e)
        setSeed<<<1, 1, 0, ctx.stream>>>(
            (int64_t *)argumentPointers[a] + e,
            int64_t(uint64_t(first[e]) + uint64_t(index)));
      REMAT_CHECK_LAUNCH();
    }
    for (int u = 0; u < step.numUpdates && !options.learningRates.empty();
         ++u)
      hyperparameters[u * kNumHyperparameters + kLr] =
          options.learningRates[index];
    step.step(ctx, argumentPointers.data(), arena, results.data());
  };
  for (int i = 0; i < options.warmup; ++i)
    runStep(i % options.steps);
  // The warm-up trained the state: back to the initial values, so that the
  // timed steps compute what remat-run's --steps computes.
  currentOp = "restoring the state after the warm-up";
  if (options.warmup > 0) {
    REMAT_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    for (int r = 0; r < step.numResults; ++r)
      if (step.results[r].updates >= 0)
        upload(step.results[r].updates);
  }
  cudaEvent_t start, stop;
  currentOp = "timing";
  REMAT_CHECK_CUDA(cudaEventCreate(&start));
  REMAT_CHECK_CUDA(cudaEventCreate(&stop));
  REMAT_CHECK_CUDA(cudaEventRecord(start, ctx.stream));
  for (int i = 0; i < options.steps; ++i) {
    runStep(i);
    currentOp = "copying the loss";
    for (size_t k = 0; k < lossResults.size(); ++k)
      REMAT_CHECK_CUDA(cudaMemcpyAsync(losses + size_t(i) * lossResults.size() + k,
                                       results[lossResults[k]], sizeof(float),
                                       cudaMemcpyDeviceToHost, ctx.stream));
  }
  REMAT_CHECK_CUDA(cudaEventRecord(stop, ctx.stream));
  REMAT_CHECK_CUDA(cudaEventSynchronize(stop));
  float milliseconds = 0;
  REMAT_CHECK_CUDA(cudaEventElapsedTime(&milliseconds, start, stop));
  size_t freeAfterRun = freeDeviceBytes();
  for (int i = 0; i < options.steps; ++i)
    for (size_t k = 0; k < lossResults.size(); ++k)
      std::printf("step %d: %s = %.9g\n", i + 1,
                  step.results[lossResults[k]].name,
                  double(losses[size_t(i) * lossResults.size() + k]));

  currentOp = "results";
  if (!options.outputDir.empty()) {
    // The results of the last step, then the final state: every argument of
    // a state role as `<argument name>.npy` (the weights directory's layout)
    // from its buffer. An updated result and its argument are the same
    // bytes: where they share a name, one file.
    struct Output {
      std::string name;
      ElementType type;
      int rank;
      const int64_t *shape;
      const void *device;
    };
    std::vector<Output> outputs;
    for (int r = 0; r < step.numResults; ++r) {
      const ResultInfo &info = step.results[r];
      outputs.push_back(
          {info.name, info.type, info.rank, info.shape, results[r]});
    }
    for (int a = 0; a < step.numArguments; ++a) {
      const ArgumentInfo &info = step.arguments[a];
      if (!isStateRole(info.role))
        continue;
      bool same = false;
      for (int r = 0; r < step.numResults; ++r) {
        if (std::string(step.results[r].name) != info.name)
          continue;
        if (step.results[r].updates != a)
          fail("result '" + std::string(info.name) + "' and the final state "
               "of argument '" + info.name + "' would both be written to '" +
               info.name + ".npy'");
        same = true;
      }
      if (!same)
        outputs.push_back({info.name, info.type, info.rank, info.shape,
                           argumentPointers[a]});
    }
    // As remat-run: the directory is made if missing (one level).
    if (mkdir(options.outputDir.c_str(), 0777) != 0 && errno != EEXIST)
      fail("cannot create '" + options.outputDir + "'");
    // Everything is copied back before the first file is written: a CUDA
    // error cannot leave temporaries behind.
    std::vector<std::vector<char>> host(outputs.size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      host[o].resize(countOf(outputs[o].rank, outputs[o].shape) *
                     elementBytes(outputs[o].type));
      if (!host[o].empty())
        REMAT_CHECK_CUDA(cudaMemcpy(host[o].data(), outputs[o].device,
                                    host[o].size(), cudaMemcpyDeviceToHost));
    }
    ResultFiles files;
    for (size_t o = 0; o < outputs.size(); ++o)
      files.write(options.outputDir + "/" + outputs[o].name + ".npy",
                  outputs[o].type, outputs[o].rank, outputs[o].shape, host[o]);
    files.commit();
  }
  auto taken = [](size_t before, size_t after) {
    return (long long)before - (long long)after;
  };
  std::printf("{\"function\": \"%s\", \"arena_bytes\": %lld, "
              "\"argument_bytes\": %lld, \"planned_bytes\": %lld, "
              "\"scratch_bytes\": %lld, \"library_bytes\": %lld, "
              "\"allocated_bytes\": %lld, \"batch_bytes\": %lld, "
              "\"run_growth_bytes\": %lld, \"ms_per_step\": %.4f, "
              "\"steps\": %d, \"warmup\": %d}\n",
              step.function, (long long)step.arenaBytes,
              (long long)argumentBytes,
              (long long)(step.arenaBytes + argumentBytes),
              (long long)step.scratchBytes,
              taken(freeAtStart, freeAfterLibraries),
              taken(freeAfterLibraries, freeAfterAllocation),
              (long long)batchBytes, taken(freeBeforeRun, freeAfterRun),
              milliseconds / options.steps, options.steps, options.warmup);
  if (losses)
    cudaFreeHost(losses);
  cudaFree(batchBlock);
  cudnnDestroy(ctx.cudnn);
  cublasDestroy(ctx.cublas);
  cudaFree(arena);
  cudaFree(arguments);
  cudaStreamDestroy(ctx.stream);
  return 0;
}

} // namespace remat_rt
