/// tensor.expm1 near 0 (where exp(x) - 1 would lose every digit) and
/// farther out, with gradients.
func.func @main(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tensor.expm1 %a : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
