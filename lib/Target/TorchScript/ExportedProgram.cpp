//===- ExportedProgram.cpp - torch.export programs as TorchScript graphs --===//
//
// Reads a program saved by torch.export.save (a PT2 archive: the program as
// JSON in models/, its parameters, buffers and constants as raw bytes in
// data/) and builds the TorchScript graph of the same ATen ops: the model's
// inputs first, then one input per parameter, buffer and constant, named by
// its fully qualified name. Each node keeps its source line (the last frame
// of the program's stack trace) and the module that called it. The rest of
// the importer prepares and converts that graph as it does a TorchScript
// module's forward.
//
//===----------------------------------------------------------------------===//

#include "ExportedProgram.h"
#include "GraphPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <caffe2/serialize/inline_container.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
namespace jit = torch::jit;
using json = nlohmann::json;

bool torchscript::isExportedProgram(
    caffe2::serialize::PyTorchStreamReader &reader) {
  return !reader.hasRecord("data.pkl") && !getModelRecords(reader).empty();
}

std::vector<std::string>
torchscript::getModelRecords(caffe2::serialize::PyTorchStreamReader &reader) {
  std::vector<std::string> models;
  for (const std::string &record : reader.getAllRecords()) {
    llvm::StringRef name(record);
    if (name.consume_front("models/") && name.ends_with(".json") &&
        !name.contains('/'))
      models.push_back(record);
  }
  return models;
}

namespace {

/// What the program's JSON says, read with the archive's tensors.
class ProgramReader {
public:
  ProgramReader(caffe2::serialize::PyTorchStreamReader &reader,
                Location fileLoc)
      : reader(reader), fileLoc(fileLoc), loc(fileLoc) {}

  FailureOr<PreparedGraph> run(ArrayRef<RankedTensorType> inputTypes,
                               StringRef inputTypesOption);

private:
  FailureOr<json> readJson(const std::string &record);
  FailureOr<at::Tensor> readTensor(const json &entry, StringRef directory,
                                   const std::string &name);
  LogicalResult readTensorConfig(StringRef directory, StringRef model);
  FailureOr<RankedTensorType> getUserInputType(const std::string &name,
                                               const json &meta,
                                               RankedTensorType given,
                                               StringRef inputTypesOption);
  LogicalResult addInputs(const json &signature, const json &tensorValues,
                          ArrayRef<RankedTensorType> inputTypes,
                          StringRef inputTypesOption);
  LogicalResult addNode(const json &node);
  LogicalResult addAutocastRegion(const json &node);
  FailureOr<jit::Value *> convertArgument(const json &argument,
                                          const c10::Argument &formal,
                                          const std::string &opName);
  FailureOr<jit::Value *> convertConstantArgument(const std::string &kind,
                                                  const json &value,
                                                  const c10::Argument &formal,
                                                  const std::string &opName);
  LogicalResult mapOutputs(const json &node, jit::Node *created,
                           const std::string &opName);
  LogicalResult addOutputs(const json &signature);
  jit::Value *lookup(const json &tensorArgument);

  caffe2::serialize::PyTorchStreamReader &reader;
  Location fileLoc;
  /// The location of the node being added.
  Location loc;
  PreparedGraph prepared;
  /// A tensor of the archive and the record that holds it (shared by the
  /// names of one tensor: tied weights).
  struct ArchiveTensor {
    at::Tensor value;
    std::string record;
  };
  /// Every tensor of the archive by its fully qualified name.
  std::map<std::string, ArchiveTensor> tensors;
  /// The graph's values by the program's names.
  std::map<std::string, jit::Value *> values;
  /// The types the program records for the names of the graph (or of the
  /// subgraph) being read, and for the values made so far.
  const json *tensorValues = nullptr;
  RecordedTypes recordedTypes;
  void recordType(const std::string &name, jit::Value *value);
};

} // namespace

//===----------------------------------------------------------------------===//
// The archive's records
//===----------------------------------------------------------------------===//

FailureOr<json> ProgramReader::readJson(const std::string &record) {
  if (!reader.hasRecord(record))
    return emitError(fileLoc) << "the archive has no '" << record << "'";
  auto [data, size] = reader.getRecord(record);
  json parsed = json::parse(static_cast<const char *>(data.get()),
                            static_cast<const char *>(data.get()) + size,
                            /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded())
    return emitError(fileLoc) << "'" << record << "' is not valid JSON";
  return parsed;
}

/// The ATen scalar type of torch.export's serialized dtype (the numbering
/// of torch/_export/serde/schema.py), or nothing.
static std::optional<c10::ScalarType> getSerializedType(int64_t dtype) {
  switch (dtype) {
  case 1:
    return c10::ScalarType::Byte;
  case 2:
    return c10::ScalarType::Char;
  case 3:
    return c10::ScalarType::Short;
  case 4:
    return c10::ScalarType::Int;
  case 5:
    return c10::ScalarType::Long;
  case 6:
    return c10::ScalarType::Half;
  case 7:
    return c10::ScalarType::Float;
  case 8:
    return c10::ScalarType::Double;
  case 12:
    return c10::ScalarType::Bool;
  case 13:
    return c10::ScalarType::BFloat16;
  default:
    return std::nullopt;
  }
}

/// The sizes (or strides) of a serialized tensor's metadata when every one
/// is a number; nothing when one is symbolic (a dynamic shape).
static std::optional<std::vector<int64_t>> getInts(const json &symInts) {
  std::vector<int64_t> ints;
  for (const json &symInt : symInts) {
    if (!symInt.contains("as_int"))
      return std::nullopt;
    ints.push_back(symInt["as_int"].get<int64_t>());
  }
  return ints;
}

/// The string `object[key]`, or "" where `object` is not an object or the
/// entry is missing or null (a node's metadata may be).
static std::string getString(const json &object, const char *key) {
  if (!object.is_object())
    return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The tag of a tagged union as torch.export writes one ({"as_int": 3}:
/// "as_int"), or "" where `tagged` is no object with an entry.
static std::string getKind(const json &tagged) {
  if (!tagged.is_object() || tagged.empty())
    return "";
  return tagged.begin().key();
}

FailureOr<at::Tensor> ProgramReader::readTensor(const json &entry,
                                                StringRef directory,
                                                const std::string &name) {
  if (entry.value("use_pickle", false))
    return emitError(fileLoc) << "tensor '" << name
                              << "' is saved pickled; the importer reads raw "
                                 "tensors only";
  const json &meta = entry.at("tensor_meta");
  std::optional<c10::ScalarType> type =
      getSerializedType(meta.at("dtype").get<int64_t>());
  std::optional<std::vector<int64_t>> sizes = getInts(meta.at("sizes"));
  std::optional<std::vector<int64_t>> strides = getInts(meta.at("strides"));
  int64_t offset = meta.at("storage_offset").value("as_int", int64_t(0));
  if (!type || !sizes || !strides)
    return emitError(fileLoc) << "tensor '" << name
                              << "' has a dtype or shape the importer does not "
                                 "take";
  std::string record =
      (directory + "/" + entry.at("path_name").get<std::string>()).str();
  if (!reader.hasRecord(record))
    return emitError(fileLoc) << "the archive has no '" << record
                              << "' for tensor '" << name << "'";
  auto [data, bytes] = reader.getRecord(record);
  size_t elementSize = c10::elementSize(*type);
  // The furthest element the view reads must lie inside the bytes.
  int64_t last = offset;
  bool valid = sizes->size() == strides->size() && offset >= 0;
  for (auto [size, stride] : llvm::zip(*sizes, *strides)) {
    int64_t reach = 0;
    valid = valid && size >= 0 && stride >= 0 &&
            !llvm::MulOverflow(size == 0 ? 0 : size - 1, stride, reach) &&
            !llvm::AddOverflow(last, reach, last);
  }
  if (!valid)
    return emitError(fileLoc) << "tensor '" << name
                              << "' has negative or overflowing sizes, "
                                 "strides or offset";
  bool empty = llvm::is_contained(*sizes, 0);
  if (!empty && uint64_t(last) >= bytes / elementSize)
    return emitError(fileLoc)
           << "tensor '" << name << "' needs more bytes than '" << record
           << "' holds (" << bytes << ")";
  at::Tensor storage = at::empty({int64_t(bytes / elementSize)},
                                 at::TensorOptions().dtype(*type));
  if (bytes != 0)
    std::memcpy(storage.data_ptr(), data.get(), storage.nbytes());
  if (empty)
    return at::empty(*sizes, at::TensorOptions().dtype(*type));
  return storage.as_strided(*sizes, *strides, offset).contiguous();
}

/// Reads data/<directory>/<model>_<kind>_config.json's tensors.
LogicalResult ProgramReader::readTensorConfig(StringRef directory,
                                              StringRef model) {
  llvm::StringRef kind = directory.rsplit('/').second; // weights, constants
  std::string record =
      (directory + "/" + model + "_" + kind + "_config.json").str();
  if (!reader.hasRecord(record))
    return success(); // a program without tensors of this kind
  FailureOr<json> config = readJson(record);
  if (failed(config))
    return failure();
  json entries = config->value("config", json::object());
  for (const auto &[name, entry] : entries.items()) {
    FailureOr<at::Tensor> tensor = readTensor(entry, directory, name);
    if (failed(tensor))
      return failure();
    tensors[name] = {*tensor,
                     (directory + "/" + getString(entry, "path_name")).str()};
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// A tensor type as the command line writes it: 2x3x8x8xf32.
static std::string formatTensorSpec(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int64_t size : type.getShape())
    os << size << "x";
  os << type.getElementType();
  return text;
}

/// The type of the program's input `name` from its metadata `meta`; `given`,
/// when not null, must equal it.
FailureOr<RankedTensorType>
ProgramReader::getUserInputType(const std::string &name, const json &meta,
                                RankedTensorType given,
                                StringRef inputTypesOption) {
  std::optional<c10::ScalarType> scalarType =
      getSerializedType(meta.at("dtype").get<int64_t>());
  std::optional<std::vector<int64_t>> sizes = getInts(meta.at("sizes"));
  if (!sizes)
    return emitError(fileLoc)
           << "input '" << name
           << "' has a dynamic shape; the importer takes programs exported "
              "with static shapes";
  Type elementType =
      scalarType ? getElementType(fileLoc.getContext(), *scalarType) : Type();
  if (!elementType)
    return emitError(fileLoc) << "input '" << name
                              << "' has an element type the importer does "
                                 "not take";
  auto exported = RankedTensorType::get(*sizes, elementType);
  if (given && given != exported)
    return emitError(fileLoc)
           << "input '" << name << "' was exported as "
           << formatTensorSpec(exported) << " but " << inputTypesOption
           << " gave " << formatTensorSpec(given)
           << "; a program exported with static shapes takes only those";
  return exported;
}

LogicalResult ProgramReader::addInputs(const json &signature,
                                       const json &tensorValues,
                                       ArrayRef<RankedTensorType> inputTypes,
                                       StringRef inputTypesOption) {
  jit::Graph &graph = *prepared.graph;
  std::vector<std::string> userInputs;
  std::vector<LiftedTensor> lifted;
  /// Per program input, the index in `lifted` of its tensor: one per
  /// record, named by its first name (parameters come in module order, as
  /// named_parameters() names a tied weight).
  std::vector<std::pair<std::string, size_t>> liftedArgs;
  std::map<std::string, size_t> liftedByRecord;
  for (const json &spec : signature.at("input_specs")) {
    if (spec.contains("user_input")) {
      const json &arg = spec["user_input"].at("arg");
      if (!arg.contains("as_tensor"))
        return emitError(fileLoc)
               << "the program takes a non-tensor input ('" << arg.dump()
               << "'); the importer takes tensor inputs only";
      userInputs.push_back(arg["as_tensor"].at("name"));
      continue;
    }
    std::string kind, name;
    bool isBuffer = true;
    if (spec.contains("parameter")) {
      kind = "parameter";
      name = spec["parameter"].at("parameter_name");
      isBuffer = false;
    } else if (spec.contains("buffer")) {
      kind = "buffer";
      name = spec["buffer"].at("buffer_name");
    } else if (spec.contains("tensor_constant")) {
      kind = "tensor_constant";
      name = spec["tensor_constant"].at("tensor_constant_name");
    } else {
      return emitError(fileLoc)
             << "the program takes an input of kind '" << getKind(spec)
             << "'; the importer takes tensors, parameters, "
                "buffers and tensor constants";
    }
    auto tensor = tensors.find(name);
    if (tensor == tensors.end())
      return emitError(fileLoc)
             << "the archive has no value for " << kind << " '" << name << "'";
    auto [it, inserted] =
        liftedByRecord.try_emplace(tensor->second.record, lifted.size());
    if (inserted)
      lifted.push_back({name, tensor->second.value, isBuffer});
    liftedArgs.emplace_back(spec[kind].at("arg").at("name"), it->second);
  }

  if (!inputTypes.empty() && inputTypes.size() != userInputs.size()) {
    auto diag = emitError(fileLoc)
                << "the program takes " << userInputs.size() << " input"
                << (userInputs.size() == 1 ? "" : "s") << " (";
    llvm::interleaveComma(userInputs, diag);
    return diag << ") but " << inputTypes.size() << " " << inputTypesOption
                << " option" << (inputTypes.size() == 1 ? " was" : "s were")
                << " given";
  }
  for (auto [index, name] : llvm::enumerate(userInputs)) {
    FailureOr<RankedTensorType> type = getUserInputType(
        name, tensorValues.at(name),
        inputTypes.empty() ? RankedTensorType() : inputTypes[index],
        inputTypesOption);
    if (failed(type))
      return failure();
    jit::Value *input = graph.addInput(name);
    input->setType(c10::TensorType::createContiguous(
        *getScalarType(type->getElementType()), at::kCPU,
        std::vector<int64_t>(type->getShape().begin(),
                             type->getShape().end())));
    values[name] = input;
    prepared.inputTypes.push_back(*type);
  }
  std::vector<jit::Value *> liftedInputs;
  for (const LiftedTensor &tensor : lifted) {
    liftedInputs.push_back(graph.addInput());
    liftedInputs.back()->setType(c10::TensorType::create(tensor.value));
  }
  for (const auto &[arg, index] : liftedArgs)
    values[arg] = liftedInputs[index];
  prepared.inputNames = std::move(userInputs);
  prepared.lifted = std::move(lifted);
  return success();
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

jit::Value *ProgramReader::lookup(const json &tensorArgument) {
  auto it = values.find(getString(tensorArgument, "name"));
  return it == values.end() ? nullptr : it->second;
}

/// A serialized float: a number, or "Infinity", "-Infinity" or "NaN".
static double getFloat(const json &value) {
  if (value.is_number())
    return value.get<double>();
  std::string text = value.get<std::string>();
  if (text == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  return llvm::StringRef(text).starts_with("-")
             ? -std::numeric_limits<double>::infinity()
             : std::numeric_limits<double>::infinity();
}

/// The value of one argument of a node, as the op's schema takes it, or
/// failure (after an error) when the importer cannot take it.
FailureOr<jit::Value *>
ProgramReader::convertArgument(const json &argument,
                               const c10::Argument &formal,
                               const std::string &opName) {
  jit::Graph &graph = *prepared.graph;
  const std::string kind = getKind(argument);
  if (kind.empty())
    return emitError(loc) << "argument '" << formal.name() << "' of '" << opName
                          << "' is not a tagged value";
  const json &value = argument.begin().value();
  auto fail = [&](llvm::StringRef why) -> FailureOr<jit::Value *> {
    return emitError(loc) << "argument '" << formal.name() << "' of '" << opName
                          << "' " << why;
  };
  auto tensorOrNone = [&](const json &entry) -> jit::Value * {
    if (entry.contains("as_tensor"))
      return lookup(entry["as_tensor"]);
    return graph.insertConstant(c10::IValue());
  };
  if (kind == "as_none")
    return graph.insertConstant(c10::IValue());
  if (kind == "as_tensor") {
    if (jit::Value *tensor = lookup(value))
      return tensor;
    return fail("names an unknown value '" + getString(value, "name") + "'");
  }
  if (kind == "as_optional_tensor")
    return tensorOrNone(value);
  if (kind == "as_tensors" || kind == "as_optional_tensors") {
    std::vector<jit::Value *> elements;
    for (const json &entry : value) {
      jit::Value *element =
          kind == "as_tensors" ? lookup(entry) : tensorOrNone(entry);
      if (!element)
        return fail("names an unknown value");
      elements.push_back(element);
    }
    c10::TypePtr elementType = kind == "as_tensors"
                                   ? c10::TensorType::get()
                                   : c10::OptionalType::ofTensor();
    return graph.insertNode(graph.createList(elementType, elements))->output();
  }
  return convertConstantArgument(kind, value, formal, opName);
}

/// The constant of an argument that is no tensor.
FailureOr<jit::Value *> ProgramReader::convertConstantArgument(
    const std::string &kind, const json &value, const c10::Argument &formal,
    const std::string &opName) {
  jit::Graph &graph = *prepared.graph;
  auto fail = [&](llvm::StringRef why) -> FailureOr<jit::Value *> {
    return emitError(loc) << "argument '" << formal.name() << "' of '" << opName
                          << "' " << why;
  };
  if (kind == "as_int" || kind == "as_sym_int") {
    json number = kind == "as_int"    ? value
                  : value.is_object() ? value.value("as_int", json())
                                      : json();
    if (!number.is_number_integer())
      return fail("is symbolic; the importer takes static shapes");
    if (formal.type()->kind() == c10::TypeKind::FloatType)
      return graph.insertConstant(number.get<double>());
    return graph.insertConstant(number.get<int64_t>());
  }
  if (kind == "as_ints" || kind == "as_sym_ints") {
    std::vector<int64_t> ints;
    for (const json &entry : value) {
      json number = kind == "as_ints"   ? entry
                    : entry.is_object() ? entry.value("as_int", json())
                                        : json();
      if (!number.is_number_integer())
        return fail("is symbolic; the importer takes static shapes");
      ints.push_back(number.get<int64_t>());
    }
    return graph.insertConstant(ints);
  }
  if (kind == "as_float")
    return graph.insertConstant(getFloat(value));
  if (kind == "as_floats") {
    std::vector<double> floats;
    for (const json &entry : value)
      floats.push_back(getFloat(entry));
    return graph.insertConstant(floats);
  }
  if (kind == "as_bool")
    return graph.insertConstant(value.get<bool>());
  if (kind == "as_bools") {
    c10::List<bool> bools;
    for (const json &entry : value)
      bools.push_back(entry.get<bool>());
    return graph.insertConstant(bools);
  }
  if (kind == "as_string")
    return graph.insertConstant(value.get<std::string>());
  if (kind == "as_scalar_type") {
    std::optional<c10::ScalarType> type =
        getSerializedType(value.get<int64_t>());
    if (!type)
      return fail("is a dtype the importer does not take");
    return graph.insertConstant(static_cast<int64_t>(*type));
  }
  if (kind == "as_layout") {
    if (value.get<int64_t>() != 7) // strided
      return fail("is a layout other than strided");
    return graph.insertConstant(static_cast<int64_t>(c10::Layout::Strided));
  }
  if (kind == "as_memory_format") {
    static const c10::MemoryFormat formats[] = {
        c10::MemoryFormat::Contiguous, c10::MemoryFormat::Contiguous,
        c10::MemoryFormat::ChannelsLast, c10::MemoryFormat::ChannelsLast3d,
        c10::MemoryFormat::Preserve};
    int64_t format = value.get<int64_t>();
    if (format < 0 || format > 4)
      return fail("is an unknown memory format");
    return graph.insertConstant(static_cast<int64_t>(formats[format]));
  }
  if (kind == "as_device")
    return graph.insertConstant(c10::Device(c10::kCPU));
  return fail("is of kind '" + kind + "', which the importer does not take");
}

/// The operator a node calls ("torch.ops.aten.add.Tensor"), or null.
static std::shared_ptr<jit::Operator> findOperator(llvm::StringRef target,
                                                   std::string &opName) {
  llvm::StringRef rest = target;
  if (!rest.consume_front("torch.ops."))
    return nullptr;
  auto [ns, nameAndOverload] = rest.split('.');
  auto [name, overload] = nameAndOverload.split('.');
  opName = (ns + "::" + name).str();
  if (overload == "default")
    overload = "";
  for (const std::shared_ptr<jit::Operator> &op :
       jit::getAllOperatorsFor(c10::Symbol::fromQualString(opName)))
    if (op->schema().overload_name() == overload)
      return op;
  return nullptr;
}

namespace {
/// One frame of a Python stack trace.
struct TraceFrame {
  std::string file;
  unsigned line = 0;
  std::string code; ///< the frame's source line (re-indented by the trace)
};
} // namespace

/// The last frame of a stack trace ("File "f.py", line 3, in forward\n
/// <code>"): where the op was called.
static std::optional<TraceFrame> getLastFrame(llvm::StringRef trace) {
  size_t frame = trace.rfind("File \"");
  if (frame == llvm::StringRef::npos)
    return std::nullopt;
  auto [file, afterFile] = trace.drop_front(frame + 6).split("\", line ");
  TraceFrame last;
  llvm::StringRef afterLine = afterFile;
  if (file.empty() || afterLine.consumeInteger(10, last.line))
    return std::nullopt;
  last.file = file.str();
  last.code = afterLine.split('\n').second.split('\n').first.str();
  return last;
}

/// Gives `node` the source line of a stack trace's last frame, as
/// TorchScript gives its nodes theirs (getNodeLocation reads it).
static void setSourceLine(jit::Node *node, const std::string &stackTrace) {
  std::optional<TraceFrame> frame = getLastFrame(stackTrace);
  if (!frame)
    return;
  // A stack trace indents its code lines anew: the column in the file is
  // not known, so the location is the line's first column.
  std::string code = frame->code.empty() ? std::string(" ") : frame->code;
  auto source = std::make_shared<jit::Source>(code, frame->file, frame->line);
  node->setSourceRange(jit::SourceRange(source, 0, code.size()));
}

/// The location of a stack trace's last frame, or `fallback`.
static Location getTraceLocation(const std::string &stackTrace,
                                 Location fallback) {
  std::optional<TraceFrame> frame = getLastFrame(stackTrace);
  if (!frame)
    return fallback;
  return FileLineColLoc::get(fallback.getContext(), frame->file, frame->line,
                             1);
}

/// The innermost module of an nn_module_stack ("L__self__,,M;L__self__fc,
/// fc,torch.nn.modules.linear.Linear"): its path, "fc".
static std::string getInnermostModule(const std::string &moduleStack) {
  llvm::StringRef last = llvm::StringRef(moduleStack).rsplit(';').second;
  if (last.empty())
    last = moduleStack;
  return last.split(',').second.split(',').first.str();
}

void ProgramReader::recordType(const std::string &name, jit::Value *value) {
  if (!tensorValues || !tensorValues->contains(name))
    return;
  const json &meta = (*tensorValues)[name];
  if (!meta.contains("dtype") || !meta["dtype"].is_number_integer())
    return;
  if (std::optional<c10::ScalarType> type =
          getSerializedType(meta["dtype"].get<int64_t>()))
    recordedTypes[value] = *type;
}

LogicalResult ProgramReader::mapOutputs(const json &node, jit::Node *created,
                                        const std::string &opName) {
  jit::Graph &graph = *prepared.graph;
  const json &outputs = node.at("outputs");
  if (outputs.size() != created->outputs().size())
    return emitError(loc) << "'" << opName << "' has "
                          << created->outputs().size()
                          << " results in its schema but the program gives "
                          << outputs.size();
  for (auto [index, output] : llvm::enumerate(outputs)) {
    jit::Value *result = created->output(index);
    const std::string kind = getKind(output);
    if (kind == "as_tensor") {
      values[output["as_tensor"].at("name")] = result;
      recordType(output["as_tensor"].at("name"), result);
    } else if (kind == "as_tensors") {
      jit::Node *unpack = graph.insertNode(
          graph.create(c10::prim::ListUnpack, {result}, output[kind].size()));
      unpack->copyMetadata(created);
      for (auto [element, tensor] :
           llvm::zip(output[kind], unpack->outputs())) {
        values[element.at("name")] = tensor;
        recordType(element.at("name"), tensor);
      }
    } else if (kind != "as_none") {
      return emitError(loc) << "'" << opName << "' returns a value of kind '"
                            << kind << "'; the importer takes tensor results";
    }
  }
  return success();
}

/// The tensor names an argument or result list entry holds: one for
/// as_tensor, each for as_tensors.
static std::vector<std::string> getTensorNames(const json &argument) {
  std::vector<std::string> names;
  if (argument.contains("as_tensor"))
    names.push_back(argument["as_tensor"].at("name"));
  else if (argument.contains("as_tensors"))
    for (const json &element : argument["as_tensors"])
      names.push_back(element.at("name"));
  return names;
}

/// A higher-order op's stack trace: its own, or (torch.export gives the
/// op none) that of the first op of its subgraph that has one.
static std::string getRegionStackTrace(const json &node) {
  auto getTrace = [](const json &of) {
    return of.contains("metadata") ? getString(of["metadata"], "stack_trace")
                                   : std::string();
  };
  std::string own = getTrace(node);
  if (!own.empty())
    return own;
  for (const json &input : node.at("inputs")) {
    const json &arg = input.at("arg");
    if (!arg.contains("as_graph"))
      continue;
    for (const json &inner : arg["as_graph"].at("graph").at("nodes")) {
      std::string trace = getTrace(inner);
      if (!trace.empty())
        return trace;
    }
  }
  return {};
}

/// wrap_with_autocast(device, dtype, enabled, cache_enabled, graph,
/// *operands): a `with torch.autocast(...)` region, its code a subgraph.
/// Its ops are inlined, the subgraph's names in a scope of their own, and
/// the types the subgraph records say where autocast converted
/// (insertFloatCasts). One that disables autocast (timm's EfficientViT
/// keeps its attention in f32 so) records the types of an f32 step.
LogicalResult ProgramReader::addAutocastRegion(const json &node) {
  const json &inputs = node.at("inputs");
  if (inputs.size() < 5 || !inputs[2].at("arg").contains("as_bool") ||
      !inputs[4].at("arg").contains("as_graph"))
    return emitError(loc) << "'wrap_with_autocast' has arguments the "
                             "importer does not know: "
                          << node.at("inputs").dump().substr(0, 200);
  const json &subgraph = inputs[4]["arg"]["as_graph"].at("graph");
  std::map<std::string, jit::Value *> inner;
  const json &formals = subgraph.at("inputs");
  if (formals.size() != inputs.size() - 5)
    return emitError(loc) << "'wrap_with_autocast' passes " << inputs.size() - 5
                          << " operands to a region of " << formals.size()
                          << " inputs";
  for (size_t i = 0; i < formals.size(); ++i) {
    std::vector<std::string> names = getTensorNames(formals[i]);
    jit::Value *operand =
        lookup(inputs[i + 5].at("arg").value("as_tensor", json()));
    if (names.size() != 1 || !operand)
      return emitError(loc) << "'wrap_with_autocast' takes tensors only, "
                               "got "
                            << inputs[i + 5].at("arg").dump().substr(0, 100);
    inner[names[0]] = operand;
  }
  std::swap(values, inner);
  const json *outerTensorValues = tensorValues;
  tensorValues = &subgraph.at("tensor_values");
  LogicalResult result = success();
  for (const json &innerNode : subgraph.at("nodes"))
    if (failed(result = addNode(innerNode)))
      break;
  tensorValues = outerTensorValues;
  std::vector<jit::Value *> results;
  for (const json &output : subgraph.at("outputs"))
    for (const std::string &name : getTensorNames(output))
      results.push_back(values.count(name) ? values[name] : nullptr);
  std::swap(values, inner);
  if (failed(result))
    return failure();
  std::vector<std::string> outputNames;
  for (const json &output : node.at("outputs"))
    for (const std::string &name : getTensorNames(output))
      outputNames.push_back(name);
  if (outputNames.size() != results.size() ||
      llvm::is_contained(results, nullptr))
    return emitError(loc) << "'wrap_with_autocast' gives " << results.size()
                          << " tensors for " << outputNames.size()
                          << " results";
  for (auto [name, value] : llvm::zip(outputNames, results))
    values[name] = value;
  return success();
}

LogicalResult ProgramReader::addNode(const json &node) {
  jit::Graph &graph = *prepared.graph;
  std::string target = node.at("target");
  if (target == "torch.ops.higher_order.wrap_with_autocast") {
    loc = getTraceLocation(getRegionStackTrace(node), fileLoc);
    return addAutocastRegion(node);
  }
  std::string opName = target;
  std::shared_ptr<jit::Operator> op = findOperator(target, opName);
  json metadata = node.contains("metadata") ? node["metadata"] : json();
  std::string stackTrace = getString(metadata, "stack_trace");
  loc = getTraceLocation(stackTrace, fileLoc);
  if (!op)
    return emitError(loc) << "unsupported op '" << target
                          << "': not an ATen operator that LibTorch knows";

  const c10::FunctionSchema &schema = op->schema();
  std::map<std::string, const json *> given;
  for (const json &input : node.at("inputs"))
    given[input.at("name")] = &input.at("arg");
  std::vector<jit::Value *> inputs;
  for (const c10::Argument &formal : schema.arguments()) {
    auto it = given.find(formal.name());
    if (it != given.end()) {
      FailureOr<jit::Value *> value =
          convertArgument(*it->second, formal, opName);
      if (failed(value))
        return failure();
      inputs.push_back(*value);
    } else if (formal.default_value()) {
      inputs.push_back(graph.insertConstant(*formal.default_value()));
    } else {
      return emitError(loc) << "'" << opName << "' is called without its "
                            << "argument '" << formal.name() << "'";
    }
  }
  jit::Node *created = graph.insertNode(graph.create(
      c10::Symbol::fromQualString(opName), inputs, schema.returns().size()));
  for (auto [result, formal] : llvm::zip(created->outputs(), schema.returns()))
    result->setType(formal.type());
  setSourceLine(created, stackTrace);
  setModulePath(created,
                getInnermostModule(getString(metadata, "nn_module_stack")));
  return mapOutputs(node, created, opName);
}

LogicalResult ProgramReader::addOutputs(const json &signature) {
  jit::Graph &graph = *prepared.graph;
  for (const json &spec : signature.at("output_specs")) {
    if (!spec.contains("user_output"))
      return emitError(fileLoc)
             << "the program has an output of kind '" << getKind(spec)
             << "'; the importer takes the training IR of "
                "torch.export.export, whose outputs are the model's own";
    const json &arg = spec["user_output"].at("arg");
    jit::Value *value =
        arg.contains("as_tensor") ? lookup(arg["as_tensor"]) : nullptr;
    if (!value)
      return emitError(fileLoc) << "the program returns '" << arg.dump()
                                << "'; an imported function returns tensors "
                                   "only";
    graph.registerOutput(value);
  }
  return success();
}

FailureOr<PreparedGraph>
ProgramReader::run(ArrayRef<RankedTensorType> inputTypes,
                   StringRef inputTypesOption) {
  std::vector<std::string> models = getModelRecords(reader);
  std::string record = models.front();
  if (models.size() > 1) {
    if (!llvm::is_contained(models, "models/model.json"))
      return emitError(fileLoc) << "the archive holds " << models.size()
                                << " programs and none is called 'model'";
    record = "models/model.json";
  }
  llvm::StringRef model = llvm::StringRef(record)
                              .drop_front(strlen("models/"))
                              .drop_back(strlen(".json"));
  FailureOr<json> program = readJson(record);
  if (failed(program))
    return failure();
  if (failed(readTensorConfig("data/weights", model)) ||
      failed(readTensorConfig("data/constants", model)))
    return failure();

  const json &graphModule = program->at("graph_module");
  const json &graphJson = graphModule.at("graph");
  const json &signature = graphModule.at("signature");
  prepared.graph = std::make_shared<jit::Graph>();
  if (failed(addInputs(signature, graphJson.at("tensor_values"), inputTypes,
                       inputTypesOption)))
    return failure();
  tensorValues = &graphJson.at("tensor_values");
  for (const json &node : graphJson.at("nodes"))
    if (failed(addNode(node)))
      return failure();
  if (failed(addOutputs(signature)))
    return failure();
  insertFloatCasts(*prepared.graph, recordedTypes);

  std::set<std::string> modelTensorNames;
  for (const LiftedTensor &lifted : prepared.lifted)
    modelTensorNames.insert(lifted.name);
  if (failed(finishPreparation(prepared, modelTensorNames, fileLoc)))
    return failure();
  return std::move(prepared);
}

FailureOr<PreparedGraph> torchscript::prepareExportedProgram(
    caffe2::serialize::PyTorchStreamReader &reader,
    ArrayRef<RankedTensorType> inputTypes, StringRef inputTypesOption,
    Location fileLoc) {
  try {
    return ProgramReader(reader, fileLoc).run(inputTypes, inputTypesOption);
  } catch (const json::exception &error) {
    return emitError(fileLoc) << "the program's JSON is not as torch.export "
                                 "writes it: "
                              << error.what();
  }
}
