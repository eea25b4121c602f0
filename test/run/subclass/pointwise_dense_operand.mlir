// TwoTensor through elementwise ops with a dense operand (shared by both
// components) and a reduction.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>>, %y: tensor<2x3xf32>) -> (!aot.subclass<@TwoTensor, tensor<2x3xf32>>, !aot.subclass<@TwoTensor, tensor<3xf32>>) {
  %0 = tensor.sin %x : !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  %1 = tensor.mul %0, %y : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32> -> !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  %2 = tensor.sum %1 {dims = [0]} : !aot.subclass<@TwoTensor, tensor<2x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  return %1, %2 : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, !aot.subclass<@TwoTensor, tensor<3xf32>>
}
