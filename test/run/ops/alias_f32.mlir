/// view.alias: same storage and metadata, still requires grad.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = view.alias %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
