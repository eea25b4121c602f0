/// tensor.relu on bf16.
func.func @main(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tensor.relu %a : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
