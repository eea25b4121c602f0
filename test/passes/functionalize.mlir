// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize))' | FileCheck %s --check-prefixes=CHECK,KEEP
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize{keep-input-mutations=false}))' | FileCheck %s --check-prefixes=CHECK,NOKEEP

// ===== Data mutation of inputs =====

/// The seed example: `x.mul_(2); return x + y`. x does not require grad, so
/// with keep-input-mutations the graph ends with a copy into x; without, the
/// new value of x is an extra result.
// CHECK-LABEL: func.func @mul_then_add
// CHECK-SAME:    mutation_type = "{{mutated_in_graph|mutated_out_graph}}"
// KEEP-SAME:     -> (tensor<4xf32> {aot.output_facts = #aot.facts<requires_grad = false, storage = {{[0-9]+}}, kind = "fresh"
// NOKEEP-SAME:   tensor<4xf32> {aot.mutated_input = 0}
// CHECK-SAME:    aot.value_semantics
// CHECK:         %[[M:.*]] = tensor.mul %arg0, %{{.*}} : tensor<4xf32>
// CHECK:         %[[A:.*]] = tensor.add %[[M]], %arg1 : tensor<4xf32>
// KEEP:          mut.copy_ %arg0, %[[M]] {aot.no_grad} : tensor<4xf32>
// KEEP:          return %[[A]] : tensor<4xf32>
// NOKEEP:        return %[[A]], %[[M]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NOT:     mut.mul_
func.func @mul_then_add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.constant dense<2.0> : tensor<4xf32>
  mut.mul_ %x, %c : tensor<4xf32>
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// An input that requires grad is mutated outside the graph either way.
// CHECK-LABEL: func.func @mutated_requires_grad
// CHECK-SAME:    mutates_data = true{{.*}}requires_grad = true{{.*}}mutation_type = "mutated_out_graph"
// CHECK-SAME:    {aot.mutated_input = 0}
// CHECK-NOT:     mut.
// CHECK:         return
func.func @mutated_requires_grad(%x: tensor<4xf32> {aot.requires_grad, aot.non_leaf}, %y: tensor<4xf32>) -> tensor<4xf32> {
  mut.add_ %x, %y : tensor<4xf32>
  %0 = tensor.mul %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// A write through a strided view becomes a slice_scatter into the base;
/// later reads of the view see the new value.
// CHECK-LABEL: func.func @strided_view_write
// CHECK:         %[[S:.*]] = view.slice %arg0 {dim = 0, end = 6, start = 0, step = 2}
// CHECK:         %[[N:.*]] = tensor.add %[[S]], %{{.*}} : tensor<3xf32>
// CHECK:         %[[B:.*]] = view.slice_scatter %arg0, %[[N]] {dim = 0, end = 6, start = 0, step = 2} : tensor<6xf32>, tensor<3xf32> -> tensor<6xf32>
// CHECK:         %[[R:.*]] = tensor.mul %[[N]], %[[N]]
// KEEP:          mut.copy_ %arg0, %[[B]] {aot.no_grad}
// NOKEEP:        return %[[R]], %[[B]]
func.func @strided_view_write(%x: tensor<6xf32>) -> tensor<3xf32> {
  %s = view.slice %x {dim = 0, start = 0, end = 6, step = 2} : tensor<6xf32> -> tensor<3xf32>
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  mut.add_ %s, %c : tensor<3xf32>
  %r = tensor.mul %s, %s : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// A mutated input that is also returned is `is_input`.
// CHECK-LABEL: func.func @mutated_and_returned
// CHECK-SAME:    kind = "input", is_input = 0
// CHECK:         %[[N:.*]] = tensor.sub %arg0, %arg1
// KEEP:          mut.copy_ %arg0, %[[N]]
// KEEP:          return %[[N]] :
// NOKEEP:        return %[[N]], %[[N]] :
func.func @mutated_and_returned(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  mut.sub_ %x, %y : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// ===== Hidden / no-grad mutation =====

/// `with no_grad: a.mul_(2); return a + 3`: the write is invisible to
/// autograd, so it goes through an `aot.hidden_write` scatter whose
/// gradient passes to a; the mutation stays in the graph (under no_grad).
// CHECK-LABEL: func.func @no_grad_mutation
// CHECK-SAME:    mutations_under_no_grad_or_inference_mode = true
// KEEP-SAME:     mutation_type = "mutated_in_graph"
// NOKEEP-SAME:   mutation_type = "mutated_out_graph"
// CHECK:         %[[W:.*]] = tensor.mul %arg0, %{{.*}} {aot.no_grad}
// CHECK:         %[[H:.*]] = view.as_strided_scatter %arg0, %[[W]] {aot.hidden_write, offset = 0
// CHECK:         tensor.add %[[H]], %{{.*}}
// KEEP:          mut.copy_ %arg0, %[[H]] {aot.no_grad}
func.func @no_grad_mutation(%a: tensor<4xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<4xf32> {
  %c = tensor.constant dense<2.0> : tensor<4xf32>
  mut.mul_ %a, %c {aot.no_grad} : tensor<4xf32>
  %t = tensor.constant dense<3.0> : tensor<4xf32>
  %r = tensor.add %a, %t : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

/// A write through a detached alias is hidden from autograd too.
// CHECK-LABEL: func.func @detach_mutation
// CHECK-SAME:    mutations_hidden_from_autograd = true
// CHECK:         %[[D:.*]] = view.detach %arg0
// CHECK:         %[[Z:.*]] = tensor.fill %{{.*}} {value = 0.0} : tensor<2xf32>
// CHECK:         %[[S:.*]] = view.slice_scatter %[[D]], %[[Z]]
// CHECK:         %[[H:.*]] = view.as_strided_scatter %arg0, %[[S]] {aot.hidden_write
// CHECK:         tensor.mul %[[H]], %[[H]]
func.func @detach_mutation(%a: tensor<4xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<4xf32> {
  %d = view.detach %a : tensor<4xf32>
  %s = view.slice %d {dim = 0, start = 1, end = 3} : tensor<4xf32> -> tensor<2xf32>
  mut.zero_ %s : tensor<2xf32>
  %r = tensor.mul %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

/// Mixed: a normal mutation of x, a no_grad one of y, a detached one of z.
// CHECK-LABEL: func.func @mixed_mutations
// CHECK-SAME:    %arg0: tensor<2xf32> {aot.input = #aot.input<is_leaf = false, mutates_data = true, mutates_metadata = false, mutations_hidden_from_autograd = false, mutations_under_no_grad_or_inference_mode = false
// CHECK-SAME:    %arg1: tensor<2xf32> {aot.input = #aot.input<is_leaf = false, mutates_data = true, mutates_metadata = false, mutations_hidden_from_autograd = false, mutations_under_no_grad_or_inference_mode = true
// CHECK-SAME:    %arg2: tensor<2xf32> {aot.input = #aot.input<is_leaf = false, mutates_data = true, mutates_metadata = false, mutations_hidden_from_autograd = true
// CHECK-COUNT-2: aot.hidden_write
func.func @mixed_mutations(%x: tensor<2xf32> {aot.requires_grad, aot.non_leaf}, %y: tensor<2xf32> {aot.requires_grad, aot.non_leaf}, %z: tensor<2xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<2xf32> {
  %c = tensor.constant dense<2.0> : tensor<2xf32>
  mut.mul_ %x, %c : tensor<2xf32>
  mut.mul_ %y, %c {aot.no_grad} : tensor<2xf32>
  %d = view.detach %z : tensor<2xf32>
  mut.mul_ %d, %c : tensor<2xf32>
  %0 = tensor.add %x, %y : tensor<2xf32>
  %1 = tensor.add %0, %z : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// ===== Metadata mutation =====

/// `t_` then a write through `select`: the write becomes a select_scatter
/// on the transposed value; the input's metadata change is replayed by the
/// runtime (it is mutated outside the graph with both keep values). Its new
/// data comes back in the layout it had at the call (written back before
/// the metadata changes, so no written element can be left behind).
// CHECK-LABEL: func.func @t_then_select
// CHECK-SAME:    mutates_metadata = true{{.*}}mutation_type = "mutated_out_graph", final_layout = #aot.strided<size = [3, 2], stride = [1, 3], offset = 0>, data_in_initial_layout = true
// CHECK-SAME:    is_input = 0
// CHECK:         %[[T:.*]] = view.t %arg0 : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK:         %[[F:.*]] = tensor.fill %{{.*}} {value = 7.0} : tensor<2xf32>
// CHECK:         %[[S:.*]] = view.select_scatter %[[T]], %[[F]] {dim = 0, index = 1}
// CHECK:         %[[D:.*]] = view.t %[[S]] : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK:         return %[[S]], %[[D]]
func.func @t_then_select(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 0, index = 1} : tensor<3x2xf32> -> tensor<2xf32>
  mut.fill_ %s {value = 7.0} : tensor<2xf32>
  return %t : tensor<3x2xf32>
}

// -----

/// A metadata-only mutation: no data is copied back.
// CHECK-LABEL: func.func @unsqueeze_only
// CHECK-SAME:    mutates_data = false, mutates_metadata = true
// CHECK-SAME:    final_layout = #aot.strided<size = [1, 3], stride = [3, 1], offset = 0>
// CHECK-NOT:     mut.
// CHECK:         return
func.func @unsqueeze_only(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %u = mut.unsqueeze_ %x {dim = 0} : tensor<3xf32> -> tensor<1x3xf32>
  %r = tensor.neg %u : tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// -----

/// A view output taken after an in-place view op.
// CHECK-LABEL: func.func @view_after_transpose_
// CHECK-SAME:    kind = "input", input = 0, layout = #aot.strided<size = [3], stride = [1], offset = 3>
func.func @view_after_transpose_(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %t = mut.transpose_ %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 1, index = 1} : tensor<3x2xf32> -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// ===== set_ / storage resize =====

/// `set_` under no_grad onto another input: kept in the graph as a trailing
/// set_ onto that input's storage, placed with as_strided_.
// CHECK-LABEL: func.func @set_no_grad
// CHECK-SAME:    mutates_storage_metadata = true
// KEEP-SAME:     mutation_type = "mutated_in_graph"
// NOKEEP-SAME:   mutation_type = "mutated_out_graph"
// CHECK-SAME:    set_source = 1
// KEEP:          %[[S:.*]] = mut.set_ %arg0, %arg1 {aot.no_grad}
// KEEP:          mut.as_strided_ %[[S]] {aot.no_grad, offset = 0, size = array<i64: 4>, stride = array<i64: 1>}
// NOKEEP-NOT:    mut.set_
func.func @set_no_grad(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %x2 = mut.set_ %x, %y {aot.no_grad} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %c = tensor.constant dense<1.0> : tensor<4xf32>
  %r = tensor.add %x2, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

/// A data mutation after `set_` writes the storage set_ pointed at: the
/// other input is data-mutated, this one storage-mutated.
// CHECK-LABEL: func.func @write_after_set
// CHECK-SAME:    %arg0: tensor<3xf32> {aot.input = #aot.input<is_leaf = true, mutates_data = false, mutates_metadata = true{{.*}}mutates_storage_metadata = true
// CHECK-SAME:    %arg1: tensor<3xf32> {aot.input = #aot.input<is_leaf = true, mutates_data = true, mutates_metadata = false
func.func @write_after_set(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %x2 = mut.set_ %x, %y {aot.no_grad} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %c = tensor.constant dense<5.0> : tensor<3xf32>
  mut.add_ %x2, %c : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

/// The source of an epilogue `set_` (written, so kept in the graph) has
/// its own metadata changed by its epilogue: the `set_`s run first, while
/// the source is still as the call found it (the verifier rejects a use of
/// a value after its metadata changed), then the source's copy_ and
/// as_strided_.
// CHECK-LABEL: func.func @set_source_rebound_by_epilogue
// KEEP:          %[[S:.*]] = mut.set_ %arg1, %arg0 {aot.no_grad}
// KEEP:          mut.as_strided_ %[[S]] {aot.no_grad, offset = 0, size = array<i64: 4>, stride = array<i64: 1>}
// KEEP:          mut.copy_ %arg0
// KEEP:          mut.as_strided_ %arg0 {aot.no_grad, offset = 0, size = array<i64: 4, 1>, stride = array<i64: 1, 1>}
func.func @set_source_rebound_by_epilogue(%x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<4x1xf32> {
  %y2 = mut.set_ %y, %x {aot.no_grad} : tensor<2xf32>, tensor<4xf32> -> tensor<4xf32>
  %c = tensor.constant dense<1.0> : tensor<4xf32>
  mut.add_ %x, %c {aot.no_grad} : tensor<4xf32>
  %x2 = mut.unsqueeze_ %x {dim = 1, aot.no_grad} : tensor<4xf32> -> tensor<4x1xf32>
  return %x2 : tensor<4x1xf32>
}

// -----

/// Two `set_` calls that cancel out leave the input unmutated.
// CHECK-LABEL: func.func @cancelling_set
// CHECK-SAME:    %arg0: tensor<3xf32> {aot.input = #aot.input<is_leaf = true, mutates_data = false, mutates_metadata = false{{.*}}mutation_type = "not_mutated">
// CHECK-NOT:     mut.
// CHECK:         return
func.func @cancelling_set(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %a = view.alias %x : tensor<3xf32>
  %x2 = mut.set_ %x, %y {aot.no_grad} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %x3 = mut.set_ %x2, %a {aot.no_grad} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tensor.neg %x3 : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// `resize_` growing an input: the storage grows (resized_numel) and the
/// new contents are written back.
// CHECK-LABEL: func.func @resize_grow
// CHECK-SAME:    mutates_data = true, mutates_metadata = true
// CHECK-SAME:    final_layout = #aot.strided<size = [2, 2], stride = [2, 1], offset = 0>, resized_numel = 4
func.func @resize_grow(%x: tensor<2xf32>) -> tensor<2x2xf32> {
  %r = mut.resize_ %x {size = [2, 2]} : tensor<2xf32> -> tensor<2x2xf32>
  mut.fill_ %r {value = 1.0} : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

/// `resize_` to zero elements: nothing is left to copy back.
// CHECK-LABEL: func.func @resize_to_zero
// CHECK-SAME:    mutates_data = false, mutates_metadata = true
// CHECK-SAME:    final_layout = #aot.strided<size = [0], stride = [1], offset = 0>
// CHECK-NOT:     mut.copy_
func.func @resize_to_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  %n = tensor.neg %x : tensor<3xf32>
  %r = mut.resize_ %x {size = [0]} : tensor<3xf32> -> tensor<0xf32>
  return %n : tensor<3xf32>
}

// -----

// ===== Output aliases input =====

/// `return x.view(-1), x * 2`: output 0 is a view of input 0 with a
/// replayable recipe.
// CHECK-LABEL: func.func @view_and_compute
// CHECK-SAME:    kind = "input", input = 0, views = [#aot.view<op = "view.view", attrs = {shape = [-1]}>], layout = #aot.strided<size = [6], stride = [1], offset = 0>
func.func @view_and_compute(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %v = view.view %x {shape = [-1]} : tensor<2x3xf32> -> tensor<6xf32>
  %c = tensor.constant dense<2.0> : tensor<2x3xf32>
  %m = tensor.mul %x, %c : tensor<2x3xf32>
  return %v, %m : tensor<6xf32>, tensor<2x3xf32>
}

// -----

/// A view of a mutated input is computed from the updated input.
// CHECK-LABEL: func.func @view_of_mutated
// CHECK:         %[[N:.*]] = tensor.neg %arg0
// CHECK:         %[[S:.*]] = view.slice %[[N]] {dim = 0, end = 4, start = 2}
// CHECK-SAME:    -> tensor<2xf32>
// CHECK:         return %[[S]]
func.func @view_of_mutated(%x: tensor<4xf32>) -> tensor<2xf32> {
  mut.neg_ %x : tensor<4xf32>
  %s = view.slice %x {dim = 0, start = 2, end = 4} : tensor<4xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

/// unbind outputs are multi-output views.
// CHECK-LABEL: func.func @unbind_outputs
// CHECK-SAME:    multi_output_view = true
// CHECK:         view.select %arg0 {dim = 0, index = 0}
// CHECK:         view.select %arg0 {dim = 0, index = 1}
func.func @unbind_outputs(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %u:2 = view.unbind %x : tensor<2x3xf32> -> (tensor<3xf32>, tensor<3xf32>)
  return %u#0, %u#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

/// Two inputs aliasing one storage: a write through the first is seen
/// through the second (regenerated from the first's new value).
// CHECK-LABEL: func.func @aliased_args
// CHECK:         %[[A:.*]] = tensor.add %arg0, %{{.*}} : tensor<4xf32>
// CHECK:         %[[B:.*]] = view.as_strided %[[A]] {offset = 2, size = array<i64: 2>, stride = array<i64: 1>}
// CHECK:         tensor.mul %[[B]], %[[B]]
func.func @aliased_args(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}, %b: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>}) -> tensor<2xf32> {
  %c = tensor.constant dense<1.0> : tensor<4xf32>
  mut.add_ %a, %c : tensor<4xf32>
  %r = tensor.mul %b, %b : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

/// A duplicated input (`aot.same_as`) is the same object: a write through
/// the duplicate is seen through the original.
// CHECK-LABEL: func.func @dup_mutated
// CHECK-SAME:    is_input = 0
// CHECK:         %[[N:.*]] = tensor.add %arg0, %{{.*}}
// KEEP:          mut.copy_ %arg0, %[[N]]
func.func @dup_mutated(%a: tensor<3xf32>, %b: tensor<3xf32> {aot.same_as = 0}) -> tensor<3xf32> {
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  mut.add_ %b, %c : tensor<3xf32>
  return %a : tensor<3xf32>
}

// -----

// ===== Output aliases intermediate =====

/// Two views of one intermediate: the intermediate is a candidate base.
// CHECK-LABEL: func.func @intermediate_views
// CHECK-SAME:    kind = "intermediate", base_requires_grad = true, base_result = 2
// CHECK-SAME:    {aot.intermediate_base}
// CHECK:         %[[M:.*]] = tensor.mul %arg0
// CHECK:         return %{{.*}}, %{{.*}}, %[[M]]
func.func @intermediate_views(%x: tensor<4xf32> {aot.requires_grad}) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = tensor.constant dense<2.0> : tensor<4xf32>
  %m = tensor.mul %x, %c : tensor<4xf32>
  %a = view.slice %m {dim = 0, start = 0, end = 2} : tensor<4xf32> -> tensor<2xf32>
  %b = view.slice %m {dim = 0, start = 2, end = 4} : tensor<4xf32> -> tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

/// Calls are inlined: the callee's mutation of its argument reaches ours.
// CHECK-LABEL: func.func @calls
// CHECK:         %[[N:.*]] = tensor.neg %arg0
// CHECK:         tensor.add %[[N]], %[[N]]
// KEEP:          mut.copy_ %arg0, %[[N]]
func.func private @helper(%x: tensor<3xf32>) {
  mut.neg_ %x : tensor<3xf32>
  return
}
func.func @calls(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.call @helper(%x) : (tensor<3xf32>) -> ()
  %r = tensor.add %x, %x : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// An argument whose layout reaches a storage element twice ([2, 2] with
/// strides [1, 1]) has no view inverse: the write through its column view
/// goes to the storage at that view's own layout.
// CHECK-LABEL: func.func @self_overlapping_write
// CHECK:         %[[A:.*]] = tensor.add
// CHECK:         %[[F:.*]] = tensor.full {aot.virtual_base = 0
// CHECK:         %[[B:.*]] = view.as_strided_scatter %[[F]], %arg0 {aot.split_grad, offset = 0, size = array<i64: 2, 2>, stride = array<i64: 1, 1>}
// CHECK:         view.as_strided_scatter %[[B]], %[[A]] {offset = 1, size = array<i64: 2>, stride = array<i64: 1>}
func.func @self_overlapping_write(%x: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1, 1]>}, %s: tensor<f32>) -> tensor<2x2xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 3, requires_grad = false>]} {
  %c = view.select %x {dim = 1, index = 1} : tensor<2x2xf32> -> tensor<2xf32>
  mut.add_ %c, %s : tensor<2xf32>, tensor<f32>
  return %x : tensor<2x2xf32>
}

// -----

/// A write through as_strided reaching storage elements the argument does
/// not cover: the storage is passed whole, and its final value is a result
/// of its own (aot.storage_final), last.
// CHECK-LABEL: func.func @write_beyond_argument
// CHECK-SAME:    tensor<4xf32> {aot.storage_final = 0}
// CHECK-SAME:    aot.whole_storages = array<i64: 0>
// CHECK:         %[[N:.*]] = tensor.neg
// CHECK:         return {{.*}}, %[[N]] : {{.*}}, tensor<4xf32>
func.func @write_beyond_argument(%x: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [2]>}) -> tensor<2xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 4, requires_grad = false>]} {
  %v = view.as_strided %x {size = [4], stride = [1], offset = 0} : tensor<2xf32> -> tensor<4xf32>
  mut.neg_ %v : tensor<4xf32>
  return %x : tensor<2xf32>
}

// -----

/// index_put_ whose values are the (strided) destination's own elements:
/// one put per index position, each reading the values as the earlier puts
/// left the storage (PyTorch's CPU kernel), not one put of a snapshot.
// CHECK-LABEL: func.func @index_put_values_alias_destination
// CHECK:         %[[P0:.*]] = tensor.index_put %arg0, {{.*}} {accumulate}
// CHECK:         %[[D:.*]] = view.detach %[[P0]]
// CHECK:         %[[R:.*]] = view.slice %[[D]] {dim = 0, end = 2, start = 1}
// CHECK:         tensor.index_put %[[P0]], %{{.*}}, %[[R]] {accumulate}
// CHECK-NOT:     tensor.index_put
// CHECK:         return
func.func @index_put_values_alias_destination(%x: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [4, 2]>}) -> tensor<2x2xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 8, requires_grad = false>]} {
  %d = view.detach %x : tensor<2x2xf32> -> tensor<2x2xf32>
  %i = tensor.constant dense<[1, 1]> : tensor<2xi64>
  mut.index_put_ %x, %i, %d {accumulate} : tensor<2x2xf32>, tensor<2xi64>, tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}

// -----

/// `fill_` and `zero_`: where autograd records the write, the new value keeps
/// the destination as its operand (`tensor.fill`, whose gradient for it is
/// zeros: what the destination depended on gets a zero gradient, not none);
/// under no_grad it is a plain `tensor.full`, written where autograd does
/// not see it.
// CHECK-LABEL: func.func @fill_keeps_the_history
// CHECK:         %[[M:.*]] = tensor.mul %arg0, %arg0
// CHECK:         %[[F:.*]] = tensor.fill %[[M]] {value = 2.5} : tensor<3xf32>
// CHECK:         %[[Z:.*]] = tensor.full {aot.no_grad, value = 0.0} : tensor<3xf32>
// CHECK:         %[[H:.*]] = view.as_strided_scatter %{{.*}}, %[[Z]] {aot.hidden_write
// CHECK:         return %[[F]], %[[H]]
func.func @fill_keeps_the_history(%x: tensor<3xf32> {aot.requires_grad}) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = tensor.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  mut.fill_ %m {value = 2.5} : tensor<3xf32>
  %n = tensor.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  mut.zero_ %n {aot.no_grad} : tensor<3xf32>
  return %m, %n : tensor<3xf32>, tensor<3xf32>
}

// -----

/// `copy_` over a value whose history requires grad, where autograd records
/// it: the new value is the source, and the destination stays an operand
/// (`tensor.overwrite`, whose gradient for it is zeros, as eager's
/// CopyBackwards: a NaN its derivatives multiply propagates). Over a value
/// without such a history, the source itself.
// CHECK-LABEL: func.func @copy_keeps_a_history_that_requires_grad
// CHECK:         %[[D:.*]] = tensor.div %arg0, %arg0
// CHECK:         %[[O:.*]] = tensor.overwrite %[[D]], %arg1 : tensor<3xf32>
// CHECK-NOT:     tensor.overwrite
// CHECK:         return %[[O]], %{{.*}}
func.func @copy_keeps_a_history_that_requires_grad(%x: tensor<3xf32> {aot.requires_grad}, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %d = tensor.div %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  mut.copy_ %d, %y : tensor<3xf32>, tensor<3xf32>
  %e = tensor.neg %y : tensor<3xf32>
  mut.copy_ %e, %y : tensor<3xf32>, tensor<3xf32>
  return %d, %e : tensor<3xf32>, tensor<3xf32>
}

// -----

// ===== Symbolic sizes =====

/// The same rules over symbolic sizes: a write into an argument, a write
/// through a view of it (a transpose, which covers the whole argument
/// without repeating an element for every value of s0, so the new value is
/// its inverse view), and a no_grad write into a clone (a hidden write).
// CHECK-LABEL: func.func @symbolic
// CHECK:         %[[A:.*]] = tensor.add %arg0, %arg1 : tensor<s0x4xf32>, tensor<4xf32> -> tensor<s0x4xf32>
// CHECK:         %[[T:.*]] = view.transpose %[[A]] {dim0 = 0, dim1 = 1} : tensor<s0x4xf32> -> tensor<4xs0xf32>
// CHECK:         %[[M:.*]] = tensor.mul %[[T]], %[[T]] : tensor<4xs0xf32>
// CHECK:         %[[X:.*]] = view.transpose %[[M]] {dim0 = 0, dim1 = 1} : tensor<4xs0xf32> -> tensor<s0x4xf32>
// CHECK:         %[[C:.*]] = tensor.clone %[[X]] : tensor<s0x4xf32>
// CHECK:         tensor.mul %[[C]], %arg1 {aot.no_grad}
// CHECK:         view.as_strided_scatter %[[C]], %{{.*}} {aot.hidden_write, offset = 0, size = array<i64: s0, 4>, stride = array<i64: 4, 1>}
// KEEP:          mut.copy_ %arg0, %[[X]] {aot.no_grad} : tensor<s0x4xf32>
// CHECK-NOT:     mut.add_
func.func @symbolic(%x: tensor<s0x4xf32>, %y: tensor<4xf32>) -> (tensor<s0x4xf32>, tensor<4xs0xf32>) {
  mut.add_ %x, %y : tensor<s0x4xf32>, tensor<4xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x4xf32> -> tensor<4xs0xf32>
  mut.mul_ %t, %t : tensor<4xs0xf32>, tensor<4xs0xf32>
  %c = tensor.clone %x : tensor<s0x4xf32>
  mut.mul_ %c, %y {aot.no_grad} : tensor<s0x4xf32>, tensor<4xf32>
  return %c, %t : tensor<s0x4xf32>, tensor<4xs0xf32>
}

// -----

/// An `as_strided` view of an argument of symbolic size with a layout of
/// its own, written through: inside the argument's s0·s0 elements only
/// where s0·s0 >= 7, which the function's ranges do not prove, so the
/// function assumes it as a guard (the compiled function refuses s0 = 2,
/// as eager refuses the view there). The ranges prove the second one
/// inside (s1 >= 3).
// CHECK-LABEL: func.func @symbolic_as_strided
// CHECK-SAME:    aot.guards = ["7 <= (s0*s0)"]
// CHECK:         view.as_strided_scatter
func.func @symbolic_as_strided(%x: tensor<s0xs0xf32>, %y: tensor<s1xf32>) -> (tensor<3x3xf32>, tensor<3xf32>) attributes {aot.symbols = {s1 = array<i64: 3, 64>}} {
  %v = view.as_strided %x {size = [3, 3], stride = [1, 1], offset = 2} : tensor<s0xs0xf32> -> tensor<3x3xf32>
  %d = view.diagonal %v {offset = 0, dim1 = 0, dim2 = 1} : tensor<3x3xf32> -> tensor<3xf32>
  mut.neg_ %d : tensor<3xf32>
  %w = view.as_strided %y {size = [3], stride = [1], offset = 0} : tensor<s1xf32> -> tensor<3xf32>
  return %v, %w : tensor<3x3xf32>, tensor<3xf32>
}

// -----

/// An in-place op's operand in the written-to tensor's storage, at an offset
/// of symbolic size: the ranges (s0 >= 8) prove the first four elements and
/// the last four apart at every size, so the write compiles (PyTorch's
/// overlap check passes at each of them).
// CHECK-LABEL: func.func @symbolic_operand_apart
// CHECK:         %[[A:.*]] = view.slice %arg0 {dim = 0, end = 4, start = 0}
// CHECK:         %[[B:.*]] = view.slice %arg0 {dim = 0, end = 9223372036854775807, start = -4}
// CHECK:         tensor.add %[[A]], %[[B]] : tensor<4xf32>
func.func @symbolic_operand_apart(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 8, 100>}} {
  %a = view.slice %x {dim = 0, start = 0, end = 4} : tensor<s0xf32> -> tensor<4xf32>
  %b = view.slice %x {dim = 0, start = -4, end = 9223372036854775807} : tensor<s0xf32> -> tensor<4xf32>
  mut.add_ %a, %b : tensor<4xf32>, tensor<4xf32>
  return %x : tensor<s0xf32>
}

// -----

/// An argument with symbolic sizes laid out channels-last: a dense layout,
/// in another order of its dimensions, of a storage of its own (as many
/// elements as it has). The verifier takes it; functionalize models the
/// storage as the argument's, and its write goes back through the layout.
// CHECK-LABEL: func.func @symbolic_channels_last
// CHECK-SAME:    aot.layout = #aot.layout<storage = 0, offset = 0, strides = array<i64: (s1*s1*3), 1, (s1*3), 3>>
// CHECK:         %[[T:.*]] = tensor.tanh %arg0
// KEEP:          mut.copy_ %arg0, %[[T]]
func.func @symbolic_channels_last(%x: tensor<s0x3xs1xs1xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = array<i64: (s1*s1*3), 1, (s1*3), 3>>}) -> tensor<s0x3xs1xs1xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = (s0*s1*s1*3)>]} {
  mut.tanh_ %x : tensor<s0x3xs1xs1xf32>
  return %x : tensor<s0x3xs1xs1xf32>
}
