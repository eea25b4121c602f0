// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata))' | FileCheck %s --check-prefixes=CHECK,KEEP
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize{keep-input-mutations=false},collect-metadata))' | FileCheck %s --check-prefixes=CHECK,NOKEEP

/// The seed example in training: x requires grad, so its mutation is
/// MUTATED_OUT_GRAPH; the forward returns (new x, x + y), both take tangents.
// CHECK-LABEL: func.func @seed_train
// CHECK-SAME:    aot.meta = #aot.meta<inputs = [#aot.input<is_leaf = false, mutates_data = true, {{.*}}requires_grad = true, {{.*}}mutation_type = "mutated_out_graph", autograd_mutation = true>, #aot.input<{{.*}}mutation_type = "not_mutated">]
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = true>]
// CHECK-SAME:    num_intermediate_bases = 0
// CHECK-SAME:    traced_tangents = [0, 1], mutated_inp_runtime_indices = [0], mutated_graph_handled_indices = [], aliased_out_indices = [], num_forward_returns = 2, num_forward = 2>
// CHECK:         %[[M:.*]] = tensor.mul %arg0
// CHECK:         %[[A:.*]] = tensor.add %[[M]], %arg1
// CHECK:         return %[[M]], %[[A]]
func.func @seed_train(%x: tensor<4xf32> {aot.requires_grad, aot.non_leaf}, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.constant dense<2.0> : tensor<4xf32>
  mut.mul_ %x, %c : tensor<4xf32>
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// The seed example in inference: with keep-input-mutations the mutation is
/// MUTATED_IN_GRAPH and the graph ends with a copy.
// CHECK-LABEL: func.func @seed_inference
// KEEP-SAME:     mutation_type = "mutated_in_graph"
// KEEP-SAME:     mutated_inp_runtime_indices = [], mutated_graph_handled_indices = [0], aliased_out_indices = [], num_forward_returns = 1
// NOKEEP-SAME:   mutation_type = "mutated_out_graph"
// NOKEEP-SAME:   mutated_inp_runtime_indices = [0], mutated_graph_handled_indices = [], aliased_out_indices = [], num_forward_returns = 2
// KEEP:          mut.copy_ %arg0
// NOKEEP-NOT:    mut.copy_
func.func @seed_inference(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.constant dense<2.0> : tensor<4xf32>
  mut.mul_ %x, %c : tensor<4xf32>
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// `return x.view(-1), x * 2`: output 0 is alias_of_input with base 0.
// CHECK-LABEL: func.func @view_and_compute
// CHECK-SAME:    outputs = [#aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = true, views = [#aot.view<op = "view.view", attrs = {shape = [-1]}>], layout = #aot.strided<size = [6], stride = [1], offset = 0>>, #aot.output<output_type = "non_alias", requires_grad = true>]
// CHECK-SAME:    traced_tangents = [1]
// CHECK-SAME:    aliased_out_indices = [0]
func.func @view_and_compute(%x: tensor<2x3xf32> {aot.requires_grad}) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %v = view.view %x {shape = [-1]} : tensor<2x3xf32> -> tensor<6xf32>
  %c = tensor.constant dense<2.0> : tensor<2x3xf32>
  %m = tensor.mul %x, %c : tensor<2x3xf32>
  return %v, %m : tensor<6xf32>, tensor<2x3xf32>
}

// -----

/// Returning an input is is_input.
// CHECK-LABEL: func.func @returns_input
// CHECK-SAME:    outputs = [#aot.output<output_type = "is_input", base_idx = 1, requires_grad = false>]
func.func @returns_input(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  return %y : tensor<3xf32>
}

// -----

/// A slice with a non-zero offset keeps its offset in the recipe.
// CHECK-LABEL: func.func @offset_view
// CHECK-SAME:    output_type = "alias_of_input", base_idx = 0{{.*}}layout = #aot.strided<size = [2], stride = [1], offset = 2>
func.func @offset_view(%x: tensor<5xf32>) -> tensor<2xf32> {
  %s = view.slice %x {dim = 0, start = 2, end = 4} : tensor<5xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

/// unbind outputs that require grad: their aliasing is hidden from autograd
/// (non_alias), but they still alias input 0 at runtime.
// CHECK-LABEL: func.func @unbind_requires_grad
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = true, layout = #aot.strided<size = [3], stride = [1], offset = 0>, aliases_input = 0>, #aot.output<output_type = "non_alias", requires_grad = true, layout = #aot.strided<size = [3], stride = [1], offset = 3>, aliases_input = 0>]
func.func @unbind_requires_grad(%x: tensor<2x3xf32> {aot.requires_grad}) -> (tensor<3xf32>, tensor<3xf32>) {
  %u:2 = view.unbind %x : tensor<2x3xf32> -> (tensor<3xf32>, tensor<3xf32>)
  return %u#0, %u#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

/// One view of an intermediate, both requiring grad: unsafe_view_alias, no
/// extra output.
// CHECK-LABEL: func.func @single_intermediate_view
// CHECK-SAME:    outputs = [#aot.output<output_type = "unsafe_view_alias", requires_grad = true>]
// CHECK-SAME:    num_intermediate_bases = 0
func.func @single_intermediate_view(%x: tensor<4xf32> {aot.requires_grad}) -> tensor<2x2xf32> {
  %m = tensor.mul %x, %x : tensor<4xf32>
  %v = view.view %m {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  return %v : tensor<2x2xf32>
}

// -----

/// Three views of one intermediate: the first saves the base as an output,
/// the others reuse it; the base is appended to the forward returns.
// CHECK-LABEL: func.func @several_intermediate_views
// CHECK-SAME:    outputs = [#aot.output<output_type = "alias_of_intermediate_save_as_output", base_idx = 0,
// CHECK-SAME:    #aot.output<output_type = "alias_of_intermediate", base_idx = 0,
// CHECK-SAME:    #aot.output<output_type = "alias_of_intermediate", base_idx = 0,
// CHECK-SAME:    num_intermediate_bases = 1
// CHECK-SAME:    traced_tangents = [3]
// CHECK-SAME:    aliased_out_indices = [0, 1, 2], num_forward_returns = 4
// CHECK:         %[[M:.*]] = tensor.mul
// CHECK:         return %{{.*}}, %{{.*}}, %{{.*}}, %[[M]] :
func.func @several_intermediate_views(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<2xf32>, tensor<2xf32>, tensor<4xf32>) {
  %m = tensor.mul %x, %x : tensor<4xf32>
  %a = view.slice %m {dim = 0, start = 0, end = 2} : tensor<4xf32> -> tensor<2xf32>
  %b = view.slice %m {dim = 0, start = 2, end = 4} : tensor<4xf32> -> tensor<2xf32>
  %c = view.alias %m : tensor<4xf32>
  return %a, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<4xf32>
}

// -----

/// A view of an intermediate that is itself returned. Both are in one
/// storage in eager mode: storage_group names the first of them on each.
// CHECK-LABEL: func.func @base_is_output
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = true, storage_group = 0>, #aot.output<output_type = "alias_of_intermediate_base_is_user_output", base_idx = 0,
// CHECK-SAME:    storage_group = 0>]
// CHECK-SAME:    num_intermediate_bases = 0
func.func @base_is_output(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<2xf32>) {
  %m = tensor.mul %x, %x : tensor<4xf32>
  %a = view.slice %m {dim = 0, start = 1, end = 3} : tensor<4xf32> -> tensor<2xf32>
  return %m, %a : tensor<4xf32>, tensor<2xf32>
}

// -----

/// `(out, out.detach())`.
// CHECK-LABEL: func.func @detach_pattern
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = true, storage_group = 0>, #aot.output<output_type = "alias_of_intermediate_base_is_user_output", base_idx = 0, requires_grad = false, views = []
func.func @detach_pattern(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<4xf32>, tensor<4xf32>) {
  %m = tensor.mul %x, %x : tensor<4xf32>
  %d = view.detach %m : tensor<4xf32>
  return %m, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Views of an intermediate that does not require grad need no base output;
/// the runtime gives them eager's layout (the second starts at offset 2).
/// They share a storage in eager mode (storage_group), which compiled code,
/// like AOTAutograd, does not reproduce for them.
// CHECK-LABEL: func.func @intermediate_without_grad
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = false, storage_group = 0>, #aot.output<output_type = "non_alias", requires_grad = false, layout = #aot.strided<size = [2], stride = [1], offset = 2>, storage_group = 0>]
// CHECK-SAME:    num_intermediate_bases = 0
func.func @intermediate_without_grad(%x: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %m = tensor.mul %x, %x : tensor<4xf32>
  %a = view.slice %m {dim = 0, start = 0, end = 2} : tensor<4xf32> -> tensor<2xf32>
  %b = view.slice %m {dim = 0, start = 2, end = 4} : tensor<4xf32> -> tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

/// A metadata mutation of an input in training: replayed by the runtime.
// CHECK-LABEL: func.func @transpose_input
// CHECK-SAME:    mutates_metadata = true{{.*}}mutation_type = "mutated_out_graph", final_layout = #aot.strided<size = [3, 2], stride = [1, 3], offset = 0>
func.func @transpose_input(%x: tensor<2x3xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<3x2xf32> {
  %t = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = tensor.mul %t, %t : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

/// Two equal products are two tensors in eager mode, however value
/// semantics computes them (CSE may make them one value): a view of one
/// and the other are in different storages, so neither has a storage
/// group.
// CHECK-LABEL: func.func @equal_products
// CHECK-SAME:    outputs = [#aot.output<output_type = "non_alias", requires_grad = false>, #aot.output<output_type = "non_alias", requires_grad = false>]
func.func @equal_products(%x: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %three = tensor.full {value = 3.0} : tensor<f32>
  %t = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %a = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %u = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %a, %u : tensor<4xf32>, tensor<2x2xf32>
}

// -----

/// Symbolic sizes: an output that views an input records its layout with
/// the sizes as expressions (evaluated per call by the runtime).
// CHECK-LABEL: func.func @symbolic_alias
// CHECK-SAME:    output_type = "alias_of_input", base_idx = 0
// CHECK-SAME:    layout = #aot.strided<size = [(s0*2)], stride = [1], offset = 0>
// CHECK-SAME:    #aot.strided<size = [2, s0], stride = [1, 2], offset = 0>
func.func @symbolic_alias(%x: tensor<s0x2xf32>) -> (tensor<(s0*2)xf32>, tensor<2xs0xf32>) {
  %0 = view.reshape %x {shape = array<i64: -1>} : tensor<s0x2xf32> -> tensor<(s0*2)xf32>
  %1 = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x2xf32> -> tensor<2xs0xf32>
  return %0, %1 : tensor<(s0*2)xf32>, tensor<2xs0xf32>
}
