/// view.slice with an end past the size (clamped) along dim -1.
func.func @main(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %0 = view.slice %a {dim = -1, start = 1, end = 100} : tensor<2x4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
