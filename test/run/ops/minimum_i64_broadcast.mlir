/// tensor.minimum on i64, 2x1x2 vs 3x2 -> 2x3x2.
func.func @main(%a: tensor<2x1x2xi64>, %b: tensor<3x2xi64>) -> tensor<2x3x2xi64> {
  %0 = tensor.minimum %a, %b : tensor<2x1x2xi64>, tensor<3x2xi64> -> tensor<2x3x2xi64>
  return %0 : tensor<2x3x2xi64>
}
