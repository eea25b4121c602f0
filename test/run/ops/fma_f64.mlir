/// tensor.fma in f64, with a 0-d addend.
func.func @main(%a: tensor<6xf64>, %b: tensor<6xf64>, %c: tensor<f64>) -> tensor<6xf64> {
  %0 = tensor.fma %a, %b, %c : tensor<6xf64>, tensor<6xf64>, tensor<f64> -> tensor<6xf64>
  return %0 : tensor<6xf64>
}
