// A write through a view of a TwoTensor input (per component).
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<4x3xf32>>) -> !aot.subclass<@TwoTensor, tensor<4x3xf32>> {
  %v = view.select %x {dim = 0, index = 1} : !aot.subclass<@TwoTensor, tensor<4x3xf32>> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  %c = tensor.constant dense<2.0> : tensor<3xf32>
  mut.add_ %v, %c : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<3xf32>
  %0 = tensor.exp %x : !aot.subclass<@TwoTensor, tensor<4x3xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<4x3xf32>>
}
