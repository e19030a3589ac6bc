// Misspelled, misplaced or ill-typed remat.* attributes are errors.
// RUN: remat-opt %s -split-input-file -verify-diagnostics

func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown remat attribute 'remat.phaze'}}
  %0 = nn.relu %x {remat.phaze = "forward"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.phase' must be #remat.phase<forward|backward|update>}}
  %0 = nn.relu %x {remat.phase = "backwards"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The string spelling of earlier versions gets the typed one to write.
func.func @string_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.phase' must be #remat.phase<forward|backward|update>; write #remat.phase<forward> for "forward"}}
  %0 = nn.relu %x {remat.phase = "forward"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::mlir::remat::Phase to be one of: forward, backward, update}}
  // expected-error @+1 {{failed to parse Remat_PhaseAttr parameter 'value'}}
  %0 = nn.relu %x {remat.phase = #remat.phase<backwards>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @empty_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.name' must be a non-empty string}}
  %0 = nn.relu %x {remat.name = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @name_not_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.name' must be a non-empty string}}
  %0 = nn.relu %x {remat.name = 3 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.policy' must be #remat.policy<keep|recompute>}}
  %0 = nn.relu %x {remat.policy = "always"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @role_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.role' is not allowed on an op}}
  %0 = nn.relu %x {remat.role = #remat.role<input>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @empty_recompute_of(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute_of' must be a non-empty string}}
  %0 = nn.relu %x {remat.recompute_of = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'remat.role' must be #remat.role<input|label|weight|buffer|opt_state|step|seed>}}
func.func @bad_role(%x: tensor<4xf32> {remat.role = "parameter"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 1: 'remat.phase' is not allowed on a function argument}}
func.func @phase_on_argument(%x: tensor<4xf32>, %y: tensor<4xf32> {remat.phase = #remat.phase<forward>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0: 'remat.role' is not allowed on a function result}}
func.func @role_on_result(%x: tensor<4xf32>) -> (tensor<4xf32> {remat.role = #remat.role<weight>}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'remat.weights' is not allowed on a function argument}}
func.func @weights_on_argument(%x: tensor<4xf32> {remat.weights = "w"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.weights' must be a non-empty string}}
func.func @empty_weights(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.weights = ""} {
  return %x : tensor<4xf32>
}

// -----

#plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>

func.func @negative_offset(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #plan} {
  // expected-error @+1 {{'remat.placement' offsets must each be non-negative or -1 (in an argument's buffer)}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[-256]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

#plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>

func.func @offsets_per_result(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #plan} {
  // expected-error @+1 {{has 1 results but 2 offsets in 'remat.placement'}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[0, 256]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_without_plan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.placement' is only allowed on an op of the body of a function with a 'remat.memory_plan'}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[0]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

#plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>

func.func @placement_not_a_record(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #plan} {
  // expected-error @+1 {{'remat.placement' must be a #remat.placement}}
  %0 = nn.relu %x {remat.placement = array<i64: 0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.memory_plan' must be a #remat.memory_plan}}
func.func @arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = 512 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.memory_plan' alignment must be a power of two, got 96}}
func.func @alignment(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 96>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.memory_plan' arena_bytes must be non-negative, got -1}}
func.func @negative_arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = -1, alignment = 256>} {
  return %x : tensor<4xf32>
}

// -----

func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  // expected-error @+1 {{'nn.relu' op "r" has no 'remat.placement' in a function with a 'remat.memory_plan'}}
  %0 = nn.relu %x {remat.name = "r"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @beyond_arena(%x: tensor<64xf32>) -> tensor<64xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  // expected-error @+1 {{result 0 (256 bytes at offset 512) ends beyond the arena of 512 bytes}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[512]>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @unaligned(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  // expected-error @+1 {{result 0 is placed at offset 128, not a multiple of the plan's alignment 256}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[128]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @workspace_beyond_arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>} {
  // expected-error @+1 {{its workspace (0 bytes at offset 768) ends beyond the arena of 512 bytes}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[0], workspace = 768>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

#plan = #remat.memory_plan<arena_bytes = 512, alignment = 256>

func.func @negative_workspace(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #plan} {
  // expected-error @+1 {{'remat.placement' workspace offset must be non-negative, got -1}}
  %0 = nn.relu %x {remat.placement = #remat.placement<[0], workspace = -1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.memory_plan' plans a body of one block; this one has 2}}
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 0, alignment = 256>} {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}

// -----

func.func @graph_node_cost() -> tensor<4xi8> {
  // expected-error @+1 {{expects a non-negative 'cost', got -1}}
  %0 = remat.graph_node() {cost = -1.0 : f64} : () -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @graph_node_no_cost() -> tensor<4xi8> {
  // expected-error @+1 {{'remat.graph_node' op requires attribute 'cost'}}
  %0 = remat.graph_node() {remat.name = "n"} : () -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @graph_node_cost_type() -> tensor<4xi8> {
  // expected-error @+1 {{'cost' failed to satisfy constraint: 64-bit float attribute}}
  %0 = remat.graph_node() {cost = 1 : i64} : () -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @graph_node_types(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{number of operands and types do not match: got 1 operands and 2 types}}
  %0 = remat.graph_node(%a) {cost = 1.0 : f64} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @micro_step_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.micro_step' must be an i64 micro-step index of at least 1}}
  %0 = nn.relu %x {remat.name = "micro0.a", remat.micro_step = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @micro_step_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.micro_step' must be an i64 micro-step index of at least 1}}
  %0 = nn.relu %x {remat.name = "micro1.a", remat.micro_step = "1"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @micro_origin_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.micro_origin' must be a non-empty string}}
  %0 = nn.relu %x {remat.name = "micro1.a", remat.micro_step = 1 : i64, remat.micro_origin = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @micro_origin_number(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.micro_origin' must be a non-empty string}}
  %0 = nn.relu %x {remat.name = "micro1.a", remat.micro_step = 1 : i64, remat.micro_origin = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The solve record is typed: a dictionary is not one.
// expected-error @+1 {{'remat.solve' must be a #remat.solve record}}
func.func @solve_dictionary(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = {budget_bytes = 16 : i64}} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.solve' byte counts must be non-negative}}
func.func @solve_negative_budget(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = #remat.solve<budget_bytes = -1, budget_typed = "-1", peak_bytes_before = 16, compute_cost_before = 1.0 : f64, solver = "none", status = "infeasible", live_bytes_before = [16], given_positions = [], timed_out = false, fit_arena = true>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.solve' must name its solver and status}}
func.func @solve_no_solver(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = #remat.solve<budget_bytes = 16, budget_typed = "16", peak_bytes_before = 16, compute_cost_before = 1.0 : f64, solver = "", status = "feasible", live_bytes_before = [16], given_positions = [], timed_out = false, fit_arena = true>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{struct is missing required parameter: given_positions}}
func.func @solve_missing_field(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = #remat.solve<budget_bytes = 16, budget_typed = "16", peak_bytes_before = 16, compute_cost_before = 1.0 : f64, solver = "none", status = "feasible", live_bytes_before = [16], timed_out = false, fit_arena = true>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.solve' positions must be non-negative}}
func.func @solve_negative_position(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = #remat.solve<budget_bytes = 16, budget_typed = "16", peak_bytes_before = 16, compute_cost_before = 1.0 : f64, solver = "none", status = "feasible", live_bytes_before = [16], given_positions = [-2], timed_out = false, fit_arena = true>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.solve' costs and times must be non-negative}}
func.func @solve_negative_time(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.solve = #remat.solve<budget_bytes = 16, budget_typed = "16", peak_bytes_before = 16, compute_cost_before = 1.0 : f64, solver = "none", status = "feasible", live_bytes_before = [16], given_positions = [], timed_out = false, fit_arena = true, solve_seconds = -0.5 : f64>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.memory_plan' is only allowed on a function with a body}}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 0, alignment = 256>}

// -----

func.func @placed_terminator(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 0, alignment = 256>} {
  // expected-error @+1 {{'remat.placement' is only allowed on an op of the body of a function with a 'remat.memory_plan'}}
  func.return {remat.placement = #remat.placement<[]>} %x : tensor<4xf32>
}
