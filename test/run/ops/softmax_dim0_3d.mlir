/// tensor.softmax over dim 0 of a 3-D tensor.
func.func @main(%a: tensor<3x2x2xf32>) -> tensor<3x2x2xf32> {
  %0 = tensor.softmax %a {dim = 0} : tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}
