/// view.slice with a negative start and the default end (to the end).
func.func @main(%a: tensor<6xf32>) -> tensor<2xf32> {
  %0 = view.slice %a {dim = 0, start = -2} : tensor<6xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
