/// view.unsqueeze at dim -1 (appends a dim).
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %0 = view.unsqueeze %a {dim = -1} : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}
