/// tensor.minimum in bf16 with gradients.
func.func @main(%a: tensor<2x2xbf16>, %b: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %0 = tensor.minimum %a, %b : tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}
