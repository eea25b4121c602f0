// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata))' | FileCheck %s --check-prefix=BEFORE
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,dedupe,synthetic-base))' | FileCheck %s
/// Two overlapping views of one storage without a differentiable base, one
/// mutated: one base argument (1-D over the storage) replaces both; the
/// members are as_strided views of it, the write goes back with
/// as_strided_scatter, and the base's mutation stays in the graph.
// BEFORE-LABEL: func.func @two_aliased
// BEFORE-SAME:    (%arg0: tensor<4xf32> {aot.layout = {{.*}}}, %arg1: tensor<4xf32> {aot.layout = {{.*}}})
// BEFORE-SAME:    inputs = [#aot.input<{{[^>]*}}mutates_data = true, {{[^>]*}}mutation_type = "mutated_in_graph">, #aot.input<{{[^>]*}}mutates_data = true, {{[^>]*}}mutation_type = "mutated_in_graph">]
// CHECK-LABEL:  func.func @two_aliased
// CHECK-SAME:     (%arg0: tensor<6xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:     inputs = [#aot.input<{{[^>]*}}mutates_data = true, mutates_metadata = false, {{[^>]*}}mutation_type = "mutated_in_graph">]
// CHECK-SAME:     aot.synthetic_base = #aot.synthetic_base<args = [#aot.member<base = 0, layout = #aot.strided<size = [4], stride = [1], offset = 0>>, #aot.member<base = 0, layout = #aot.strided<size = [4], stride = [1], offset = 2>>], bases = [#aot.base<storage = 0, numel = 6, requires_grad = false>], metadata_mutated = []>
// CHECK:          %[[A:.*]] = view.as_strided %arg0 {offset = 0, size = array<i64: 4>, stride = array<i64: 1>}
// CHECK:          %[[NEW:.*]] = tensor.add %[[A]]
// CHECK:          %[[B1:.*]] = view.as_strided_scatter %arg0, %[[NEW]] {offset = 0, size = array<i64: 4>, stride = array<i64: 1>}
// CHECK:          %[[B:.*]] = view.as_strided %[[B1]] {offset = 2, size = array<i64: 4>, stride = array<i64: 1>}
// CHECK:          tensor.mul %[[B]], %[[B]]
// CHECK:          mut.copy_ %arg0, %[[B1]] {aot.no_grad} : tensor<6xf32>
// CHECK-NEXT:     return
func.func @two_aliased(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                       %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>})
    -> (tensor<4xf32>, tensor<4xf32>) attributes {aot.storages = [#aot.storage<id = 0, numel = 6, requires_grad = false>]} {
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %a, %one : tensor<4xf32>, tensor<f32>
  %0 = tensor.mul %a, %a : tensor<4xf32>
  %1 = tensor.mul %b, %b : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Views of a differentiable base, mutated with a value that requires
/// grad: the base requires grad and its new value is a mutated-input result
/// (mutated outside the graph); the argument that was not aliased follows.
// CHECK-LABEL:  func.func @differentiable
// CHECK-SAME:     (%arg0: tensor<6xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>, aot.requires_grad}, %arg1: tensor<2x2xf32> {aot.requires_grad}) -> (tensor<6xf32>, tensor<3xf32>)
// CHECK-SAME:     inputs = [#aot.input<is_leaf = false, mutates_data = true, {{[^>]*}}requires_grad = true, {{[^>]*}}mutation_type = "mutated_out_graph", autograd_mutation = true>, #aot.input<{{[^>]*}}>]
// CHECK-SAME:     traced_tangents = [0, 1], mutated_inp_runtime_indices = [0]
// CHECK-SAME:     args = [#aot.member<base = 0, {{.*}}, requires_grad = true>, #aot.member<base = 0, {{.*}}, requires_grad = true>, 1], bases = [#aot.base<storage = 0, numel = 6, requires_grad = true>]
// CHECK:          %[[A:.*]] = view.as_strided %arg0 {offset = 0, size = array<i64: 2, 2>, stride = array<i64: 3, 1>}
// CHECK:          %[[M:.*]] = tensor.mul %[[A]], %arg1
// CHECK:          %[[F:.*]] = view.as_strided_scatter %arg0, %[[M]]
// CHECK:          %[[B:.*]] = view.as_strided %[[F]] {offset = 1, size = array<i64: 3>, stride = array<i64: 2>}
// CHECK:          %[[E:.*]] = tensor.exp %[[B]]
// CHECK:          return %[[F]], %[[E]]
func.func @differentiable(%a: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>},
                          %b: tensor<3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [2]>},
                          %w: tensor<2x2xf32> {aot.requires_grad})
    -> tensor<3xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 6, requires_grad = true>]} {
  mut.mul_ %a, %w : tensor<2x2xf32>
  %0 = tensor.exp %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// f(a, c.view(-1), b.view(-1), b, c, d): two storages, each mutated
/// through one view. Calling convention [c's base, b's base, a, d]: bases in
/// order of first appearance, then the other arguments.
// CHECK-LABEL:  func.func @groups
// CHECK-SAME:     (%arg0: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, {{.*}}>}, %arg1: tensor<6xf32> {aot.layout = #aot.layout<storage = 1, {{.*}}>}, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>)
// CHECK-SAME:     aot.synthetic_base = #aot.synthetic_base<args = [2, #aot.member<base = 0, {{[^>]*}}>>, #aot.member<base = 1, {{[^>]*}}>>, #aot.member<base = 1, {{[^>]*}}>>, #aot.member<base = 0, {{[^>]*}}>>, 3], bases = [#aot.base<storage = 0, numel = 4, requires_grad = false>, #aot.base<storage = 1, numel = 6, requires_grad = false>]
// CHECK:          %[[C:.*]] = tensor.add %arg0, %arg0
// CHECK:          %[[B:.*]] = view.as_strided_scatter %arg1
// CHECK:          tensor.mul %arg2, %arg3
// CHECK:          mut.copy_ %arg0, %[[C]] {aot.no_grad} : tensor<4xf32>
// CHECK:          mut.copy_ %arg1, %[[B]] {aot.no_grad} : tensor<6xf32>
func.func @groups(%a: tensor<2xf32>,
                  %c1: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                  %b1: tensor<6xf32> {aot.layout = #aot.layout<storage = 1, offset = 0, strides = [1]>},
                  %b: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 1, offset = 0, strides = [3, 1]>},
                  %c: tensor<2x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [2, 1]>},
                  %d: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>) {
  mut.add_ %c1, %c1 : tensor<4xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<2x3xf32>, tensor<f32>
  %0 = tensor.mul %a, %d : tensor<2xf32>
  %1 = tensor.sin %c : tensor<2x2xf32>
  %2 = view.view %b1 {shape = [2, 3]} : tensor<6xf32> -> tensor<2x3xf32>
  %3 = tensor.add %2, %b : tensor<2x3xf32>
  return %1, %3, %0 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>
}

// -----

/// test_input_mutation_false_aliasing: interleaved column halves of a 4x4
/// share a storage but no element; both are mutated, yet no synthetic base
/// is needed and the graph is the one for independent inputs.
// CHECK-LABEL:  func.func @false_aliasing
// CHECK-SAME:     (%arg0: tensor<4x2xf32> {aot.layout = {{.*}}}, %arg1: tensor<4x2xf32> {aot.layout = {{.*}}})
// CHECK-NOT:      aot.synthetic_base
// CHECK-NOT:      as_strided
// CHECK:          %[[A:.*]] = tensor.mul %arg0
// CHECK:          %[[B:.*]] = tensor.mul %arg1
// CHECK:          tensor.add %[[A]], %[[B]]
// CHECK:          mut.copy_ %arg0, %[[A]]
// CHECK:          mut.copy_ %arg1, %[[B]]
func.func @false_aliasing(%a: tensor<4x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [4, 1]>},
                          %b: tensor<4x2xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [4, 1]>}) -> tensor<4x2xf32> {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<4x2xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<4x2xf32>, tensor<f32>
  %0 = tensor.add %a, %b : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

/// The overlapping layout of test_input_mutation_false_aliasing: (4,4)
/// views with row stride 9 at offsets 0 and 24 share elements, so both
/// writes go through one base, as upstream's graph does.
// CHECK-LABEL:  func.func @overlapping
// CHECK-SAME:     (%arg0: tensor<55xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> tensor<4x4xf32>
// CHECK:          %[[A:.*]] = view.as_strided %arg0 {offset = 0, size = array<i64: 4, 4>, stride = array<i64: 9, 1>}
// CHECK:          %[[A2:.*]] = tensor.mul %[[A]]
// CHECK:          %[[S1:.*]] = view.as_strided_scatter %arg0, %[[A2]] {offset = 0,
// CHECK:          %[[B:.*]] = view.as_strided %[[S1]] {offset = 24,
// CHECK:          %[[B2:.*]] = tensor.mul %[[B]]
// CHECK:          %[[S2:.*]] = view.as_strided_scatter %[[S1]], %[[B2]] {offset = 24,
// CHECK:          %[[A3:.*]] = view.as_strided %[[S2]] {offset = 0,
// CHECK:          tensor.add %[[A3]], %[[B2]]
// CHECK:          mut.copy_ %arg0, %[[S2]] {aot.no_grad}
func.func @overlapping(%a: tensor<4x4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [9, 1]>},
                       %b: tensor<4x4xf32> {aot.layout = #aot.layout<storage = 0, offset = 24, strides = [9, 1]>}) -> tensor<4x4xf32> {
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<4x4xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<4x4xf32>, tensor<f32>
  %0 = tensor.add %a, %b : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

/// A metadata-only mutation of an aliased input never needs a base.
// CHECK-LABEL:  func.func @metadata_only
// CHECK-SAME:     (%arg0: tensor<2x3xf32> {aot.layout = {{.*}}}, %arg1: tensor<6xf32> {aot.layout = {{.*}}})
// CHECK-NOT:      aot.synthetic_base
// CHECK:          view.t %arg0
func.func @metadata_only(%a: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>},
                         %b: tensor<6xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> (tensor<3x2xf32>, tensor<6xf32>) {
  %t = mut.t_ %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.neg %t : tensor<3x2xf32>
  %1 = tensor.exp %b : tensor<6xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<6xf32>
}

// -----

/// b is transposed in place and overlaps a, which is written: b's new
/// layout comes back as an extra alias_of_input output of the base
/// (metadata_mutated = [1]) that the runtime applies with as_strided_; b,
/// returned as itself, becomes an alias of the base with its final layout.
// CHECK-LABEL:  func.func @metadata_and_data
// CHECK-SAME:     (%arg0: tensor<7xf32> {{.*}}) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>)
// CHECK-SAME:     outputs = [#aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = false, layout = #aot.strided<size = [3, 2], stride = [1, 3], offset = 1>>, #aot.output<output_type = "non_alias", requires_grad = false>, #aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = false, layout = #aot.strided<size = [3, 2], stride = [1, 3], offset = 1>>]
// CHECK-SAME:     metadata_mutated = [1]
// CHECK:          %[[S:.*]] = view.as_strided_scatter %arg0
// CHECK:          %[[B:.*]] = view.as_strided %[[S]] {offset = 1, size = array<i64: 2, 3>, stride = array<i64: 3, 1>}
// CHECK:          %[[T:.*]] = view.t %[[B]]
// CHECK:          %[[M:.*]] = view.as_strided %[[S]] {offset = 1, size = array<i64: 3, 2>, stride = array<i64: 1, 3>}
// CHECK:          mut.copy_ %arg0, %[[S]]
// CHECK:          return %[[T]], %{{.*}}, %[[M]]
func.func @metadata_and_data(%a: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [3, 1]>},
                             %b: tensor<2x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [3, 1]>}) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %bt = mut.t_ %b : tensor<2x3xf32> -> tensor<3x2xf32>
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<2x3xf32>, tensor<f32>
  %0 = tensor.add %a, %a : tensor<2x3xf32>
  return %bt, %0 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

/// pytorch issue 198095: a view output of an aliased input at a non-zero
/// offset. Its recipe is relative to the real base: a's as_strided (offset
/// 2) followed by the slice, landing at storage offset 3.
// CHECK-LABEL:  func.func @view_output_offset
// CHECK-SAME:     outputs = [#aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = false, views = [#aot.view<op = "view.as_strided", attrs = {offset = 2, size = array<i64: 6>, stride = array<i64: 1>}>, #aot.view<op = "view.slice", attrs = {dim = 0, end = 3, start = 1}>], layout = #aot.strided<size = [2], stride = [1], offset = 3>>, #aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = false, layout = #aot.strided<size = [6], stride = [1], offset = 0>>]
func.func @view_output_offset(%a: tensor<6xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [1]>},
                              %b: tensor<6xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                              %w: tensor<6xf32>) -> (tensor<2xf32>, tensor<6xf32>)
    attributes {aot.storages = [#aot.storage<id = 0, numel = 8, requires_grad = false>]} {
  mut.mul_ %b, %w : tensor<6xf32>
  %s = view.slice %a {dim = 0, start = 1, end = 3} : tensor<6xf32> -> tensor<2xf32>
  return %s, %b : tensor<2xf32>, tensor<6xf32>
}

// -----

/// as_strided reads storage elements that no argument covers (element 2):
/// functionalize records the storage as read whole, and the base passes it
/// whole even though nothing is mutated; the read is the base itself.
// BEFORE-LABEL: func.func @reads_whole_storage
// BEFORE-SAME:    aot.whole_storages = array<i64: 0>
// CHECK-LABEL:  func.func @reads_whole_storage
// CHECK-SAME:     (%arg0: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> tensor<4xf32>
// CHECK-NOT:      aot.whole_storages
// CHECK-SAME:     inputs = [#aot.input<{{[^>]*}}mutates_data = false, {{[^>]*}}mutation_type = "not_mutated">]
// CHECK-SAME:     args = [#aot.member<base = 0, layout = #aot.strided<size = [2], stride = [1], offset = 0>>, #aot.member<base = 0, layout = #aot.strided<size = [1], stride = [1], offset = 3>>], bases = [#aot.base<storage = 0, numel = 4, requires_grad = false>]
// CHECK-NEXT:     tensor.neg %arg0 : tensor<4xf32>
func.func @reads_whole_storage(%a: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                               %b: tensor<1xf32> {aot.layout = #aot.layout<storage = 0, offset = 3, strides = [1]>}) -> tensor<4xf32>
    attributes {aot.storages = [#aot.storage<id = 0, numel = 4, requires_grad = false>]} {
  %v = view.as_strided %a {size = [4], stride = [1], offset = 0} : tensor<2xf32> -> tensor<4xf32>
  %0 = tensor.neg %v : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// A storage passed whole that the graph writes beyond its argument: the
/// base's final value is functionalize's own (its aot.storage_final
/// result, consumed here), so the write to elements 1 and 3 is kept.
// BEFORE-LABEL: func.func @write_beyond_argument
// BEFORE-SAME:    tensor<4xf32> {aot.storage_final = 0}
// CHECK-LABEL: func.func @write_beyond_argument
// CHECK-SAME:    (%arg0: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>}) -> tensor<2xf32>
// CHECK:         %[[N:.*]] = tensor.neg %arg0 : tensor<4xf32>
// CHECK:         mut.copy_ %arg0, %[[N]] {aot.no_grad} : tensor<4xf32>
// CHECK-NOT:     aot.storage_final
func.func @write_beyond_argument(%x: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [2]>}) -> tensor<2xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 4, requires_grad = false>]} {
  %v = view.as_strided %x {size = [4], stride = [1], offset = 0} : tensor<2xf32> -> tensor<4xf32>
  mut.neg_ %v : tensor<4xf32>
  return %x : tensor<2xf32>
}

// -----

/// A member that reaches storage elements twice (strides [2, 1]) beside a
/// written member and an untouched one: its write-back into the base shares
/// its gradient among its positions (aot.split_grad), so that the base's
/// gradient counts each of its elements once.
// CHECK-LABEL: func.func @self_overlapping_member_written_back
// CHECK:         view.as_strided_scatter {{.*}} {aot.split_grad, offset = 1, size = array<i64: 3, 3>, stride = array<i64: 2, 1>}
func.func @self_overlapping_member_written_back(
    %x: tensor<3x3xf32> {aot.layout = #aot.layout<storage = 0, offset = 1, strides = [2, 1]>},
    %z: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 12, strides = [2]>},
    %y: tensor<2xf32> {aot.layout = #aot.layout<storage = 0, offset = 6, strides = [3]>})
    -> tensor<3x3xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 20, requires_grad = true>]} {
  mut.neg_ %y : tensor<2xf32>
  return %x : tensor<3x3xf32>
}
