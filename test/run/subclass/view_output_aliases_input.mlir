// Outputs that are views of a TwoTensor input alias it per component.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3x4xf32>>) -> (!aot.subclass<@TwoTensor, tensor<4x3xf32>>, !aot.subclass<@TwoTensor, tensor<3x2xf32>>) {
  %0 = view.transpose %x {dim0 = 0, dim1 = 1} : !aot.subclass<@TwoTensor, tensor<3x4xf32>> -> !aot.subclass<@TwoTensor, tensor<4x3xf32>>
  %1 = view.slice %x {dim = 1, start = 1, end = 4, step = 2} : !aot.subclass<@TwoTensor, tensor<3x4xf32>> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  return %0, %1 : !aot.subclass<@TwoTensor, tensor<4x3xf32>>, !aot.subclass<@TwoTensor, tensor<3x2xf32>>
}
