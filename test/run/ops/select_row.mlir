/// view.select of row 1.
func.func @main(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = view.select %a {dim = 0, index = 1} : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
