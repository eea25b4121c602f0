/// tensor.scatter_add on i64.
func.func @main(%a: tensor<5xi64>, %b: tensor<4xi64>, %c: tensor<4xi64>) -> tensor<5xi64> {
  %0 = tensor.scatter_add %a, %b, %c {dim = 0} : tensor<5xi64>, tensor<4xi64>, tensor<4xi64> -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
