/// tensor.neg on f16 (0-d).
func.func @main(%a: tensor<f16>) -> tensor<f16> {
  %0 = tensor.neg %a : tensor<f16>
  return %0 : tensor<f16>
}
