/// tensor.erf on f64.
func.func @main(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tensor.erf %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}
