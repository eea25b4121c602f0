/// tensor.argmax over dim 1 (distinct values, no ties).
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = tensor.argmax %a {dim = 1} : tensor<3x4xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
