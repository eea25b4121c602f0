/// view.transpose with negative dims of a 3-D tensor.
func.func @main(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = view.transpose %a {dim0 = -1, dim1 = -3} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}
