/// tensor.sub in f16 with a 0-d subtrahend.
func.func @main(%a: tensor<2x3xf16>, %b: tensor<f16>) -> tensor<2x3xf16> {
  %0 = tensor.sub %a, %b : tensor<2x3xf16>, tensor<f16> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
