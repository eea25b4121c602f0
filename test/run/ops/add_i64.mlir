/// tensor.add on i64 with broadcasting (4x1 + 3 -> 4x3).
func.func @main(%a: tensor<4x1xi64>, %b: tensor<3xi64>) -> tensor<4x3xi64> {
  %0 = tensor.add %a, %b : tensor<4x1xi64>, tensor<3xi64> -> tensor<4x3xi64>
  return %0 : tensor<4x3xi64>
}
