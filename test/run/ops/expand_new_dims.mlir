/// view.expand adding a leading dim and keeping one with -1.
func.func @main(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = view.expand %a {shape = [2, -1, 4]} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
