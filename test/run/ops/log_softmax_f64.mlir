/// tensor.log_softmax over dim -2 in f64 with an explicit tangent.
func.func @main(%a: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0 = tensor.log_softmax %a {dim = -2} : tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
