// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata))' | FileCheck %s --check-prefix=BEFORE
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,dedupe))' | FileCheck %s --check-prefix=AFTER

/// f(x, x) without mutation (strategy 1): functionalize traced the
/// duplicate as its own input (x * y + y uses both arguments); dedupe gives
/// it its original's declaration and drops aot.same_as: the graph works for
/// any duplication pattern, so no runtime step is needed.
// BEFORE-LABEL: func.func @no_mutation
// BEFORE-SAME:    %arg1: tensor<4xf32> {aot.same_as = 0}
// BEFORE:         %[[M:.*]] = tensor.mul %arg0, %arg1
// BEFORE:         tensor.add %[[M]], %arg1
// AFTER-LABEL:  func.func @no_mutation
// AFTER-SAME:     (%arg0: tensor<4xf32> {aot.requires_grad}, %arg1: tensor<4xf32> {aot.requires_grad})
// AFTER-SAME:     aot.convention = #aot.convention<args = [#aot.arg<type = tensor<4xf32>, requires_grad = true>, #aot.arg<type = tensor<4xf32>, same_as = 0>], storages = []>
// AFTER-NOT:      aot.dedupe
// AFTER-SAME:     aot.meta = #aot.meta<inputs = [#aot.input<{{[^>]*}}mutation_type = "not_mutated">, #aot.input<{{[^>]*}}mutation_type = "not_mutated">]
// AFTER:          %[[M:.*]] = tensor.mul %arg0, %arg1
// AFTER:          tensor.add %[[M]], %arg1
func.func @no_mutation(%x: tensor<4xf32> {aot.requires_grad}, %y: tensor<4xf32> {aot.same_as = 0}) -> tensor<4xf32> {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  %1 = tensor.add %0, %y : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

/// (a, b, a, c) with a mutated (strategy 2): the duplicate is the same
/// object, so the graph ignores argument 2 (dupe_of = 0); dedupe removes it
/// (keep_arg_mask [T, T, F, T], add_dupe_map [0, 1, 0, 2]), drops its
/// input info and renumbers the output that views c (base 3 -> 2).
// BEFORE-LABEL: func.func @mutated
// BEFORE-SAME:    %arg2: tensor<4xf32> {aot.same_as = 0}, %arg3: tensor<4xf32>
// BEFORE-SAME:    #aot.input<{{[^>]*}}mutation_type = "mutated_in_graph">, #aot.input<{{[^>]*}}>, #aot.input<{{[^>]*}}mutation_type = "not_mutated", dupe_of = 0>, #aot.input<{{[^>]*}}>]
// BEFORE-SAME:    #aot.output<output_type = "alias_of_input", base_idx = 0,
// BEFORE-SAME:    #aot.output<output_type = "alias_of_input", base_idx = 3,
// BEFORE:         %[[A:.*]] = tensor.add %arg0, %arg1
// BEFORE:         tensor.mul %[[A]], %arg3
// AFTER-LABEL:  func.func @mutated
// AFTER-SAME:     (%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>)
// AFTER-SAME:     aot.dedupe = #aot.dedupe<keep_arg_mask = [true, true, false, true], add_dupe_map = [0, 1, 0, 2]>
// AFTER-SAME:     aot.meta = #aot.meta<inputs = [#aot.input<{{[^>]*}}mutation_type = "mutated_in_graph">, #aot.input<{{[^>]*}}>, #aot.input<{{[^>]*}}>], outputs
// AFTER-NOT:      dupe_of
// AFTER-SAME:     #aot.output<output_type = "alias_of_input", base_idx = 0,
// AFTER-SAME:     #aot.output<output_type = "alias_of_input", base_idx = 2,
// AFTER:          %[[A:.*]] = tensor.add %arg0, %arg1
// AFTER:          tensor.mul %[[A]], %arg2
// AFTER:          mut.copy_ %arg0, %[[A]] {aot.no_grad}
func.func @mutated(%a: tensor<4xf32>, %b: tensor<4xf32>, %a2: tensor<4xf32> {aot.same_as = 0}, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  mut.add_ %a, %b : tensor<4xf32>
  %v = view.view %a2 {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  %w = view.view %c {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  %0 = tensor.mul %a2, %c : tensor<4xf32>
  return %0, %v, %w : tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

/// A metadata mutation through one position is a mutation of the
/// duplicated object: strategy 2, one argument left, mutated out of graph.
// AFTER-LABEL:  func.func @metadata
// AFTER-SAME:     (%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>)
// AFTER-SAME:     aot.dedupe = #aot.dedupe<keep_arg_mask = [true, false], add_dupe_map = [0, 0]>
// AFTER-SAME:     inputs = [#aot.input<{{[^>]*}}mutates_metadata = true, {{[^>]*}}mutation_type = "mutated_out_graph", final_layout = #aot.strided<size = [3, 2], stride = [1, 3], offset = 0>>], outputs
// AFTER:          %[[T:.*]] = view.t %arg0
// AFTER:          %[[E:.*]] = tensor.exp %[[T]]
// AFTER:          return %[[T]], %[[E]]
func.func @metadata(%a: tensor<2x3xf32>, %b: tensor<2x3xf32> {aot.same_as = 0}) -> tensor<3x2xf32> {
  %a1 = mut.t_ %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.exp %a1 : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

/// Training: x requires grad and is mutated through position 0; its
/// tangent (the mutated input) is kept, the removed duplicate had none.
// BEFORE-LABEL: func.func @grad
// BEFORE-SAME:    traced_tangents = [0, 1], mutated_inp_runtime_indices = [0]
// AFTER-LABEL:  func.func @grad
// AFTER-SAME:     (%arg0: tensor<3xf32> {aot.non_leaf, aot.requires_grad}, %arg1: tensor<3xf32> {aot.requires_grad})
// AFTER-SAME:     aot.dedupe = #aot.dedupe<keep_arg_mask = [true, true, false], add_dupe_map = [0, 1, 0]>
// AFTER-SAME:     traced_tangents = [0, 1], mutated_inp_runtime_indices = [0]
// AFTER:          %[[M:.*]] = tensor.mul %arg0, %arg1
// AFTER:          %[[R:.*]] = tensor.mul %[[M]], %arg1
// AFTER:          return %[[M]], %[[R]]
func.func @grad(%a: tensor<3xf32> {aot.requires_grad, aot.non_leaf}, %w: tensor<3xf32> {aot.requires_grad}, %b: tensor<3xf32> {aot.same_as = 0}) -> tensor<3xf32> {
  mut.mul_ %a, %w : tensor<3xf32>
  %0 = tensor.mul %b, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// Without duplicates the pass does nothing (and records nothing).
// AFTER-LABEL:  func.func @none
// AFTER-NOT:      aot.convention
// AFTER-NOT:      aot.dedupe
// AFTER:          return
func.func @none(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.neg %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// Over symbolic sizes: the mutated duplicate goes (strategy 2), and its
/// original still binds s0; the convention keeps both arguments' symbolic
/// types for the guards.
// AFTER-LABEL:  func.func @symbolic_mutated_duplicate(%arg0: tensor<s0xf32>) -> tensor<s0xf32>
// AFTER-SAME:     #aot.arg<type = tensor<s0xf32>>, #aot.arg<type = tensor<s0xf32>, same_as = 0>
// AFTER:          %[[M:.*]] = tensor.mul %arg0, %arg0 : tensor<s0xf32>
// AFTER:          tensor.add %[[M]], %[[M]] : tensor<s0xf32>
func.func @symbolic_mutated_duplicate(%x: tensor<s0xf32>, %y: tensor<s0xf32> {aot.same_as = 0}) -> tensor<s0xf32> {
  mut.mul_ %x, %x : tensor<s0xf32>, tensor<s0xf32>
  %0 = tensor.add %x, %y : tensor<s0xf32>
  return %0 : tensor<s0xf32>
}
