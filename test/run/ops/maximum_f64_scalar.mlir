/// tensor.maximum of an f64 vector and a 0-d f64 tensor (a ReLU-like floor).
func.func @main(%a: tensor<5xf64>, %b: tensor<f64>) -> tensor<5xf64> {
  %0 = tensor.maximum %a, %b : tensor<5xf64>, tensor<f64> -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
