/// tensor.mean in bf16.
func.func @main(%a: tensor<2x4xbf16>) -> tensor<2xbf16> {
  %0 = tensor.mean %a {dims = [1]} : tensor<2x4xbf16> -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}
