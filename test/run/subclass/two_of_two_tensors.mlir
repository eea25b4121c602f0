// TwoTensor(TwoTensor, TwoTensor): four dense leaves, gradients through
// every one of them, a view output aliasing the input.
aot.subclass @TwoTensor {inner = ["a", "b"]}
aot.subclass @TwoOfTwo {inner = ["a", "b"], inner_classes = ["TwoTensor", "TwoTensor"]}
func.func @main(%x: !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>, %w: tensor<2x2xf32>) -> (!aot.subclass<@TwoOfTwo, tensor<2x2xf32>>, !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>) {
  %0 = tensor.mm %x, %w : !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>, tensor<2x2xf32> -> !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>
  %1 = tensor.sigmoid %0 : !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>
  %2 = view.transpose %x {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoOfTwo, tensor<2x2xf32>> -> !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>
  return %1, %2 : !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>, !aot.subclass<@TwoOfTwo, tensor<2x2xf32>>
}
