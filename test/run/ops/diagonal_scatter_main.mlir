/// view.diagonal_scatter of the main diagonal.
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  %0 = view.diagonal_scatter %a, %b : tensor<3x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
