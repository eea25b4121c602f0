/// tensor.div of a 3x2 f64 matrix by a 0-d f64 tensor.
func.func @main(%a: tensor<3x2xf64>, %b: tensor<f64>) -> tensor<3x2xf64> {
  %0 = tensor.div %a, %b : tensor<3x2xf64>, tensor<f64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
