/// tensor.div in f16 with row broadcasting.
func.func @main(%a: tensor<2x2xf16>, %b: tensor<2xf16>) -> tensor<2x2xf16> {
  %0 = tensor.div %a, %b : tensor<2x2xf16>, tensor<2xf16> -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}
