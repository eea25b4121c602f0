/// tensor.gt on i64.
func.func @main(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %0 = tensor.gt %a, %b : tensor<4xi64> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
