/// view.select_scatter of row 0.
func.func @main(%a: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %0 = view.select_scatter %a, %b {dim = 0, index = 0} : tensor<3x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
