/// tensor.pow on i64 with non-negative exponents.
func.func @main(%a: tensor<5xi64>, %b: tensor<5xi64>) -> tensor<5xi64> {
  %0 = tensor.pow %a, %b : tensor<5xi64>
  return %0 : tensor<5xi64>
}
