// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// Class declarations: inner tensors, nested classes, constant metadata.
// CHECK: aot.subclass @TwoTensor {inner = ["a", "b"]}
// CHECK: aot.subclass @Nested {inner = ["x", "y"], inner_classes = ["TwoTensor", ""], meta = {scale = 2, tag = "fp8"}}
aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @Nested {inner = ["x", "y"], inner_classes = ["TwoTensor", ""], meta = {tag = "fp8", scale = 2}}

/// Any op takes subclass operands (its results are values of the same
/// class, with the dense op's inferred outer type); wrap and unwrap cross.
// CHECK-LABEL: func.func @dispatch
// CHECK-SAME: (%arg0: !aot.subclass<@TwoTensor, tensor<2x3xf32>>, %arg1: tensor<2x3xf32>) -> (!aot.subclass<@TwoTensor, tensor<3x2xf32>>, !aot.subclass<@Nested, tensor<3x2xf32>>)
// CHECK: %[[M:.*]] = tensor.mul %arg0, %arg1 : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
// CHECK: %[[T:.*]] = view.transpose %[[M]] {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoTensor, tensor<2x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
// CHECK: %[[U:.*]]:2 = aot.subclass_unwrap %[[T]] : !aot.subclass<@TwoTensor, tensor<3x2xf32>> -> (tensor<3x2xf32>, tensor<3x2xf32>)
// CHECK: %[[S:.*]] = tensor.add %[[U]]#0, %[[U]]#1 : tensor<3x2xf32>
// CHECK: aot.subclass_wrap %[[T]], %[[S]] : !aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<3x2xf32> -> !aot.subclass<@Nested, tensor<3x2xf32>>
func.func @dispatch(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>>, %y: tensor<2x3xf32>) -> (!aot.subclass<@TwoTensor, tensor<3x2xf32>>, !aot.subclass<@Nested, tensor<3x2xf32>>) {
  %0 = tensor.mul %x, %y : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  %1 = view.transpose %0 {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoTensor, tensor<2x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %a, %b = aot.subclass_unwrap %1 : !aot.subclass<@TwoTensor, tensor<3x2xf32>> -> (tensor<3x2xf32>, tensor<3x2xf32>)
  %s = tensor.add %a, %b : tensor<3x2xf32>
  %n = aot.subclass_wrap %1, %s : !aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<3x2xf32> -> !aot.subclass<@Nested, tensor<3x2xf32>>
  return %1, %n : !aot.subclass<@TwoTensor, tensor<3x2xf32>>, !aot.subclass<@Nested, tensor<3x2xf32>>
}
