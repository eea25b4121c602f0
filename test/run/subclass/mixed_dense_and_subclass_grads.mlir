// Dense and subclass arguments both requiring grad, the dense one used by
// dense ops only: its gradient is dense, the subclass's is a subclass.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %y: tensor<3xf32>) -> (!aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<f32>) {
  %0 = tensor.tanh %x : !aot.subclass<@TwoTensor, tensor<3xf32>>
  %1 = tensor.mul %y, %y : tensor<3xf32>
  %2 = tensor.sum %1 {dims = [0]} : tensor<3xf32> -> tensor<f32>
  return %0, %2 : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<f32>
}
