/// tensor.amax of i64 over dim 0.
func.func @main(%a: tensor<3x2xi64>) -> tensor<2xi64> {
  %0 = tensor.amax %a {dims = [0]} : tensor<3x2xi64> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
