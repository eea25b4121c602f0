// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint))'

/// The traced backward must take a tangent for every output that takes one.
// expected-error@+1 {{traced backward '@bw' takes no tangent for forward return 1, which takes one}}
func.func @missing_tangent(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<4xf32>) attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  %1 = tensor.sin %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  return %g : tensor<4xf32>
}

// -----

/// A gradient for every primal that requires grad.
// expected-error@+1 {{traced backward '@bw' gives no gradient for argument 1, which requires grad}}
func.func @missing_grad(%x: tensor<4xf32> {aot.requires_grad}, %y: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %y: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %g, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Types line up with the primals.
// expected-error@+1 {{traced backward '@bw': argument 0 is not of the primal's type}}
func.func @wrong_type(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<3xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  return %g : tensor<4xf32>
}

// -----

/// It is pure: a write would be out of place in value semantics.
func.func @writes(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'mut.add_' in a traced backward: it must be pure}}
  mut.add_ %g, %x : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

/// It must be private: a public function is a program of its own.
// expected-error@+1 {{traced backward '@bw' must be a private function with a body}}
func.func @public(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  return %g : tensor<4xf32>
}

// -----

/// A random op of the backward that names no draw of the forward would
/// draw again.
func.func @random(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'rng.uniform' in a traced backward draws again: it must name a draw of the forward (aot.draw)}}
  %r = rng.uniform : tensor<4xf32>
  %0 = tensor.mul %g, %r : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Nor one whose tag is not the forward's.
func.func @other_draw(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %d:2 = rng.dropout %x {p = 0.5, aot.draw = "0.0"} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return %d#0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'rng.dropout' in a traced backward draws again: it must name a draw of the forward (aot.draw)}}
  %d:2 = rng.dropout %x {p = 0.5, aot.draw = "1.0"} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  %0 = tensor.where %d#1, %g, %g : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Nor one whose results are not the tagged draw's.
func.func @mismatched_draw(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.traced_backward = #aot.traced_backward<function = "bw", tangents = [0], grads = [0], unreached = []>} {
  %r = rng.uniform {aot.draw = "0.0"} : tensor<4xf32>
  %0 = tensor.mul %x, %r : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @bw(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'rng.uniform' in a traced backward does not match the forward's draw it names}}
  %r = rng.uniform {aot.draw = "0.0"} : tensor<8xf32>
  %s = view.slice %r {dim = 0, start = 0, end = 4} : tensor<8xf32> -> tensor<4xf32>
  %0 = tensor.mul %g, %s : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// aot.meta is read with its indices checked (fuzz: a traced tangent past
/// the forward returns indexed out of bounds in joint).
// expected-error@+1 {{'traced_tangents' must name distinct forward returns (0 to 1), got [3]}}
func.func @tangent_out_of_range(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.value_semantics, aot.meta = #aot.meta<inputs = [#aot.input<is_leaf = true, mutates_data = false, mutates_metadata = false, mutations_hidden_from_autograd = false, mutations_under_no_grad_or_inference_mode = false, mutation_inductor_storage_resize = false, mutates_storage_metadata = false, requires_grad = true, keep_input_mutations = true, mutation_type = "not_mutated">], outputs = [#aot.output<output_type = "non_alias", requires_grad = true>], num_intermediate_bases = 0, keep_input_mutations = true, traced_tangents = [3]>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{'num_intermediate_bases' must be a count, got -1}}
func.func @negative_bases(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<4xf32> attributes {aot.value_semantics, aot.meta = #aot.meta<inputs = [#aot.input<is_leaf = true, mutates_data = false, mutates_metadata = false, mutations_hidden_from_autograd = false, mutations_under_no_grad_or_inference_mode = false, mutation_inductor_storage_resize = false, mutates_storage_metadata = false, requires_grad = true, keep_input_mutations = true, mutation_type = "not_mutated">], outputs = [#aot.output<output_type = "non_alias", requires_grad = true>], num_intermediate_bases = -1, keep_input_mutations = true, traced_tangents = [0]>} {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
