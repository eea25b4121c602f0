/// view.t of a matrix.
func.func @main(%a: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = view.t %a : tensor<3x2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
