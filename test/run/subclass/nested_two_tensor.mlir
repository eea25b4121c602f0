// A class whose first component is itself a TwoTensor: three dense leaves.
aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @Nested {inner = ["x", "y"], inner_classes = ["TwoTensor", ""]}
func.func @main(%n: !aot.subclass<@Nested, tensor<2x3xf32>>) -> (!aot.subclass<@Nested, tensor<3x2xf32>>, !aot.subclass<@Nested, tensor<2xf32>>) {
  %0 = tensor.sigmoid %n : !aot.subclass<@Nested, tensor<2x3xf32>>
  %1 = view.transpose %0 {dim0 = 0, dim1 = 1} : !aot.subclass<@Nested, tensor<2x3xf32>> -> !aot.subclass<@Nested, tensor<3x2xf32>>
  %2 = tensor.amax %n {dims = [1]} : !aot.subclass<@Nested, tensor<2x3xf32>> -> !aot.subclass<@Nested, tensor<2xf32>>
  return %1, %2 : !aot.subclass<@Nested, tensor<3x2xf32>>, !aot.subclass<@Nested, tensor<2xf32>>
}
