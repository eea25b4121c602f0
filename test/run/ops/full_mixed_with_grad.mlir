/// A tensor.full operand in a differentiable expression (x * full).
func.func @main(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %c = tensor.full {value = 0.5} : tensor<2x2xf64>
  %0 = tensor.mul %x, %c : tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
