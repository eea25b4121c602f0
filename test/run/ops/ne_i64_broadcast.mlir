/// tensor.ne on i64 with broadcasting (2x3 vs 3).
func.func @main(%a: tensor<2x3xi64>, %b: tensor<3xi64>) -> tensor<2x3xi1> {
  %0 = tensor.ne %a, %b : tensor<2x3xi64>, tensor<3xi64> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
