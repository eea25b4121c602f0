/// view.select with a negative index along dim -1.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = view.select %a {dim = -1, index = -1} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
