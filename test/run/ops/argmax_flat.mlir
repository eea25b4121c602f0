/// tensor.argmax without dim: the index into the flattened tensor.
func.func @main(%a: tensor<3x3xf32>) -> tensor<i64> {
  %0 = tensor.argmax %a : tensor<3x3xf32> -> tensor<i64>
  return %0 : tensor<i64>
}
