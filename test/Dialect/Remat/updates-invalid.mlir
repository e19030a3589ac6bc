// remat.updates on a function result: the new value of a state argument,
// written into that argument's buffer. Each rule of the remat dialect's
// verifier rejects hand-written IR that breaks it.
// RUN: remat-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{result 1: 'remat.updates' names 'nope', which is no argument's remat.name}}
func.func @unknown_name(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                        %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32>, tensor<4xf32> {remat.updates = "nope"}) {
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

// Inputs, labels and seeds are not state.
// expected-error @+1 {{result 0: 'remat.updates' names 'g', which is not an argument of role weight, buffer, opt_state or step}}
func.func @wrong_role(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                      %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32> {remat.updates = "g"}) {
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0: updates 'w' of type 'tensor<4xf32>' with a value of type 'tensor<8xf32>'}}
func.func @wrong_type(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                      %x: tensor<8xf32> {remat.name = "x", remat.role = #remat.role<input>})
    -> (tensor<8xf32> {remat.updates = "w"}) {
  %r = nn.relu %x {remat.name = "relu", remat.phase = #remat.phase<forward>} : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// expected-error @+1 {{result 1: updates 'w', which result 0 already updates}}
func.func @two_updates(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                       %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32> {remat.updates = "w"}, tensor<4xf32> {remat.updates = "w"}) {
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = nn.relu %g {remat.name = "relu", remat.phase = #remat.phase<forward>} : tensor<4xf32>
  return %n, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// A view has no bytes of its own to write into the argument's buffer.
// expected-error @+1 {{result 0: updates 'w' with a view; the new value must have bytes of its own to write into the argument's buffer}}
func.func @view(%w: tensor<2x2xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<2x2xf32> {remat.updates = "w"}) {
  %r = nn.relu %g {remat.name = "relu", remat.phase = #remat.phase<forward>} : tensor<4xf32>
  %v = nn.reshape %r {remat.name = "view", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<2x2xf32>
  return %v : tensor<2x2xf32>
}

// -----

// A block argument (here another argument) is no new value an op computes.
// expected-error @+1 {{result 0: updates 'w' with a value no op of the body defines; state is updated by the op that computes its new value}}
func.func @block_argument(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                          %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32> {remat.updates = "w"}) {
  return %g : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0: updates 'w' with a value also returned as result 1}}
func.func @returned_twice(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                          %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32> {remat.updates = "w"}, tensor<4xf32>) {
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %n, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

// A backward op reads the weight after the update wrote the new weight into
// its buffer: it would read the new value, not the old one.
// expected-error @+1 {{result 0: 'w' is read by 'nn.linear_backward_input' "fc.grad_input" after the op that writes its new value into its buffer}}
func.func @read_after_update(%x: tensor<2x4xf32> {remat.name = "x", remat.role = #remat.role<input>},
                             %w: tensor<3x4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> (tensor<3x4xf32> {remat.name = "w.new", remat.updates = "w"}, tensor<2x4xf32>) {
  %y = nn.linear %x, %w {remat.name = "fc", remat.phase = #remat.phase<forward>} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %dw = nn.linear_backward_weight %y, %x {remat.name = "fc.grad_weight", remat.phase = #remat.phase<backward>} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // expected-note @+1 {{the update}}
  %n = nn.sgd %w, %dw {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-note @+1 {{the read of the old value}}
  %dx = nn.linear_backward_input %y, %w {remat.name = "fc.grad_input", remat.phase = #remat.phase<backward>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %n, %dx : tensor<3x4xf32>, tensor<2x4xf32>
}

// -----

// Reading a view of the weight after the update reads the weight's buffer.
// expected-error @+1 {{result 0: 'w' is read by 'nn.relu' "late" after the op that writes its new value into its buffer}}
func.func @view_read_after_update(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                                  %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<4xf32> {remat.updates = "w"}, tensor<2x2xf32>) {
  %v = nn.reshape %w {remat.name = "view", remat.phase = #remat.phase<forward>} : tensor<4xf32> -> tensor<2x2xf32>
  // expected-note @+1 {{the update}}
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-note @+1 {{the read of the old value}}
  %r = nn.relu %v {remat.name = "late", remat.phase = #remat.phase<backward>} : tensor<2x2xf32>
  return %n, %r : tensor<4xf32>, tensor<2x2xf32>
}

// -----

// Running statistics: a batch-norm update of a buffer, then a read of the
// old buffer.
// expected-error @+1 {{result 0: 'bn.running_mean' is read by 'nn.batch_norm_update_stats' "again" after the op that writes its new value into its buffer}}
func.func @stats_read_after_update(%x: tensor<4x3xf32> {remat.name = "x", remat.role = #remat.role<input>},
                                   %m: tensor<3xf32> {remat.name = "bn.running_mean", remat.role = #remat.role<buffer>},
                                   %v: tensor<3xf32> {remat.name = "bn.running_var", remat.role = #remat.role<buffer>})
    -> (tensor<3xf32> {remat.updates = "bn.running_mean"}, tensor<3xf32>) {
  // expected-note @+1 {{the update}}
  %nm, %nv = nn.batch_norm_update_stats %x, %m, %v {remat.name = "bn.update_stats", remat.phase = #remat.phase<forward>} : tensor<4x3xf32>, tensor<3xf32>
  // expected-note @+1 {{the read of the old value}}
  %am, %av = nn.batch_norm_update_stats %x, %m, %v {remat.name = "again", remat.phase = #remat.phase<forward>} : tensor<4x3xf32>, tensor<3xf32>
  return %nm, %am : tensor<3xf32>, tensor<3xf32>
}

// -----

// Returning the old value beside its update: the caller would find the new
// value in that buffer.
// expected-error @+1 {{result 1: 'w' is returned (itself or through a view) after the op that writes its new value into its buffer}}
func.func @old_value_returned(%w: tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>},
                              %g: tensor<4xf32> {remat.name = "g", remat.role = #remat.role<input>})
    -> (tensor<2x2xf32>, tensor<4xf32> {remat.updates = "w"}) {
  %v = nn.reshape %w {remat.name = "w.view"} : tensor<4xf32> -> tensor<2x2xf32>
  // expected-note @+1 {{the update}}
  %n = nn.sgd %w, %g {lr = 0.1 : f64, remat.name = "w.sgd", remat.phase = #remat.phase<update>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %v, %n : tensor<2x2xf32>, tensor<4xf32>
}

// -----

// A declaration may say which result updates which argument.
func.func private @declared(tensor<4xf32> {remat.name = "w", remat.role = #remat.role<weight>})
    -> (tensor<4xf32> {remat.updates = "w"})

// -----

// A body whose arguments do not match the signature is the function
// verifier's to report, not a crash of the remat.updates check.
// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "mismatched",
               arg_attrs = [{remat.name = "w", remat.role = #remat.role<weight>}],
               res_attrs = [{remat.updates = "w"}]}> ({
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  "func.return"(%a) : (tensor<4xf32>) -> ()
}) : () -> ()
