/// tensor.sum of i32 gives i64.
func.func @main(%a: tensor<3x2xi32>) -> tensor<i64> {
  %0 = tensor.sum %a {dims = []} : tensor<3x2xi32> -> tensor<i64>
  return %0 : tensor<i64>
}
