/// tensor.cast f64 -> f16 (rounding).
func.func @main(%a: tensor<4xf64>) -> tensor<4xf16> {
  %0 = tensor.cast %a : tensor<4xf64> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
