/// tensor.clamp with both bounds; clamped elements get zero gradient.
func.func @main(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tensor.clamp %a {min = -0.5, max = 0.5} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
