/// tensor.gelu with the default (exact, erf-based) formula.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.gelu %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
