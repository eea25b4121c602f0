/// view.squeeze of a dim that is not 1 keeps the shape.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = view.squeeze %a {dim = 0} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
