/// tensor.log_softmax over dim 1.
func.func @main(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tensor.log_softmax %a {dim = 1} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
