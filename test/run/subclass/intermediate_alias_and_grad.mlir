// A view of an intermediate returned with its base; gradients through both.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<2x4xf32>>) -> (!aot.subclass<@TwoTensor, tensor<2x4xf32>>, !aot.subclass<@TwoTensor, tensor<8xf32>>) {
  %0 = tensor.mul %x, %x : !aot.subclass<@TwoTensor, tensor<2x4xf32>>
  %1 = view.reshape %0 {shape = [8]} : !aot.subclass<@TwoTensor, tensor<2x4xf32>> -> !aot.subclass<@TwoTensor, tensor<8xf32>>
  return %0, %1 : !aot.subclass<@TwoTensor, tensor<2x4xf32>>, !aot.subclass<@TwoTensor, tensor<8xf32>>
}
