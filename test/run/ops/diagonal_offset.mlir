/// view.diagonal with offset 1 of a 3x4 matrix.
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = view.diagonal %a {offset = 1} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
