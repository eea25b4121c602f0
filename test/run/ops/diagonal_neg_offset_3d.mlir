/// view.diagonal with offset -1 over dims 1 and 2 of a 3-D tensor
/// (the diagonal dim goes last).
func.func @main(%a: tensor<2x3x3xf32>) -> tensor<2x2xf32> {
  %0 = view.diagonal %a {offset = -1, dim1 = 1, dim2 = 2} : tensor<2x3x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
