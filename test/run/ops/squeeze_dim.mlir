/// view.squeeze of one size-1 dim (negative).
func.func @main(%a: tensor<2x1x3x1xf32>) -> tensor<2x1x3xf32> {
  %0 = view.squeeze %a {dim = -1} : tensor<2x1x3x1xf32> -> tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}
