/// tensor.argsort along the last dim, ascending and descending: ties keep
/// their order (stable), NaN sorts above every number, -0.0 equals 0.0.
func.func @main(%a: tensor<3x6xf32>) -> (tensor<3x6xi64>, tensor<3x6xi64>) {
  %0 = tensor.argsort %a {dim = 1} : tensor<3x6xf32> -> tensor<3x6xi64>
  %1 = tensor.argsort %a {dim = -1, descending} : tensor<3x6xf32> -> tensor<3x6xi64>
  return %0, %1 : tensor<3x6xi64>, tensor<3x6xi64>
}
