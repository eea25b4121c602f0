/// tensor.clamp on i64 with integral bounds.
func.func @main(%a: tensor<6xi64>) -> tensor<6xi64> {
  %0 = tensor.clamp %a {min = -2, max = 3} : tensor<6xi64>
  return %0 : tensor<6xi64>
}
