/// tensor.sum of a bool tensor counts the trues and gives i64.
func.func @main(%a: tensor<2x4xi1>) -> tensor<2xi64> {
  %0 = tensor.sum %a {dims = [1]} : tensor<2x4xi1> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
