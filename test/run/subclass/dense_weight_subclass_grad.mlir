// A dense weight that requires grad, read by the components of a TwoTensor
// op (through a transpose) and by dense ops: PyTorch gives it a TwoTensor
// gradient, component k the dense uses' gradient plus component k's.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3x4xf32>>, %w: tensor<2x4xf32>) -> (!aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<f32>) {
  %wt = view.transpose %w {dim0 = 0, dim1 = 1} : tensor<2x4xf32> -> tensor<4x2xf32>
  %h = tensor.mm %x, %wt : !aot.subclass<@TwoTensor, tensor<3x4xf32>>, tensor<4x2xf32> -> !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %r = tensor.tanh %h : !aot.subclass<@TwoTensor, tensor<3x2xf32>>
  %sq = tensor.mul %w, %w : tensor<2x4xf32>
  %s = tensor.sum %sq {dims = [0, 1]} : tensor<2x4xf32> -> tensor<f32>
  return %r, %s : !aot.subclass<@TwoTensor, tensor<3x2xf32>>, tensor<f32>
}
