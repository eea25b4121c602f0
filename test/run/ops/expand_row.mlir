/// view.expand of a 1x3 row to 4x3 (stride 0); the gradient sums the rows.
func.func @main(%a: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = view.expand %a {shape = [4, 3]} : tensor<1x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
