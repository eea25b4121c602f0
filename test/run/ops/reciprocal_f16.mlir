/// tensor.reciprocal on f16.
func.func @main(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tensor.reciprocal %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}
