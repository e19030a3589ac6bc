//===- Passes.td - remat's passes ----------------------------*- tablegen -*-===//
//
// Every pass remat provides. Passes are thin: they read their options and
// call the library function that does the work.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES
#define REMAT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def RematAutodiffPass : Pass<"remat-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step (loss, backward, optimizer update) from a forward function";
  let description = [{
    Rewrites every function of the module from a forward function into a
    whole training step: with `loss=cross-entropy`, the first result (logits
    [N, C]) becomes its cross entropy against the `label` argument (added
    when missing); with `loss=none` the first result must already be a
    scalar loss. The backward pass follows, built op by op in reverse from
    each op's gradient rule (the gradient op interface), only through ops
    between a weight and the loss; a value used several times sums its
    gradients. Then, per argument with role `weight`, its gradient
    (`optimizer=none`) or its SGD or Adam update with the optimizer state as
    new arguments and results. The forward's other results (batch-norm
    running statistics) stay results. Each result that is the new value of
    an argument (updated weight, optimizer state, step, running statistic)
    carries `remat.updates = "<argument name>"`.

    With `update-placement=interleaved` (the default) each weight's update
    goes right after both its gradient is complete (its last contribution)
    and the last op that reads the weight's old value, so the gradient is
    freed early and the new weight can be written into the old one's
    buffer; Adam's step increment goes just before the first Adam update.
    Updates anchored at the same op keep the weights' order. With
    `update-placement=end` every update follows the whole backward.

    With `accumulation-steps=K` (K > 1) the function is the forward at the
    micro-batch m and the step runs K micro-steps in sequence, PyTorch's
    gradient accumulation loop: the arguments with role `input` and `label`
    take K times as many rows, micro-step i reads rows [i*m, (i+1)*m) of
    each (`nn.slice`), computes forward, loss / K (`nn.div_scalar`) and
    backward; batch-norm running statistics pass from one micro-step to the
    next, the gradients are summed in micro-step order, the `loss` result is
    the sum of the K scaled losses, and the optimizer runs once on the sums.
    Micro-step 0 keeps the op names, micro-step i > 0 prefixes them with
    `micro<i>.`; every random op gets a new `seed` argument per micro-step
    (`micro<i>.<seed>`), so no two micro-steps share a dropout mask.

    ```mlir
    // remat-autodiff{loss=cross-entropy optimizer=sgd lr=0.1 momentum=0.9}
    %loss = nn.cross_entropy %logits, %labels {remat.name = "loss", ...}
    %seed = nn.full 1.0 {remat.name = "loss.grad_seed", remat.phase = #remat.phase<backward>}
    %dlogits = nn.cross_entropy_backward %seed, %logits, %labels {remat.name = "loss.grad", ...}
    ...
    %w1, %buf1 = nn.sgd %w, %dw, %buf {remat.name = "fc.weight.sgd", remat.phase = #remat.phase<update>, ...}
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"none\"",
           "none (the first result is the loss) or cross-entropy (the first "
           "result is logits)">,
    Option<"lossReduction", "loss-reduction", "std::string",
           /*default=*/"\"mean\"",
           "How the loss reduces over the samples: mean (accumulation scales "
           "each micro-step's loss by 1/K) or sum (no scaling); "
           "cross-entropy is a mean">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"none\"",
           "none (gradients as results), sgd, adam or adamw (decoupled "
           "weight decay, torch.optim.AdamW)">,
    Option<"lr", "lr", "double", /*default=*/"0.0",
           "Learning rate (0: SGD 0.01, Adam and AdamW 0.001)">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "Weight decay of SGD, Adam and AdamW (PyTorch's AdamW "
           "defaults to 0.01: give it here)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "Adam epsilon">,
    Option<"updatePlacement", "update-placement", "std::string",
           /*default=*/"\"interleaved\"",
           "interleaved (each update right after its weight's gradient is "
           "complete and the weight's last read) or end (after the whole "
           "backward)">,
    Option<"accumulationSteps", "accumulation-steps", "int64_t",
           /*default=*/"1",
           "Gradient accumulation: the function is the forward at the "
           "micro-batch; K > 1 builds a step over K micro-batches (inputs "
           "and labels K times as many rows), summing the gradients of "
           "loss / K (a mean loss; loss itself for loss-reduction=sum) and "
           "applying the optimizer once (K at most 1024)">,
  ];
}

def RematRematerializePass : Pass<"remat-rematerialize", "::mlir::ModuleOp"> {
  let summary = "Keep or recompute activations so that the step fits a byte budget";
  let description = [{
    For every function of the module, decides which values to keep and which
    to drop and recompute so that arguments plus the planned arena fit the
    budget, at the least extra compute the solver finds, and rewrites the
    function to run that schedule: each recomputed op is cloned where it is
    recomputed, with `remat.recompute_of` naming the value it recomputes,
    later uses read the latest copy, and the body is ordered as scheduled.
    The rewritten function's peak is checked against the solver's
    prediction, and the outcome is recorded as `remat.solve` for the report.

    ```mlir
    // remat-rematerialize{budget=1MiB solver=heuristic}
    %a = nn.relu %x {remat.name = "a"} : tensor<...>
    ...
    %a2 = nn.relu %x {remat.name = "a.recompute", remat.recompute_of = "a"}
    %g = nn.relu_backward %dy, %a2 : tensor<...>
    ```

    Solvers (docs/solvers.md): `none`, `segments=K`, `sqrt`, `marks`,
    `block-checkpoints`, `chain`, `blocks`, `heuristic`, `search`, `exact`,
    and `auto`, which runs the applicable
    ones and keeps the cheapest schedule within the budget. An unmet budget is an error naming the
    smallest peak reached and the lower bound; with `strict=false` it is a
    warning and the schedule with the smallest peak is applied.

    Options (declared once, in `remat/Transforms/RematOptions.h`, and taken
    alike by `remat-pipeline`, `remat-opt` and the `remat` driver; `remat-opt
    --help` lists them with their defaults): `budget`, `solver`,
    `work-limit`, `time-limit` (seconds), `strict`, `device` (`h200`, `a100`,
    `v100`, `gtx970m`, `cpu`), `fit-arena` and `record-solve-time`.
  }];
  let statistics = [
    Statistic<"recomputedOps", "recomputed-ops", "Recomputations inserted">,
  ];
  // It records what it did as a #remat.solve attribute.
  let dependentDialects = ["::mlir::remat::RematDialect"];
}

def RematPlanMemoryPass : Pass<"remat-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every tensor of a step at a static offset in one arena";
  let description = [{
    For every function of the module (any FunctionOpInterface op), computes
    each value's lifetime by the peak-memory analysis (the body's order is the
    schedule) and packs every non-argument value and
    every op's workspace into one arena, trying greedy-by-size, best-fit,
    greedy-by-area and sweep-best-fit placement and keeping the smallest
    arena (the first three give up past a fixed amount of work on large
    steps; the sweep, O(n log n), always completes). Tensors of real
    ops are aligned to 256 bytes, the abstract values of imported graphs to 1
    byte.

    Records the arena on the function as a `remat.memory_plan` and, on each
    op with results or a workspace, their offsets as a `remat.placement`
    (the dialect verifies that every result is placed inside the arena):

    ```mlir
    func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> attributes {
        remat.memory_plan = #remat.memory_plan<arena_bytes = 512,
                                               alignment = 256>} {
      %0 = nn.relu %x {remat.placement = #remat.placement<[0]>} : tensor<64xf32>
      %1 = nn.relu %0 {remat.placement = #remat.placement<[256]>} : tensor<64xf32>
      return %1 : tensor<64xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the planned arenas">,
    Statistic<"peakBytes", "peak-bytes",
              "Peak bytes of the planned functions, arguments included">,
  ];
  // It records the plan as #remat.memory_plan and #remat.placement.
  let dependentDialects = ["::mlir::remat::RematDialect"];
}

def RematReportPass : Pass<"remat-report", "::mlir::ModuleOp"> {
  let summary = "Write the memory and cost report of each step as JSON and SVG";
  let description = [{
    Writes, for the function of the module (or each function, as a JSON
    array, when there are several), one JSON object with the keys of the
    report (docs/report.md): argument and arena bytes, the peak before and
    after rematerialization and what it is made of, the compute cost, the
    solver and its status, what was kept and recomputed, and every op with
    its FLOPs, estimated time, workspace and result offsets. The arena is the
    planner's (`remat.memory_plan`) when the function was planned, else it is
    planned here without changing the IR. `format=html` writes instead one
    self-contained HTML page with the same figures, the timeline, what was
    recomputed and a sortable table of the ops; by default the extension of
    `path` picks the format (`.html`: HTML, else JSON). `timeline` writes
    an SVG chart of live bytes over the schedule. Files are written whole
    or not at all.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"-\"",
           "File for the report ('-' for stdout, empty for none)">,
    Option<"format", "format", "std::string", /*default=*/"\"\"",
           "json or html (default: html when path ends in .html, else json)">,
    Option<"timeline", "timeline", "std::string", /*default=*/"\"\"",
           "File for the SVG timeline (none when empty)">,
    Option<"device", "device", "std::string", /*default=*/"\"h200\"",
           "Device profile of the time estimates: h200, a100, v100, "
           "gtx970m or cpu">,
    Option<"measuredProfile", "measured-profile", "std::string",
           /*default=*/"\"\"",
           "JSON file of measured op times (op name or kind -> seconds) that "
           "override the estimates">,
  ];
}

#endif // REMAT_TRANSFORMS_PASSES
