/// view.transpose of dims 0 and 1.
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = view.transpose %a {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
