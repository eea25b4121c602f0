// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s

/// Writing back an unchanged view of the base is the base.
// CHECK-LABEL: func.func @scatter_of_own_view
// CHECK-NEXT:    return %arg0
func.func @scatter_of_own_view(%b: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {aot.value_semantics} {
  %v = view.slice %b {dim = 1, start = 1, end = 3} : tensor<4x6xf32> -> tensor<4x2xf32>
  %s = view.slice_scatter %b, %v {dim = 1, start = 1, end = 3} : tensor<4x6xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

// -----

/// Reading back the region just written gives the written value.
// CHECK-LABEL: func.func @view_of_scatter
// CHECK-NEXT:    return %arg1
func.func @view_of_scatter(%b: tensor<4x6xf32>, %r: tensor<6xf32>) -> tensor<6xf32> attributes {aot.value_semantics} {
  %s = view.select_scatter %b, %r {dim = 0, index = 2} : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %v = view.select %s {dim = 0, index = 2} : tensor<4x6xf32> -> tensor<6xf32>
  return %v : tensor<6xf32>
}

// -----

/// Reading back an `as_strided` region that reaches an element twice is not
/// the value written there (each element holds its last position's write):
/// no fold. A region with distinct elements folds.
// CHECK-LABEL: func.func @view_of_self_overlapping_scatter
// CHECK:         %[[S:.*]] = view.as_strided_scatter %arg0, %arg1
// CHECK:         %[[V:.*]] = view.as_strided %[[S]]
// CHECK:         return %[[V]], %arg2
func.func @view_of_self_overlapping_scatter(%b: tensor<6xf32>, %r: tensor<2x2xf32>, %q: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) attributes {aot.value_semantics} {
  %s = view.as_strided_scatter %b, %r {size = [2, 2], stride = [1, 1], offset = 0} : tensor<6xf32>, tensor<2x2xf32> -> tensor<6xf32>
  %v = view.as_strided %s {size = [2, 2], stride = [1, 1], offset = 0} : tensor<6xf32> -> tensor<2x2xf32>
  %t = view.as_strided_scatter %b, %q {size = [2, 2], stride = [2, 1], offset = 1} : tensor<6xf32>, tensor<2x2xf32> -> tensor<6xf32>
  %w = view.as_strided %t {size = [2, 2], stride = [2, 1], offset = 1} : tensor<6xf32> -> tensor<2x2xf32>
  return %v, %w : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

/// Identity views vanish; transposes cancel; reshape chains become one reshape.
// CHECK-LABEL: func.func @identity_views
// CHECK-NEXT:    %[[R:.*]] = view.reshape %arg0 {shape = array<i64: 3, 4>} : tensor<2x6xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    return %arg0, %arg0, %[[R]]
func.func @identity_views(%x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<3x4xf32>) attributes {aot.value_semantics} {
  %a = view.alias %x : tensor<2x6xf32>
  %t = view.transpose %a {dim0 = 0, dim1 = 1} : tensor<2x6xf32> -> tensor<6x2xf32>
  %tt = view.transpose %t {dim0 = 0, dim1 = 1} : tensor<6x2xf32> -> tensor<2x6xf32>
  %f = view.view %x {shape = [12]} : tensor<2x6xf32> -> tensor<12xf32>
  %g = view.reshape %f {shape = [3, 4]} : tensor<12xf32> -> tensor<3x4xf32>
  %s = view.slice %x {dim = 1, start = 0, end = 6} : tensor<2x6xf32> -> tensor<2x6xf32>
  return %tt, %s, %g : tensor<2x6xf32>, tensor<2x6xf32>, tensor<3x4xf32>
}

// -----

/// A whole-base scatter is its source, unless it is a hidden write.
// CHECK-LABEL: func.func @whole_scatter
// CHECK:         %[[H:.*]] = view.as_strided_scatter %arg0, %arg1 {aot.hidden_write
// CHECK-NEXT:    return %arg1, %[[H]]
func.func @whole_scatter(%b: tensor<2x2xf32>, %s: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) attributes {aot.value_semantics} {
  %x = view.as_strided_scatter %b, %s {size = [2, 2], stride = [2, 1], offset = 0} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %h = view.as_strided_scatter %b, %s {size = [2, 2], stride = [2, 1], offset = 0, aot.hidden_write} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %x, %h : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

/// Under reference semantics nothing changes: views are distinct objects.
// CHECK-LABEL: func.func @reference_semantics
// CHECK-NEXT:    view.alias
// CHECK-NEXT:    view.transpose
func.func @reference_semantics(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %a = view.alias %x : tensor<2x3xf32>
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %a, %t : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

/// Same-type casts vanish; a detach is kept (it stops gradients).
// CHECK-LABEL: func.func @cast_and_detach
// CHECK-NEXT:    %[[D:.*]] = view.detach %arg0
// CHECK-NEXT:    return %arg0, %[[D]]
func.func @cast_and_detach(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {aot.value_semantics} {
  %c = tensor.cast %x : tensor<3xf32> -> tensor<3xf32>
  %d = view.detach %x : tensor<3xf32>
  return %c, %d : tensor<3xf32>, tensor<3xf32>
}

// -----

/// An identity view of an argument that a trailing set_ consumes is not
/// folded into the argument: after the set_ the argument's value is dead.
// CHECK-LABEL: func.func @identity_view_of_set_arg
// CHECK:         %[[T:.*]] = view.t %arg0
// CHECK:         mut.set_ %arg0, %arg1
// CHECK:         return %[[T]]
func.func @identity_view_of_set_arg(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> attributes {aot.value_semantics} {
  %t = view.t %a : tensor<2xf32> -> tensor<2xf32>
  %s = mut.set_ %a, %b {aot.no_grad} : tensor<2xf32>
  return %t : tensor<2xf32>
}

// -----

/// Writing back a detached view of the base keeps the data but not the
/// gradient (the written elements' gradient stops at the detach): no fold.
// CHECK-LABEL: func.func @scatter_of_detached_own_view
// CHECK:         %[[V:.*]] = view.as_strided %arg0
// CHECK:         %[[D:.*]] = view.detach %[[V]]
// CHECK:         %[[S:.*]] = view.as_strided_scatter %arg0, %[[D]]
// CHECK:         return %[[S]]
func.func @scatter_of_detached_own_view(%b: tensor<10xf32>) -> tensor<10xf32> attributes {aot.value_semantics} {
  %v = view.as_strided %b {offset = 1, size = [4, 2], stride = [2, 1]} : tensor<10xf32> -> tensor<4x2xf32>
  %d = view.detach %v : tensor<4x2xf32>
  %s = view.as_strided_scatter %b, %d {offset = 1, size = [4, 2], stride = [2, 1]} : tensor<10xf32>, tensor<4x2xf32> -> tensor<10xf32>
  return %s : tensor<10xf32>
}
