/// view.diagonal of a square matrix with the defaults.
func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = view.diagonal %a : tensor<3x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
