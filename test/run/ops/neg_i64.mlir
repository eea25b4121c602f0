/// tensor.neg on i64.
func.func @main(%a: tensor<5xi64>) -> tensor<5xi64> {
  %0 = tensor.neg %a : tensor<5xi64>
  return %0 : tensor<5xi64>
}
