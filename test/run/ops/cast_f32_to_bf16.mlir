/// tensor.cast f32 -> bf16 (rounding) with gradient.
func.func @main(%a: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = tensor.cast %a : tensor<4xf32> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
