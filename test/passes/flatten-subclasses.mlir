// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(flatten-subclasses))' | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(flatten-subclasses))' | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(flatten-subclasses,functionalize,collect-metadata))' | FileCheck %s --check-prefix=META

/// A TwoTensor argument becomes its two inner tensors; an op with a
/// subclass operand runs once per component, in order (a, then b); views
/// stay views per component; the plan says where each user argument and
/// result lives among the dense ones. The dense argument read by the
/// components is replicated, one copy per component after the other
/// arguments (%arg3, %arg4), so that each component's use has a gradient
/// of its own (PyTorch's subclass gradient of a dense argument).
// CHECK-LABEL: func.func @two_tensor
// CHECK-SAME: (%arg0: tensor<2x3xf32> {aot.requires_grad}, %arg1: tensor<2x3xf32> {aot.requires_grad}, %arg2: tensor<2x3xf32>, %arg3: tensor<2x3xf32>, %arg4: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<f32>)
// CHECK-SAME: aot.subclass_plan = #aot.subclass_plan<inputs = [#aot.subclass_meta<class = "TwoTensor", start = 0, count = 2, type = tensor<2x3xf32>, inner = [#aot.subclass_meta<class = "", start = 0, count = 1, type = tensor<2x3xf32>, inner = []>, #aot.subclass_meta<class = "", start = 1, count = 1, type = tensor<2x3xf32>, inner = []>]>, #aot.subclass_meta<class = "", start = 2, count = 1, type = tensor<2x3xf32>, inner = []>]
// CHECK-SAME: outputs = [#aot.subclass_meta<class = "TwoTensor", start = 0, count = 2, type = tensor<3x2xf32>, inner = [{{.*}}]>, #aot.subclass_meta<class = "", start = 2, count = 1, type = tensor<f32>, inner = []>]
// CHECK-SAME: replicas = [#aot.subclass_replica<arg = 1, creation = #aot.subclass_meta<class = "TwoTensor", start = 3, count = 2
// CHECK-SAME: shared_with_components = []>
// CHECK-NEXT: %[[MA:.*]] = tensor.mul %arg0, %arg3 : tensor<2x3xf32>
// CHECK-NEXT: %[[MB:.*]] = tensor.mul %arg1, %arg4 : tensor<2x3xf32>
// CHECK-NEXT: %[[TA:.*]] = view.transpose %[[MA]] {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[TB:.*]] = view.transpose %[[MB]] {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.sub %[[TA]], %[[TB]] : tensor<3x2xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.sum %[[D]]
// CHECK-NEXT: return %[[TA]], %[[TB]], %[[S]] : tensor<3x2xf32>, tensor<3x2xf32>, tensor<f32>
// META-LABEL: func.func @two_tensor
// META-SAME: outputs = [#aot.output<output_type = "unsafe_view_alias"{{.*}}>, #aot.output<output_type = "unsafe_view_alias"{{.*}}>, #aot.output<output_type = "non_alias"
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @two_tensor(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>> {aot.requires_grad}, %y: tensor<2x3xf32>) -> (!aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<f32>) {
  %0 = tensor.mul %x, %y : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  %1 = view.transpose %0 {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoTensor, tensor<2x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %a, %b = aot.subclass_unwrap %1 : !aot.subclass<@TwoTensor, tensor<3x2xf32>> -> (tensor<3x2xf32>, tensor<3x2xf32>)
  %d = tensor.sub %a, %b : tensor<3x2xf32>
  %s = tensor.sum %d {dims = [0, 1]} : tensor<3x2xf32> -> tensor<f32>
  return %1, %s : !aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<f32>
}

// -----

/// A nested class flattens recursively (three leaves) and its constant
/// metadata is in the plan; wrap concatenates its operands' leaves.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME: inputs = [#aot.subclass_meta<class = "TwoTensor", start = 0, count = 2, type = tensor<4xf32>, inner = [#aot.subclass_meta<class = "", start = 0, count = 1, type = tensor<4xf32>, inner = []>, #aot.subclass_meta<class = "", start = 1, count = 1, type = tensor<4xf32>, inner = []>]>, #aot.subclass_meta<class = "", start = 2, count = 1, type = tensor<4xf32>, inner = []>]
// CHECK-SAME: outputs = [#aot.subclass_meta<class = "Nested", start = 0, count = 3, type = tensor<4xf32>, meta = {scale = 2}, inner = [#aot.subclass_meta<class = "TwoTensor", start = 0, count = 2
// CHECK-SAME: replicas = [], shared_with_components = []
// CHECK-NEXT: %[[A:.*]] = tensor.exp %arg0
// CHECK-NEXT: %[[B:.*]] = tensor.exp %arg1
// CHECK-NEXT: %[[C:.*]] = tensor.exp %arg2
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @Nested {inner = ["x", "y"], inner_classes = ["TwoTensor", ""], meta = {scale = 2}}
func.func @nested(%t: !aot.subclass<@TwoTensor, tensor<4xf32>>, %d: tensor<4xf32>) -> !aot.subclass<@Nested, tensor<4xf32>> {
  %n = aot.subclass_wrap %t, %d : !aot.subclass<@TwoTensor, tensor<4xf32>>, tensor<4xf32> -> !aot.subclass<@Nested, tensor<4xf32>>
  %0 = tensor.exp %n : !aot.subclass<@Nested, tensor<4xf32>>
  return %0 : !aot.subclass<@Nested, tensor<4xf32>>
}

// -----

/// Mutations (data and metadata) and random draws apply per component, in
/// order (the dense source of the write is replicated, %arg3 and %arg4);
/// after flattening, the metadata says each inner tensor of the input is
/// mutated.
// CHECK-LABEL: func.func @mutations
// CHECK-NEXT: %[[TA:.*]] = mut.t_ %arg0
// CHECK-NEXT: %[[TB:.*]] = mut.t_ %arg1
// CHECK-NEXT: mut.add_ %[[TA]], %arg3
// CHECK-NEXT: mut.add_ %[[TB]], %arg4
// CHECK-NEXT: rng.bernoulli %[[TA]]
// CHECK-NEXT: rng.bernoulli %[[TB]]
// META-LABEL: func.func @mutations
// META-SAME: inputs = [#aot.input<is_leaf = true, mutates_data = true, mutates_metadata = true,
// META-SAME: #aot.input<is_leaf = true, mutates_data = true, mutates_metadata = true,
// META-SAME: #aot.input<is_leaf = true, mutates_data = false
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @mutations(%x: !aot.subclass<@TwoTensor, tensor<2x2xf32>>, %y: tensor<2x2xf32>) -> !aot.subclass<@TwoTensor, tensor<2x2xf32>> {
  %t = mut.t_ %x : !aot.subclass<@TwoTensor, tensor<2x2xf32>> -> !aot.subclass<@TwoTensor, tensor<2x2xf32>>
  mut.add_ %t, %y : !aot.subclass<@TwoTensor, tensor<2x2xf32>>, tensor<2x2xf32>
  %r = rng.bernoulli %t : !aot.subclass<@TwoTensor, tensor<2x2xf32>>
  return %r : !aot.subclass<@TwoTensor, tensor<2x2xf32>>
}

// -----

/// A replica reads the argument through copies of the dense ops between
/// (here a transpose), one chain per component; the original argument
/// keeps its own dense use.
// CHECK-LABEL: func.func @replicated_chain
// CHECK-SAME: (%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<3x2xf32> {aot.requires_grad}, %arg3: tensor<3x2xf32> {aot.requires_grad}, %arg4: tensor<3x2xf32> {aot.requires_grad})
// CHECK-NEXT: %[[T:.*]] = view.transpose %arg2
// CHECK-NEXT: %[[S:.*]] = tensor.sum %arg2
// CHECK-NEXT: %[[TA:.*]] = view.transpose %arg3
// CHECK-NEXT: %[[TB:.*]] = view.transpose %arg4
// CHECK-NEXT: tensor.mul %arg0, %[[TA]]
// CHECK-NEXT: tensor.mul %arg1, %[[TB]]
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @replicated_chain(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>>, %w: tensor<3x2xf32> {aot.requires_grad}) -> (!aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<f32>) {
  %t = view.transpose %w {dim0 = 0, dim1 = 1} : tensor<3x2xf32> -> tensor<2x3xf32>
  %s = tensor.sum %w {dims = [0, 1]} : tensor<3x2xf32> -> tensor<f32>
  %0 = tensor.mul %x, %t : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  return %0, %s : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<f32>
}

// -----

/// A function without subclass values is left alone (no plan).
// CHECK-LABEL: func.func @dense
// CHECK-NOT: aot.subclass_plan
// CHECK: tensor.neg
func.func @dense(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.neg %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
