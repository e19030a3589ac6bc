//===- ForwardOps.cpp - a step's forward ops and their modules ------------===//

#include "remat/Driver/ForwardOps.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/CostOpInterface.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::remat;

/// `path` and the paths around it, outer first: a.b.c -> a, a.b, a.b.c.
static std::vector<std::string> getEnclosingPaths(llvm::StringRef path) {
  std::vector<std::string> paths;
  if (path.empty())
    return paths;
  for (size_t dot = path.find('.'); dot != llvm::StringRef::npos;
       dot = path.find('.', dot + 1))
    paths.push_back(path.take_front(dot).str());
  paths.push_back(path.str());
  return paths;
}

FailureOr<std::vector<ForwardOp>>
mlir::remat::listForwardOps(ModuleOp step, ArrayRef<ImportedOpOrigin> origins) {
  FunctionOpInterface function;
  for (auto candidate : step.getOps<FunctionOpInterface>())
    if (!candidate.isExternal())
      function = candidate;
  if (!function)
    return emitError(step.getLoc(), "the module has no function");
  llvm::StringMap<const ImportedOpOrigin *> originOf;
  for (const ImportedOpOrigin &origin : origins)
    originOf[origin.name] = &origin;
  std::vector<ForwardOp> ops;
  // The last op (not auxiliary) under each module path.
  std::map<std::string, size_t> lastOp;
  for (Operation &op : function.getFunctionBody().front()) {
    auto name = op.getAttrOfType<StringAttr>(attr::kName);
    if (getPhase(&op) != Phase::Forward || !name)
      continue;
    ForwardOp record;
    record.op = &op;
    record.name = name.str();
    record.kind = op.getName().stripDialect().str();
    for (Type type : op.getResultTypes())
      record.resultBytes += getTypeBytes(type).value_or(0);
    const ImportedOpOrigin *origin = originOf.lookup(record.name);
    if (origin) {
      record.modules = getEnclosingPaths(origin->modulePath);
      if (!origin->auxiliary)
        for (const std::string &path : record.modules)
          lastOp[path] = ops.size();
    }
    ops.push_back(std::move(record));
  }
  for (const auto &[path, index] : lastOp)
    ops[index].outputOf.push_back(path);
  // Outer first: a prefix sorts before the paths it encloses.
  for (ForwardOp &op : ops)
    llvm::sort(op.outputOf, [](const std::string &a, const std::string &b) {
      return a.size() < b.size();
    });
  return ops;
}

/// Up to three of `candidates` nearest to `name` by edit distance.
static std::vector<std::string>
getNearest(llvm::StringRef name, const std::vector<std::string> &candidates) {
  std::vector<std::pair<unsigned, std::string>> scored;
  for (const std::string &candidate : candidates)
    scored.push_back({name.edit_distance(candidate), candidate});
  llvm::sort(scored);
  std::vector<std::string> nearest;
  for (const auto &[distance, candidate] : scored) {
    if (nearest.size() == 3)
      break;
    nearest.push_back(candidate);
  }
  return nearest;
}

FailureOr<std::vector<std::string>>
mlir::remat::resolveCheckpoints(ArrayRef<ForwardOp> ops,
                                ArrayRef<std::string> names,
                                llvm::StringRef hint, std::string &error) {
  llvm::StringMap<std::string> meaning;
  std::vector<std::string> known;
  for (const ForwardOp &op : ops) {
    meaning[op.name] = op.name;
    known.push_back(op.name);
  }
  // A module path wins over an op's name spelled the same: resnet18's
  // `layer1.1` is the block's output (`layer1.1.relu.relu.2`), not its
  // residual add, which the importer names after the block too.
  for (const ForwardOp &op : ops)
    for (const std::string &path : op.outputOf) {
      if (!meaning.count(path))
        known.push_back(path);
      meaning[path] = op.name;
    }
  std::vector<std::string> resolved;
  for (const std::string &name : names) {
    auto it = meaning.find(name);
    if (it != meaning.end()) {
      resolved.push_back(it->second);
      continue;
    }
    llvm::raw_string_ostream os(error);
    os << "--checkpoints: '" << name
       << "' is neither a forward op nor a module; nearest: ";
    llvm::interleaveComma(getNearest(name, known), os);
    os << " (" << hint << ")";
    return failure();
  }
  return resolved;
}
