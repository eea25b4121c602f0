// A dense tangent for a TwoTensor output is used for both components, as
// PyTorch's per-component backward does.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>) -> (!aot.subclass<@TwoTensor, tensor<3xf32>>, !aot.subclass<@TwoTensor, tensor<3xf32>>) {
  %0 = tensor.exp %x : !aot.subclass<@TwoTensor, tensor<3xf32>>
  %1 = tensor.neg %x : !aot.subclass<@TwoTensor, tensor<3xf32>>
  return %0, %1 : !aot.subclass<@TwoTensor, tensor<3xf32>>, !aot.subclass<@TwoTensor, tensor<3xf32>>
}
