/// tensor.cat of two tensors along dim 0.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<3x3xf32> {
  %0 = tensor.cat %a, %b {dim = 0} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
