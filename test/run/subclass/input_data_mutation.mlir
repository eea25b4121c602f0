// An in-place op on a TwoTensor input writes each inner tensor.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<2x3xf32>>, %y: tensor<2x3xf32>) -> !aot.subclass<@TwoTensor, tensor<2x3xf32>> {
  mut.mul_ %x, %y : !aot.subclass<@TwoTensor, tensor<2x3xf32>>, tensor<2x3xf32>
  %0 = tensor.cos %x : !aot.subclass<@TwoTensor, tensor<2x3xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<2x3xf32>>
}
