//===- Passes.td - remat's passes ----------------------------*- tablegen -*-===//
//
// Every pass remat provides. Passes are thin: they read their options and
// call the library function that does the work.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES
#define REMAT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def RematPlanMemoryPass : Pass<"remat-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every tensor of a step at a static offset in one arena";
  let description = [{
    For every function of the module (any FunctionOpInterface op), computes
    each value's lifetime by the peak-memory analysis (the body's order is the
    schedule) and packs every non-argument value and
    every op's workspace into one arena, trying greedy-by-size, best-fit and
    greedy-by-area placement and keeping the smallest arena. Tensors of real
    ops are aligned to 256 bytes, the abstract values of imported graphs to 1
    byte.

    Records each op's result offsets as `remat.offsets`, its workspace offset
    as `remat.workspace_offset`, and the arena size on the function as
    `remat.arena_bytes`:

    ```mlir
    func.func @f(%x: tensor<64xf32>) -> tensor<64xf32>
        attributes {remat.arena_bytes = 512 : i64} {
      %0 = nn.relu %x {remat.offsets = array<i64: 0>} : tensor<64xf32>
      %1 = nn.relu %0 {remat.offsets = array<i64: 256>} : tensor<64xf32>
      return %1 : tensor<64xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the planned arenas">,
    Statistic<"peakBytes", "peak-bytes",
              "Peak bytes of the planned functions, arguments included">,
  ];
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
    planner's (`remat.arena_bytes`) when the function was planned, else it is
    planned here without changing the IR. `timeline` writes an SVG chart of
    live bytes over the schedule. Files are written whole or not at all.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"-\"",
           "File for the JSON report ('-' for stdout, empty for none)">,
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
