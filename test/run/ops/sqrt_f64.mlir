/// tensor.sqrt on positive f64 values (0-d).
func.func @main(%a: tensor<f64>) -> tensor<f64> {
  %0 = tensor.sqrt %a : tensor<f64>
  return %0 : tensor<f64>
}
