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


// -----

/// A traced backward (aot.traced_backward) is checked against the forward.
// expected-error@+1 {{names the traced backward '@missing', which the module does not define}}
func.func @no_such_backward(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.value_semantics, aot.meta = #aot.meta<inputs = [#aot.input<is_leaf = true, mutates_data = false, mutates_metadata = false, mutations_hidden_from_autograd = false, mutations_under_no_grad_or_inference_mode = false, mutation_inductor_storage_resize = false, mutates_storage_metadata = false, requires_grad = true, keep_input_mutations = true, mutation_type = "not_mutated">], outputs = [#aot.output<output_type = "non_alias", requires_grad = true>], num_intermediate_bases = 0, keep_input_mutations = true, traced_tangents = [0]>, aot.traced_backward = #aot.traced_backward<function = "missing", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
