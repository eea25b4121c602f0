/// tensor.log on positive f16 values.
func.func @main(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tensor.log %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}
