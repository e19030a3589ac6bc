//===- API.h - remat as a library: the public entry points -------*- C++ -*-===//
//
// Everything another compiler needs to add rematerialization to its own
// pipeline, in one include. Link Remat::RematInitAll (which brings the rest).
//
// Registration:
//   registerRematDialects(registry)   the nn and remat dialects
//   registerAllDialects(registry)     + func, arith, cf, tensor, linalg and
//                                       the cost models of the upstream ones
//   registerUpstreamCostModels(registry)  only the cost models, for a
//                                       registry that already has arith,
//                                       tensor and linalg
//   registerRematPasses()             the passes and remat-pipeline{...}
//
// Pipelines:
//   buildRematPipeline(pm, options)   rematerialize under options.budget,
//                                       then plan memory
//   createRematRematerializePass(options), createRematPlanMemoryPass(),
//   createRematReportPass(options)    the passes one by one
//
// Library entry points behind the passes, on any FunctionOpInterface whose
// ops implement CostOpInterface (nn, or arith/tensor/linalg through the
// external models):
//   extractRematProblem(function, costModel)      the IR-free problem
//   planRematerialization(function, problem, options)  a schedule
//   applySchedule(function, problem, schedule)    rewrite the IR
//   rematerializeFunction(function, costModel, options)  all of the above
//   PeakMemory::analyze(function), planMemory(analysis),
//   annotateMemoryPlan(function, analysis, plan)  memory analysis and plan
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_API_H
#define REMAT_API_H

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/MemoryPlan.h"
#include "remat/Analysis/PeakMemory.h"
#include "remat/InitAll.h"
#include "remat/Interfaces/UpstreamCostModels.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/PlanMemory.h"
#include "remat/Transforms/Rematerialize.h"

#endif // REMAT_API_H
