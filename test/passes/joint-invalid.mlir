// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(joint))'

/// joint differentiates a value-semantics function with aot.meta.
// expected-error@+1 {{has reference semantics: run 'functionalize' before 'joint'}}
func.func @reference(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{is differentiated but no aot.meta: run 'collect-metadata' before 'joint'}}
func.func @no_meta(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.value_semantics} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{is already a joint function}}
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> attributes {aot.joint = #aot.joint<num_forward = 1, tangents = [], grads = [], no_tangents = false>, aot.value_semantics} {
  return %x : tensor<4xf32>
}

