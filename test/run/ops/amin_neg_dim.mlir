/// tensor.amin over dim -2 of a 3-D tensor.
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<2x2xf32> {
  %0 = tensor.amin %a {dims = [-2]} : tensor<2x3x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
