//===- NNOpTableGen.cpp - the nn op table ---------------------------------===//
//
// Generates, from the table fields of each nn op's definition (NN_Op in
// NNBase.td), what the op needs beyond its class: its FLOP count, the CPU
// executor's ATen call, the TorchScript importer's one-to-one mapping and
// the CUDA emitter's element expression. One output holds a section per
// user, each guarded by a macro (GEN_NN_FLOP_COUNTS, GEN_NN_ATEN_KERNELS,
// GEN_NN_ATEN_IMPORTS, GEN_NN_CUDA_EXPRESSIONS). A field that the op's
// definition cannot honour (an ATen call by name for an op with attributes,
// a placeholder past its operands) is an error at build time.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <vector>

using namespace mlir;
using llvm::Record;
using llvm::RecordKeeper;
using mlir::tblgen::Operator;

namespace {
/// One nn op's table fields.
struct OpEntry {
  const Record *def;
  Operator op;
  int64_t flopsPerElement;
  StringRef atenName;
  bool atenImport;
  bool atenOutKernel;
  StringRef cudaExpression;
};
} // namespace

static void check(bool condition, const Record *def, const Twine &message) {
  if (!condition)
    llvm::PrintFatalError(def, message);
}

/// The highest operand index a formatv template names ({0}, {1}, ...), or
/// -1 if none; an error where a brace does not start "{{" or "{N}".
static int64_t getHighestPlaceholder(const Record *def, StringRef text) {
  int64_t highest = -1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{')
      continue;
    if (i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t close = text.find('}', i);
    unsigned index = 0;
    check(close != StringRef::npos &&
              !text.slice(i + 1, close).getAsInteger(10, index),
          def,
          "cudaExpression: '{' must start an operand placeholder {N} or an "
          "escaped '{{'");
    highest = std::max<int64_t>(highest, index);
    i = close;
  }
  return highest;
}

/// Reads and checks one op's table fields.
static OpEntry readEntry(const Record *def) {
  OpEntry entry{def,
                Operator(def),
                def->getValueAsInt("flopsPerElement"),
                def->getValueAsString("atenName"),
                def->getValueAsBit("atenImport"),
                def->getValueAsBit("atenOutKernel"),
                def->getValueAsString("cudaExpression")};
  const Operator &op = entry.op;
  bool oneResult = op.getNumResults() == 1 && !op.getResult(0).isVariadic();
  bool fixedOperands = op.getNumVariableLengthOperands() == 0;
  bool noAttributes = op.getNumNativeAttributes() == 0;
  check(entry.flopsPerElement >= -1, def, "flopsPerElement must be >= 0");
  check(entry.flopsPerElement < 0 || oneResult, def,
        "flopsPerElement needs exactly one result");
  if (entry.atenImport || entry.atenOutKernel) {
    check(!entry.atenName.empty(), def,
          "atenImport and atenOutKernel need an atenName");
    check(oneResult && fixedOperands && noAttributes, def,
          "an ATen call by name needs one result, a fixed number of "
          "operands and no attributes");
  } else {
    check(entry.atenName.empty(), def,
          "atenName is unused without atenImport or atenOutKernel");
  }
  if (!entry.cudaExpression.empty()) {
    check(oneResult && fixedOperands && noAttributes, def,
          "cudaExpression needs one result, a fixed number of operands and "
          "no attributes");
    check(getHighestPlaceholder(def, entry.cudaExpression) <
              op.getNumOperands(),
          def, "cudaExpression names an operand the op does not have");
  }
  return entry;
}

/// `{0}, {1}, ...` over `name[i]` for the op's operands.
static std::string getOperandList(const Operator &op, StringRef name) {
  std::vector<std::string> operands;
  for (int i = 0, e = op.getNumOperands(); i < e; ++i)
    operands.push_back(llvm::formatv("{0}[{1}]", name, i).str());
  return llvm::join(operands, ", ");
}

static void emitFlopCounts(ArrayRef<OpEntry> entries, raw_ostream &os) {
  os << "#ifdef GEN_NN_FLOP_COUNTS\n#undef GEN_NN_FLOP_COUNTS\n\n";
  for (const OpEntry &entry : entries) {
    if (entry.flopsPerElement < 0)
      continue;
    os << llvm::formatv(
        "namespace {0} {{\nint64_t {1}::getFlopCount() {{\n  return {2} * "
        "getNumElements(getOperation()->getResult(0).getType());\n}\n} // "
        "namespace {0}\n\n",
        entry.op.getCppNamespace().ltrim(':'), entry.op.getCppClassName(),
        entry.flopsPerElement);
  }
  os << "#endif // GEN_NN_FLOP_COUNTS\n\n";
}

static void emitAtenKernels(ArrayRef<OpEntry> entries, raw_ostream &os) {
  os << "#ifdef GEN_NN_ATEN_KERNELS\n#undef GEN_NN_ATEN_KERNELS\n\n"
     << "/// The result of an op that is one ATen call, at::<name>_out(result,\n"
     << "/// operands...), written into `result`; std::nullopt for the others.\n"
     << "static std::optional<at::Tensor>\n"
     << "runAtenOutKernel(::mlir::Operation *op, at::Tensor &result,\n"
     << "                 ::llvm::ArrayRef<at::Tensor> operands) {\n";
  for (const OpEntry &entry : entries) {
    if (!entry.atenOutKernel)
      continue;
    std::string operands = getOperandList(entry.op, "operands");
    os << llvm::formatv("  if (::llvm::isa<{0}>(op))\n"
                        "    return at::{1}_out(result{2}{3});\n",
                        entry.op.getQualCppClassName(), entry.atenName,
                        operands.empty() ? "" : ", ", operands);
  }
  os << "  return std::nullopt;\n}\n\n#endif // GEN_NN_ATEN_KERNELS\n\n";
}

static void emitAtenImports(ArrayRef<OpEntry> entries, raw_ostream &os) {
  os << "#ifdef GEN_NN_ATEN_IMPORTS\n#undef GEN_NN_ATEN_IMPORTS\n\n"
     << "/// An nn op that an ATen node is one to one: the node's tensor\n"
     << "/// inputs, in order, are the op's operands.\n"
     << "struct AtenOneToOneOp {\n"
     << "  ::llvm::StringLiteral kind;\n"
     << "  unsigned numInputs;\n"
     << "  ::mlir::Operation *(*create)(::mlir::OpBuilder &, ::mlir::Location,\n"
     << "                               ::llvm::ArrayRef<::mlir::Value>);\n"
     << "};\n\n"
     << "static const AtenOneToOneOp kAtenOneToOneOps[] = {\n";
  for (const OpEntry &entry : entries) {
    if (!entry.atenImport)
      continue;
    std::string operands = getOperandList(entry.op, "inputs");
    os << llvm::formatv(
        "    {{\"aten::{0}\", {1},\n"
        "     [](::mlir::OpBuilder &builder, ::mlir::Location loc,\n"
        "        ::llvm::ArrayRef<::mlir::Value> inputs) -> ::mlir::Operation "
        "* {{\n"
        "       return {2}::create(builder, loc{3}{4});\n"
        "     }},\n",
        entry.atenName, entry.op.getNumOperands(),
        entry.op.getQualCppClassName(), operands.empty() ? "" : ", ",
        operands);
  }
  os << "};\n\n#endif // GEN_NN_ATEN_IMPORTS\n\n";
}

static void emitCudaExpressions(ArrayRef<OpEntry> entries, raw_ostream &os) {
  os << "#ifdef GEN_NN_CUDA_EXPRESSIONS\n#undef GEN_NN_CUDA_EXPRESSIONS\n\n"
     << "/// The CUDA expression of an op's result element over its operands'\n"
     << "/// expressions, where its definition gives one; std::nullopt else.\n"
     << "static std::optional<std::string>\n"
     << "getTableExpression(::mlir::Operation *op,\n"
     << "                   ::llvm::ArrayRef<std::string> operands) {\n";
  for (const OpEntry &entry : entries) {
    if (entry.cudaExpression.empty())
      continue;
    std::string operands = getOperandList(entry.op, "operands");
    std::string literal;
    llvm::raw_string_ostream(literal).write_escaped(entry.cudaExpression);
    os << llvm::formatv("  if (::llvm::isa<{0}>(op))\n"
                        "    return ::llvm::formatv(\"{1}\"{2}{3}).str();\n",
                        entry.op.getQualCppClassName(), literal,
                        operands.empty() ? "" : ", ", operands);
  }
  os << "  return std::nullopt;\n}\n\n"
     << "/// Whether the op's definition gives its CUDA expression.\n"
     << "static bool hasTableExpression(::mlir::Operation *op) {\n";
  std::vector<std::string> classes;
  for (const OpEntry &entry : entries)
    if (!entry.cudaExpression.empty())
      classes.push_back(entry.op.getQualCppClassName());
  if (classes.empty())
    os << "  return false;\n";
  else
    os << "  return ::llvm::isa<" << llvm::join(classes, ",\n      ")
       << ">(op);\n";
  os << "}\n\n#endif // GEN_NN_CUDA_EXPRESSIONS\n";
}

static bool emitNNOpTable(const RecordKeeper &records, raw_ostream &os) {
  llvm::emitSourceFileHeader("The nn op table", os, records);
  std::vector<OpEntry> entries;
  for (const Record *def : records.getAllDerivedDefinitions("NN_Op"))
    entries.push_back(readEntry(def));
  emitFlopCounts(entries, os);
  emitAtenKernels(entries, os);
  emitAtenImports(entries, os);
  emitCudaExpressions(entries, os);
  return false;
}

static mlir::GenRegistration
    genNNOpTable("gen-nn-op-table",
                 "Generate the nn op table: FLOP counts, ATen kernels and "
                 "imports, CUDA expressions",
                 emitNNOpTable);
