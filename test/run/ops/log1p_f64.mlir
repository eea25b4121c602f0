/// tensor.log1p on f64.
func.func @main(%a: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tensor.log1p %a : tensor<3xf64>
  return %0 : tensor<3xf64>
}
