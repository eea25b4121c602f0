/// view.unsqueeze at dim 0.
func.func @main(%a: tensor<3xf32>) -> tensor<1x3xf32> {
  %0 = view.unsqueeze %a {dim = 0} : tensor<3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
