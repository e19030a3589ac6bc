//===- ConvertEinsum.cpp - einsum as permutes, reshapes and matmuls -------===//
//
// `aten::einsum(equation, tensors, path)` becomes ops the nn dialect already
// differentiates, costs and lowers: the operands are folded left to right,
// two at a time, each pair as one batched nn.matmul between nn.permute and
// nn.reshape (labels in both operands and still needed are its batch,
// labels in both and no longer needed its contraction), with nn.sum over
// the labels only one operand has and nothing needs; a last nn.permute puts
// the labels in the output's order. Identity permutes and reshapes are not
// created.
//
// Subscripts are letters (case matters) and one `...` per term, the
// equation may have spaces and may leave out `->` (then the output is the
// ellipsis, then the labels that appear once, in PyTorch's order: A-Z before
// a-z). A label repeated within one term (a diagonal) and a label whose
// sizes differ between operands (broadcasting) are diagnostics. The
// contraction path argument is a hint for the order and is not read.
//
//===----------------------------------------------------------------------===//

#include "NodeConverter.h"

#include "remat/Dialect/NN/IR/NNOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::remat;
using namespace mlir::remat::torchscript;
using Node = torch::jit::Node;

namespace {
/// Labels 0-25 are A-Z, 26-51 a-z (PyTorch's order), 52 on the ellipsis'
/// dimensions, right-aligned across operands.
using Label = int64_t;
constexpr Label kFirstEllipsisLabel = 52;

/// A tensor with one label per dimension.
struct Labeled {
  Value value;
  SmallVector<Label> labels;
};

/// The equation's terms, split and checked against the operands' ranks.
struct Equation {
  SmallVector<SmallVector<Label>> operands;
  SmallVector<Label> output;
};

std::optional<Label> getLetterLabel(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return 26 + (c - 'a');
  return std::nullopt;
}

std::string getLabelName(Label label) {
  if (label >= kFirstEllipsisLabel)
    return "...";
  return std::string(1,
                     label < 26 ? char('A' + label) : char('a' + label - 26));
}

/// One term's letters, and where its ellipsis stands among them (-1: none).
struct Term {
  SmallVector<Label> letters;
  int64_t ellipsisAt = -1;
};

/// Parses `text` (spaces removed) as one term; the error names what is
/// wrong.
FailureOr<Term> parseTerm(llvm::StringRef text, std::string &error) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i).starts_with("...")) {
      if (term.ellipsisAt >= 0) {
        error = llvm::formatv("'{0}' has more than one '...'", text).str();
        return failure();
      }
      term.ellipsisAt = term.letters.size();
      i += 2;
      continue;
    }
    std::optional<Label> label = getLetterLabel(text[i]);
    if (!label) {
      error = llvm::formatv("'{0}' is not a subscript (letters a-z, A-Z and "
                            "one '...' per term)",
                            text[i])
                  .str();
      return failure();
    }
    if (llvm::is_contained(term.letters, *label)) {
      error = llvm::formatv("'{0}' appears twice in one term (a diagonal), "
                            "which is not supported",
                            getLabelName(*label))
                  .str();
      return failure();
    }
    term.letters.push_back(*label);
  }
  return term;
}

/// A term's labels for a tensor of `rank`, its ellipsis covering the last
/// `rank - letters` of `ellipsisRank` ellipsis labels.
SmallVector<Label> expandTerm(const Term &term, int64_t rank,
                              int64_t ellipsisRank) {
  SmallVector<Label> labels(term.letters);
  if (term.ellipsisAt < 0)
    return labels;
  int64_t own = rank - term.letters.size();
  SmallVector<Label> ellipsis;
  for (int64_t k = 0; k < own; ++k)
    ellipsis.push_back(kFirstEllipsisLabel + ellipsisRank - own + k);
  labels.insert(labels.begin() + term.ellipsisAt, ellipsis.begin(),
                ellipsis.end());
  return labels;
}

/// The output PyTorch infers without `->`: the ellipsis, then the letters
/// that appear exactly once, in label order.
SmallVector<Label>
getImplicitOutput(const SmallVector<SmallVector<Label>> &operands,
                  int64_t ellipsisRank) {
  SmallVector<Label> output;
  for (int64_t k = 0; k < ellipsisRank; ++k)
    output.push_back(kFirstEllipsisLabel + k);
  std::map<Label, int> counts;
  for (const SmallVector<Label> &labels : operands)
    for (Label label : labels)
      if (label < kFirstEllipsisLabel)
        ++counts[label];
  for (auto [label, count] : counts)
    if (count == 1)
      output.push_back(label);
  return output;
}

FailureOr<Equation> parseEquation(std::string text, ArrayRef<int64_t> ranks,
                                  std::string &error) {
  llvm::erase(text, ' ');
  llvm::StringRef equation(text);
  auto [inputs, output] = equation.split("->");
  bool hasArrow = equation.contains("->");
  SmallVector<llvm::StringRef> termTexts;
  inputs.split(termTexts, ',');
  if (termTexts.size() != ranks.size()) {
    error = std::to_string(termTexts.size()) + " operand terms for " +
            std::to_string(ranks.size()) + " tensors";
    return failure();
  }
  SmallVector<Term> terms;
  int64_t ellipsisRank = 0;
  for (auto [termText, rank] : llvm::zip_equal(termTexts, ranks)) {
    FailureOr<Term> term = parseTerm(termText, error);
    if (failed(term))
      return failure();
    int64_t letters = term->letters.size();
    if (letters > rank || (term->ellipsisAt < 0 && letters != rank)) {
      error = llvm::formatv("'{0}' has {1} subscripts for a tensor of rank {2}",
                            termText, letters, rank)
                  .str();
      return failure();
    }
    if (term->ellipsisAt >= 0)
      ellipsisRank = std::max(ellipsisRank, rank - letters);
    terms.push_back(std::move(*term));
  }
  Equation result;
  for (auto [term, rank] : llvm::zip_equal(terms, ranks))
    result.operands.push_back(expandTerm(term, rank, ellipsisRank));
  if (!hasArrow) {
    result.output = getImplicitOutput(result.operands, ellipsisRank);
    return result;
  }
  FailureOr<Term> outputTerm = parseTerm(output, error);
  if (failed(outputTerm))
    return failure();
  result.output =
      expandTerm(*outputTerm,
                 outputTerm->letters.size() +
                     (outputTerm->ellipsisAt >= 0 ? ellipsisRank : 0),
                 ellipsisRank);
  for (Label label : result.output)
    if (!llvm::any_of(result.operands, [&](const SmallVector<Label> &labels) {
          return llvm::is_contained(labels, label);
        })) {
      error = "output subscript '" + getLabelName(label) + "' is in no operand";
      return failure();
    }
  return result;
}
} // namespace

namespace {
/// Creates an einsum's ops; `sizes` holds each label's size.
class EinsumBuilder {
public:
  EinsumBuilder(OpBuilder &builder, Location loc,
                llvm::function_ref<Value(Operation *)> record,
                const std::map<Label, int64_t> &sizes)
      : builder(builder), loc(loc), record(record), sizes(sizes) {}

  /// `operand` with its dimensions in the order of `labels`.
  Labeled permute(Labeled operand, ArrayRef<Label> labels) {
    if (ArrayRef<Label>(operand.labels) == labels)
      return operand;
    SmallVector<int64_t> dims;
    for (Label label : labels)
      dims.push_back(llvm::find(operand.labels, label) -
                     operand.labels.begin());
    Value value = record(nn::PermuteOp::create(
        builder, loc, getType(operand.value, getShape(labels)), operand.value,
        dims));
    return {value, SmallVector<Label>(labels)};
  }

  /// `operand` summed over every label not in `keep`.
  Labeled sumExcept(Labeled operand, llvm::function_ref<bool(Label)> keep) {
    SmallVector<int64_t> dims;
    SmallVector<Label> kept;
    for (auto [dim, label] : llvm::enumerate(operand.labels)) {
      if (keep(label))
        kept.push_back(label);
      else
        dims.push_back(dim);
    }
    if (dims.empty())
      return operand;
    Value value = record(
        nn::SumOp::create(builder, loc, getType(operand.value, getShape(kept)),
                          operand.value, dims, /*keepdim=*/false));
    return {value, kept};
  }

  Value reshape(Value value, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() == shape)
      return value;
    return record(
        nn::ReshapeOp::create(builder, loc, getType(value, shape), value));
  }

  /// The product of `lhs` and `rhs` over their shared labels that `needed`
  /// rejects; shared labels it accepts are batch labels.
  Labeled multiply(Labeled lhs, Labeled rhs,
                   llvm::function_ref<bool(Label)> needed) {
    auto inRhs = [&](Label l) { return llvm::is_contained(rhs.labels, l); };
    auto inLhs = [&](Label l) { return llvm::is_contained(lhs.labels, l); };
    lhs = sumExcept(lhs, [&](Label l) { return needed(l) || inRhs(l); });
    rhs = sumExcept(rhs, [&](Label l) { return needed(l) || inLhs(l); });
    SmallVector<Label> batch, contracted, lhsOnly, rhsOnly;
    for (Label label : lhs.labels) {
      if (!inRhs(label))
        lhsOnly.push_back(label);
      else if (needed(label))
        batch.push_back(label);
      else
        contracted.push_back(label);
    }
    for (Label label : rhs.labels)
      if (!inLhs(label))
        rhsOnly.push_back(label);
    lhs = permute(
        lhs, llvm::to_vector(llvm::concat<Label>(batch, lhsOnly, contracted)));
    rhs = permute(
        rhs, llvm::to_vector(llvm::concat<Label>(batch, contracted, rhsOnly)));
    SmallVector<int64_t> batchShape = getShape(batch);
    int64_t m = getProduct(lhsOnly), k = getProduct(contracted),
            n = getProduct(rhsOnly);
    Value lhsMatrix = reshape(lhs.value, concatShape(batchShape, {m, k}));
    Value rhsMatrix = reshape(rhs.value, concatShape(batchShape, {k, n}));
    Value product = record(nn::MatmulOp::create(
        builder, loc, getType(lhs.value, concatShape(batchShape, {m, n})),
        lhsMatrix, rhsMatrix));
    SmallVector<Label> labels =
        llvm::to_vector(llvm::concat<Label>(batch, lhsOnly, rhsOnly));
    return {reshape(product, getShape(labels)), labels};
  }

private:
  SmallVector<int64_t> getShape(ArrayRef<Label> labels) const {
    return llvm::map_to_vector(labels, [&](Label l) { return sizes.at(l); });
  }
  int64_t getProduct(ArrayRef<Label> labels) const {
    int64_t product = 1;
    for (Label label : labels)
      product *= sizes.at(label);
    return product;
  }
  static SmallVector<int64_t> concatShape(ArrayRef<int64_t> front,
                                          ArrayRef<int64_t> back) {
    return llvm::to_vector(llvm::concat<const int64_t>(front, back));
  }
  static RankedTensorType getType(Value like, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(
        shape, cast<RankedTensorType>(like.getType()).getElementType());
  }

  OpBuilder &builder;
  Location loc;
  llvm::function_ref<Value(Operation *)> record;
  const std::map<Label, int64_t> &sizes;
};
} // namespace

LogicalResult NodeConverter::convertEinsum(Node *node) {
  FailureOr<std::string> text = getString(node, 0);
  FailureOr<SmallVector<Value>> tensors = getTensorList(node, 1);
  FailureOr<RankedTensorType> type = getResultType(node);
  if (failed(text) || failed(tensors) || failed(type))
    return failure();
  SmallVector<int64_t> ranks = llvm::map_to_vector(*tensors, [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  });
  std::string error;
  FailureOr<Equation> equation = parseEquation(*text, ranks, error);
  if (failed(equation) || tensors->empty())
    return emitInputError(node, 0)
           << "'" << *text << "': "
           << (tensors->empty() ? "einsum needs at least one tensor" : error);
  // Each label's size, the same in every operand.
  std::map<Label, int64_t> sizes;
  for (auto [value, labels] : llvm::zip_equal(*tensors, equation->operands)) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    for (auto [label, size] : llvm::zip_equal(labels, shape)) {
      auto [it, inserted] = sizes.try_emplace(label, size);
      if (!inserted && it->second != size)
        return emitInputError(node, 0)
               << "'" << *text << "': '" << getLabelName(label) << "' is "
               << it->second << " in one operand and " << size
               << " in another (broadcasting is not supported)";
    }
  }
  auto recordOp = [&](Operation *op) { return record(node, op); };
  EinsumBuilder einsum(builder, loc, recordOp, sizes);
  Labeled result{(*tensors)[0], equation->operands[0]};
  for (size_t i = 1; i < tensors->size(); ++i) {
    // A label is still needed by the output or a later operand.
    auto needed = [&](Label label) {
      if (llvm::is_contained(equation->output, label))
        return true;
      for (size_t j = i + 1; j < tensors->size(); ++j)
        if (llvm::is_contained(equation->operands[j], label))
          return true;
      return false;
    };
    result =
        einsum.multiply(result, {(*tensors)[i], equation->operands[i]}, needed);
  }
  result = einsum.sumExcept(result, [&](Label label) {
    return llvm::is_contained(equation->output, label);
  });
  result = einsum.permute(result, equation->output);
  if (result.value.getType() != *type)
    return emitNodeError(node) << "computes " << result.value.getType()
                               << " where the graph has " << *type;
  map(node->output(0), result.value);
  return success();
}
