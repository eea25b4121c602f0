/// view.diagonal_scatter with offset -1 of a 3x4 matrix.
func.func @main(%a: tensor<3x4xf32>, %b: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = view.diagonal_scatter %a, %b {offset = -1} : tensor<3x4xf32>, tensor<2xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
