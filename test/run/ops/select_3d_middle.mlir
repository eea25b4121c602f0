/// view.select along the middle dim of a 3-D tensor.
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<2x2xf32> {
  %0 = view.select %a {dim = 1, index = 2} : tensor<2x3x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
