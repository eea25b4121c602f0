/// view.permute with negative dims.
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<2x2x3xf32> {
  %0 = view.permute %a {dims = [-3, -1, -2]} : tensor<2x3x2xf32> -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}
