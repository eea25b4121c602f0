/// tensor.relu on i64.
func.func @main(%a: tensor<6xi64>) -> tensor<6xi64> {
  %0 = tensor.relu %a : tensor<6xi64>
  return %0 : tensor<6xi64>
}
