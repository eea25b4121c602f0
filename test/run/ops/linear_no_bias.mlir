/// tensor.linear without bias.
func.func @main(%a: tensor<3x2xf32>, %b: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %0 = tensor.linear %a, %b : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
