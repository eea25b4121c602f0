// A TwoTensor activation against a dense weight that does not require grad.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3x4xf32>>, %w: tensor<4x2xf32>) -> !aot.subclass<@TwoTensor, tensor<3x2xf32>> {
  %0 = tensor.matmul %x, %w : !aot.subclass<@TwoTensor, tensor<3x4xf32>>, tensor<4x2xf32> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %1 = tensor.relu %0 : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  return %1 : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
}
