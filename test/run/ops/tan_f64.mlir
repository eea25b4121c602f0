/// tensor.tan on f64, across several periods.
func.func @main(%a: tensor<6xf64>) -> tensor<6xf64> {
  %0 = tensor.tan %a : tensor<6xf64>
  return %0 : tensor<6xf64>
}
