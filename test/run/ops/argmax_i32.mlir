/// tensor.argmax of an i32 tensor (distinct values).
func.func @main(%a: tensor<2x4xi32>) -> tensor<2xi64> {
  %0 = tensor.argmax %a {dim = 1} : tensor<2x4xi32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
