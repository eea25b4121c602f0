/// resize_ to zero elements: the input ends with shape [0] (nothing to copy
/// back); the output comes from another input.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = mut.resize_ %x {size = [0]} : tensor<2x2xf32> -> tensor<0xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  %0 = tensor.mul %y, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
