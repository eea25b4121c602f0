/// tensor.exp on bf16.
func.func @main(%a: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = tensor.exp %a : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}
