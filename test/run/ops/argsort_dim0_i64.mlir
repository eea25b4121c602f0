/// tensor.argsort of integers along dim 0 (a strided lane), with values
/// beyond 2^53 that differ by one, and of f64 descending.
func.func @main(%a: tensor<4x3xi64>, %b: tensor<5xf64>) -> (tensor<4x3xi64>, tensor<5xi64>) {
  %0 = tensor.argsort %a {dim = 0} : tensor<4x3xi64> -> tensor<4x3xi64>
  %1 = tensor.argsort %b {dim = 0, descending} : tensor<5xf64> -> tensor<5xi64>
  return %0, %1 : tensor<4x3xi64>, tensor<5xi64>
}
