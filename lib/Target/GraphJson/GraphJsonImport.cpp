//===- GraphJsonImport.cpp - public benchmark graphs as MLIR --------------===//
//
// Reads the two node-link formats of bench/graphs into one plain
// graph (nodes with name, bytes, cost, phase; edges in file order; an order
// to emit them in), validates it, then emits the function. Every error names
// the node or edge it is about. The text is scanned for its nesting depth
// before the (recursive) JSON parser sees it, so that a deeply nested file is
// an error rather than a stack overflow; ids are any int64 (a std::map holds
// them: a DenseMap reserves two keys).
//
//===----------------------------------------------------------------------===//

#include "remat/Target/GraphJson/GraphJsonImport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <deque>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::remat;
namespace json = llvm::json;

namespace {

struct GraphNode {
  int64_t id = 0;
  std::string name;
  int64_t bytes = 0;
  double cost = 0.0;
  bool backward = false;
};

struct Graph {
  std::vector<GraphNode> nodes;
  /// (source index, target index) in file order.
  std::vector<std::pair<size_t, size_t>> edges;
  /// Node indices in the order to emit them.
  std::vector<size_t> order;
};

/// The two formats of bench/graphs/README.md.
enum class Format { Checkmate, RandomLayered };

class GraphReader {
public:
  GraphReader(Location loc) : loc(loc) {}

  FailureOr<Graph> read(StringRef text);

private:
  InFlightDiagnostic error() { return emitError(loc); }
  FailureOr<Format> detectFormat(const json::Array &nodes);
  LogicalResult readNode(const json::Value &value, size_t index, Format format,
                         GraphNode &node);
  FailureOr<int64_t> readId(const json::Value *value, StringRef what);
  LogicalResult readEdges(const json::Array &links, Format format,
                          Graph &graph);
  LogicalResult readOrder(const json::Object &root, Format format,
                          Graph &graph);
  LogicalResult checkAcyclic(const Graph &graph);
  std::string describe(const GraphNode &node) const {
    return "node " + std::to_string(node.id) + " ('" + node.name + "')";
  }

  Location loc;
  std::map<int64_t, size_t> indexOfId;
};

/// The node-link graphs nest four deep; the JSON parser recurses once per
/// level.
constexpr unsigned kMaxJsonDepth = 64;

/// The 1-based line and column of the first `[` or `{` outside strings that
/// opens level kMaxJsonDepth + 1, if any.
std::optional<std::pair<unsigned, unsigned>> findTooDeep(StringRef text) {
  unsigned depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return std::make_pair(line, column);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

FailureOr<Format> GraphReader::detectFormat(const json::Array &nodes) {
  if (nodes.empty())
    return error() << "the graph has no nodes";
  const json::Object *first = nodes.front().getAsObject();
  if (first && first->get("cost_ram"))
    return Format::Checkmate;
  if (first && first->get("out_cost"))
    return Format::RandomLayered;
  return error() << "unknown graph format: node 0 has neither 'cost_ram' "
                    "(Checkmate) nor 'out_cost' (random layered)";
}

/// An integral JSON number within the int64 range. json::Value::getAsInteger
/// converts a double of 2^63 (what INT64_MAX rounds to) with undefined
/// behaviour, so doubles are bounded here first, by bounds exact in double;
/// stored integers are taken exactly.
static std::optional<int64_t> getInt64(const json::Value &value) {
  if (std::optional<uint64_t> whole = value.getAsUINT64())
    return *whole <= uint64_t(std::numeric_limits<int64_t>::max())
               ? std::optional<int64_t>(int64_t(*whole))
               : std::nullopt;
  std::optional<double> number = value.getAsNumber();
  if (!number || !(*number >= -0x1p63 && *number < 0x1p63))
    return std::nullopt;
  return value.getAsInteger();
}

FailureOr<int64_t> GraphReader::readId(const json::Value *value,
                                       StringRef what) {
  if (value) {
    if (std::optional<int64_t> id = getInt64(*value))
      return *id;
    // The random layered graphs' link endpoints are numbers; accept strings
    // of digits too, as networkx may write them.
    if (std::optional<StringRef> text = value->getAsString()) {
      int64_t id;
      if (!text->getAsInteger(10, id))
        return id;
    }
  }
  return error() << what << " is missing or not an integer id";
}

LogicalResult GraphReader::readNode(const json::Value &value, size_t index,
                                    Format format, GraphNode &node) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return error() << "node at position " << index << " is not an object";
  bool checkmate = format == Format::Checkmate;
  FailureOr<int64_t> id = readId(object->get(checkmate ? "id" : "name"),
                                 "the id of the node at position " +
                                     std::to_string(index));
  if (failed(id))
    return failure();
  node.id = *id;
  node.name = std::to_string(*id);
  if (checkmate) {
    // An empty name keeps the id as the name (an op's name is never empty).
    if (std::optional<StringRef> name = object->getString("name");
        name && !name->empty())
      node.name = name->str();
    if (const json::Value *backward = object->get("backward")) {
      std::optional<bool> flag = backward->getAsBoolean();
      if (!flag)
        return error() << describe(node)
                       << ": 'backward' is not a boolean (true or false)";
      node.backward = *flag;
    }
  }
  StringRef bytesKey = checkmate ? "cost_ram" : "out_cost";
  StringRef costKey = checkmate ? "cost_cpu" : "duration";
  std::optional<double> bytes = object->getNumber(bytesKey);
  std::optional<double> cost = object->getNumber(costKey);
  if (!bytes || !cost)
    return error() << describe(node) << ": missing or non-numeric '"
                   << (bytes ? costKey : bytesKey) << "'";
  if (*bytes < 0 || *cost < 0)
    return error() << describe(node) << ": negative '"
                   << (*bytes < 0 ? bytesKey : costKey) << "'";
  if (std::floor(*bytes) != *bytes)
    return error() << describe(node) << ": '" << bytesKey
                   << "' is not a whole number of bytes";
  // Integers are read exactly; beyond them, a double at or above 2^63 is
  // not an int64 byte count.
  if (std::optional<int64_t> exact = object->getInteger(bytesKey)) {
    node.bytes = *exact;
  } else if (*bytes < 9223372036854775808.0) {
    node.bytes = static_cast<int64_t>(*bytes);
  } else {
    return error() << describe(node) << ": '" << bytesKey << "' (" << *bytes
                   << ") exceeds the int64 byte range";
  }
  node.cost = *cost;
  if (!indexOfId.try_emplace(node.id, index).second)
    return error() << "two nodes have the id " << node.id;
  return success();
}

LogicalResult GraphReader::readEdges(const json::Array &links, Format format,
                                     Graph &graph) {
  bool checkmate = format == Format::Checkmate;
  for (auto [index, value] : llvm::enumerate(links)) {
    const json::Object *object = value.getAsObject();
    std::string what = "edge " + std::to_string(index);
    if (!object)
      return error() << what << " is not an object";
    FailureOr<int64_t> source =
        readId(object->get(checkmate ? "source" : "0"), "the source of " + what);
    if (failed(source))
      return failure();
    FailureOr<int64_t> target =
        readId(object->get(checkmate ? "target" : "1"), "the target of " + what);
    if (failed(target))
      return failure();
    what += " (" + std::to_string(*source) + " -> " + std::to_string(*target) +
            ")";
    auto sourceIt = indexOfId.find(*source);
    auto targetIt = indexOfId.find(*target);
    if (sourceIt == indexOfId.end() || targetIt == indexOfId.end())
      return error() << what << ": unknown node "
                     << (sourceIt == indexOfId.end() ? *source : *target);
    graph.edges.push_back({sourceIt->second, targetIt->second});
  }
  return success();
}

LogicalResult GraphReader::readOrder(const json::Object &root, Format format,
                                     Graph &graph) {
  if (format == Format::Checkmate) {
    // Checkmate's ids are a topological order.
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      graph.order.push_back(i);
    llvm::stable_sort(graph.order, [&](size_t a, size_t b) {
      return graph.nodes[a].id < graph.nodes[b].id;
    });
    return success();
  }
  const json::Object *meta = root.getObject("graph");
  const json::Array *order = meta ? meta->getArray("order") : nullptr;
  if (!order)
    return error() << "random layered graph without 'graph.order'";
  std::vector<bool> seen(graph.nodes.size(), false);
  for (const json::Value &value : *order) {
    FailureOr<int64_t> id = readId(&value, "an entry of 'graph.order'");
    if (failed(id))
      return failure();
    auto it = indexOfId.find(*id);
    if (it == indexOfId.end())
      return error() << "'graph.order' names unknown node " << *id;
    if (seen[it->second])
      return error() << "'graph.order' names node " << *id << " twice";
    seen[it->second] = true;
    graph.order.push_back(it->second);
  }
  if (graph.order.size() != graph.nodes.size())
    return error() << "'graph.order' lists " << graph.order.size() << " of "
                   << graph.nodes.size() << " nodes";
  return success();
}

LogicalResult GraphReader::checkAcyclic(const Graph &graph) {
  // Kahn's algorithm: nodes never freed lie on or behind a cycle.
  std::vector<int64_t> indegree(graph.nodes.size(), 0);
  std::vector<std::vector<size_t>> successors(graph.nodes.size());
  for (auto [source, target] : graph.edges) {
    ++indegree[target];
    successors[source].push_back(target);
  }
  std::deque<size_t> ready;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (indegree[i] == 0)
      ready.push_back(i);
  size_t visited = 0;
  while (!ready.empty()) {
    size_t node = ready.front();
    ready.pop_front();
    ++visited;
    for (size_t next : successors[node])
      if (--indegree[next] == 0)
        ready.push_back(next);
  }
  if (visited == graph.nodes.size())
    return success();
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (indegree[i] > 0)
      return error() << "the graph has a cycle through "
                     << describe(graph.nodes[i]);
  return success();
}

FailureOr<Graph> GraphReader::read(StringRef text) {
  if (std::optional<std::pair<unsigned, unsigned>> at = findTooDeep(text)) {
    Location where = loc;
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      where = FileLineColLoc::get(file.getFilename(), at->first, at->second);
    return emitError(where) << "the JSON nests deeper than " << kMaxJsonDepth
                            << " levels; graph files nest about 4";
  }
  llvm::Expected<json::Value> root = json::parse(text);
  if (!root)
    return error() << "not valid JSON: " << llvm::toString(root.takeError());
  const json::Object *object = root->getAsObject();
  const json::Array *nodes = object ? object->getArray("nodes") : nullptr;
  const json::Array *links = object ? object->getArray("links") : nullptr;
  if (!nodes || !links)
    return error() << "unknown graph format: expected a node-link object "
                      "with 'nodes' and 'links' arrays";
  FailureOr<Format> format = detectFormat(*nodes);
  if (failed(format))
    return failure();
  Graph graph;
  graph.nodes.resize(nodes->size());
  for (auto [index, value] : llvm::enumerate(*nodes))
    if (failed(readNode(value, index, *format, graph.nodes[index])))
      return failure();
  if (failed(readEdges(*links, *format, graph)) ||
      failed(readOrder(*object, *format, graph)) ||
      failed(checkAcyclic(graph)))
    return failure();
  std::vector<size_t> position(graph.nodes.size());
  for (auto [pos, node] : llvm::enumerate(graph.order))
    position[node] = pos;
  for (auto [index, edge] : llvm::enumerate(graph.edges))
    if (position[edge.first] >= position[edge.second])
      return error() << "edge " << index << " ("
                     << graph.nodes[edge.first].id << " -> "
                     << graph.nodes[edge.second].id
                     << ") goes against the graph's node order";
  return graph;
}

/// Makes node names unique (`<name>@<id>` for repeats), since reports and
/// policies refer to values by name.
std::vector<std::string> getUniqueNames(const Graph &graph) {
  llvm::StringMap<int> count;
  for (const GraphNode &node : graph.nodes)
    ++count[node.name];
  std::vector<std::string> names;
  for (const GraphNode &node : graph.nodes)
    names.push_back(count[node.name] > 1
                        ? node.name + "@" + std::to_string(node.id)
                        : node.name);
  return names;
}

OwningOpRef<ModuleOp> emitGraph(const Graph &graph, StringRef functionName,
                                Location loc, MLIRContext *context) {
  context->loadDialect<func::FuncDialect, RematDialect>();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  std::vector<std::vector<size_t>> predecessors(graph.nodes.size());
  std::vector<bool> hasSuccessor(graph.nodes.size(), false);
  for (auto [source, target] : graph.edges) {
    predecessors[target].push_back(source);
    hasSuccessor[source] = true;
  }
  auto typeOf = [&](const GraphNode &node) {
    return RankedTensorType::get({node.bytes}, builder.getI8Type());
  };
  SmallVector<Type> resultTypes;
  for (size_t index : graph.order)
    if (!hasSuccessor[index])
      resultTypes.push_back(typeOf(graph.nodes[index]));

  auto function = func::FuncOp::create(
      builder, loc, functionName, builder.getFunctionType({}, resultTypes));
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  std::vector<std::string> names = getUniqueNames(graph);
  std::vector<Value> valueOf(graph.nodes.size());
  SmallVector<Value> results;
  for (size_t index : graph.order) {
    const GraphNode &node = graph.nodes[index];
    SmallVector<Value> operands;
    for (size_t predecessor : predecessors[index])
      operands.push_back(valueOf[predecessor]);
    auto op = GraphNodeOp::create(builder, loc, typeOf(node), operands,
                                  builder.getF64FloatAttr(node.cost));
    op->setAttr(attr::kName, builder.getStringAttr(names[index]));
    setPhase(op, node.backward ? Phase::Backward : Phase::Forward);
    valueOf[index] = op.getOutput();
    if (!hasSuccessor[index])
      results.push_back(op.getOutput());
  }
  func::ReturnOp::create(builder, loc, results);
  return module;
}

} // namespace

OwningOpRef<ModuleOp>
mlir::remat::importGraphJson(const llvm::MemoryBuffer &buffer,
                             MLIRContext *context) {
  StringRef path = buffer.getBufferIdentifier();
  Location loc = FileLineColLoc::get(context, path, 1, 1);
  GraphReader reader(loc);
  FailureOr<Graph> graph = reader.read(buffer.getBuffer());
  if (failed(graph))
    return nullptr;
  StringRef stem = llvm::sys::path::stem(path);
  return emitGraph(*graph, stem.empty() || stem == "-" ? "graph" : stem, loc,
                   context);
}

void mlir::remat::registerGraphJsonImport() {
  TranslateToMLIRRegistration registration(
      "import-graph-json",
      "Import a rematerialization benchmark graph (networkx node-link JSON)",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return importGraphJson(*buffer, context);
      },
      [](DialectRegistry &registry) {
        registry.insert<func::FuncDialect, RematDialect>();
      });
}
