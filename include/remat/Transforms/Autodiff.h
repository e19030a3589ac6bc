//===- Autodiff.h - the training step from a forward function ---*- C++ -*-===//
//
// remat-autodiff as a library call: from a forward function that returns a
// scalar loss (or logits, with loss = cross-entropy), builds the whole
// training step in the same function: forward, loss, backward through each
// op's gradient rule (GradientOpInterface), and the gradients of every
// weight as results or, with an optimizer, the updated weights and
// optimizer state.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_AUTODIFF_H
#define REMAT_TRANSFORMS_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace mlir::remat {

struct AutodiffOptions {
  /// "none": the first result is the loss, a 0-d float tensor.
  /// "cross-entropy": the first result is [N, C] logits; the loss is their
  /// cross entropy against the argument with role `label` (added, as
  /// tensor<Nxi64> named "labels", when there is none).
  std::string loss = "none";
  /// How the loss reduces over the batch's samples, which decides how
  /// accumulation scales it: "mean" (micro-steps run loss / k, so that the
  /// summed gradients are the whole batch's) or "sum" (loss as it is: k
  /// partial sums add up to the whole batch's). cross-entropy is a mean;
  /// a model that returns its own loss says which with this option.
  std::string lossReduction = "mean";
  /// "none" (gradients as results), "sgd", "adam" or "adamw" (Adam with
  /// decoupled weight decay, torch.optim.AdamW).
  std::string optimizer = "none";
  /// Learning rate; 0 takes the optimizer's default (SGD 0.01, Adam 1e-3).
  double lr = 0.0;
  double momentum = 0.0;    ///< SGD
  double weightDecay = 0.0; ///< SGD, Adam, AdamW (decoupled)
  double beta1 = 0.9;       ///< Adam
  double beta2 = 0.999;     ///< Adam
  double eps = 1e-8;        ///< Adam
  /// Where each weight's update goes. "interleaved": right after the
  /// weight's gradient is complete and the last read of its old value (so
  /// the gradient lives only until then); "end": all updates after the
  /// whole backward, in weight order.
  std::string updatePlacement = "interleaved";
  /// Gradient accumulation: k > 1 builds a step over k micro-batches. The
  /// function is the forward at the micro-batch m; the step's inputs and
  /// labels take k x m samples, and it runs k micro-steps in sequence, each
  /// on its slice of m samples (forward, loss / k for a mean loss,
  /// backward), sums their gradients, and then applies the optimizer once -
  /// PyTorch's accumulation loop. Batch norm computes its statistics per
  /// micro-batch and updates its running statistics once per micro-batch
  /// (unlike one big batch). Micro-step 0 keeps the forward's op names, micro-step
  /// i > 0 prefixes them with `micro<i>.`; each random op gets a `seed`
  /// argument `micro<i>.<seed>` per micro-step i > 0. The `loss` result is
  /// the sum of the k scaled losses. (Accumulate.cpp; docs/autodiff.md.)
  /// At most kMaxAccumulationSteps: the step holds k copies of the forward.
  int64_t accumulationSteps = 1;
};

/// The most accumulation steps differentiateFunction builds: the step holds
/// a copy of the micro-step per accumulation step, so a larger k is an IR
/// too large to plan rather than a schedule.
constexpr int64_t kMaxAccumulationSteps = 1024;

/// The first of `options`' optimizer values that the optimizer ops would
/// refuse, as `<key>=<value> <why>` (`momentum=-5 must not be negative`),
/// keys named as the pass options name them: not finite, negative, or a
/// probability (Adam's betas) not below 1. None when all are valid. Checked
/// before any work, by the pass and by the driver.
std::optional<std::string> findInvalidOptimizerValue(const AutodiffOptions &options);

/// Rewrites the forward function `function` into its training step. Its
/// results become: the loss (`loss`), the forward's other results as they
/// were (batch-norm running statistics), then per weight argument in order
/// either its gradient (`<weight>.grad`), or its update (`<weight>.new`) and
/// new optimizer state (`<state>.new`, then `step.new` for Adam). Optimizer
/// state arguments (`<weight>.momentum_buffer`, `<weight>.exp_avg`,
/// `<weight>.exp_avg_sq`, role `opt_state`; `step`, role `step`) are
/// appended. Every result that is the new value of an argument carries
/// `remat.updates` with that argument's name (the forward's results keep
/// theirs). Backward ops are named `<forward op>.<grad...>` and marked
/// `backward`, update ops `update`; they are placed as
/// `options.updatePlacement` says (names do not depend on it). Emits an error
/// and fails on a function without a scalar loss, without weights, with an op
/// between the weights and the loss that has no gradient rule, or already
/// differentiated; with accumulationSteps < 1 or > kMaxAccumulationSteps, or >
/// 1 and no input or label to slice (or inputs without a common batch
/// dimension, or k x rows not an int64_t).
LogicalResult differentiateFunction(func::FuncOp function,
                                    const AutodiffOptions &options);

} // namespace mlir::remat

#endif // REMAT_TRANSFORMS_AUTODIFF_H
