// Steps --emit-cuda refuses, each with a diagnostic and no output.
// RUN: remat-translate --emit-cuda --verify-diagnostics --split-input-file %s

// expected-error @+1 {{function @unplanned: has no memory plan: run remat-plan-memory (or remat-opt with --budget, whose pipeline ends with it) before --emit-cuda}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @graph(%x: tensor<4xf32>) -> tensor<4xi8> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 256, alignment = 256>} {
  // expected-error @+1 {{'remat.graph_node' op has no CUDA lowering (the CUDA lowering takes nn ops)}}
  %g = remat.graph_node() {cost = 1.0 : f64, remat.placement = #remat.placement<[0]>} : () -> tensor<4xi8>
  return %g : tensor<4xi8>
}

// -----

func.func @half(%x: tensor<4xf32>) -> tensor<4xf16> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 256, alignment = 256>} {
  // expected-error @+1 {{value 'nn.full@0' of type 'tensor<4xf16>' has no CUDA lowering (static f32 or i64 tensors only)}}
  %0 = nn.full 1.0 {remat.placement = #remat.placement<[0]>} : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @offsets(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 256, alignment = 256>} {
  // expected-error @+1 {{'nn.relu' op has no 'remat.placement' in a function with a 'remat.memory_plan'}}
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{--emit-cuda takes a module with one function with a body; this one has 2}}
module {
  func.func @a() attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 0, alignment = 256>} {
    return
  }
  func.func @b() attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 0, alignment = 256>} {
    return
  }
}

// -----

// Each thread of the runtime's attention holds a row of at most 256 floats.
func.func @attention_head_dim(%q: tensor<1x1x2x512xf32>) -> tensor<1x1x2x512xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 4608, alignment = 256>} {
  // expected-error @+1 {{'nn.attention' op has a head dimension above 256, more than the CUDA runtime's attention takes}}
  %o, %l = nn.attention %q, %q, %q {scale = 0.25 : f64, remat.placement = #remat.placement<[0, 4352]>} : (tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>) -> (tensor<1x1x2x512xf32>, tensor<1x1x2xf32>)
  return %o : tensor<1x1x2x512xf32>
}

// -----

func.func @attention_backward_head_dim(%q: tensor<1x1x2x512xf32>, %l: tensor<1x1x2xf32>) -> tensor<1x1x2x512xf32> attributes {remat.memory_plan = #remat.memory_plan<arena_bytes = 12800, alignment = 256>} {
  // expected-error @+1 {{'nn.attention_backward' op has a head dimension above 256, more than the CUDA runtime's attention takes}}
  %dq, %dk, %dv = nn.attention_backward %q, %q, %q, %q, %q, %l {scale = 0.25 : f64, remat.placement = #remat.placement<[0, 4096, 8192]>} : (tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2xf32>) -> (tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>, tensor<1x1x2x512xf32>)
  return %dq : tensor<1x1x2x512xf32>
}
