/// tensor.mm on i64.
func.func @main(%a: tensor<2x2xi64>, %b: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = tensor.mm %a, %b : tensor<2x2xi64>, tensor<2x3xi64> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
