/// tensor.tanh on f64.
func.func @main(%a: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tensor.tanh %a : tensor<5xf64>
  return %0 : tensor<5xf64>
}
