/// tensor.bmm in bf16 with gradients.
func.func @main(%a: tensor<2x4x9xbf16>, %b: tensor<2x9x6xbf16>) -> tensor<2x4x6xbf16> {
  %0 = tensor.bmm %a, %b : tensor<2x4x9xbf16>, tensor<2x9x6xbf16> -> tensor<2x4x6xbf16>
  return %0 : tensor<2x4x6xbf16>
}
