/// tensor.add in bf16 with gradients.
func.func @main(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tensor.add %a, %b : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
