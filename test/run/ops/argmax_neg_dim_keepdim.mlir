/// tensor.argmax over dim -2 with keepdim.
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<2x1x2xi64> {
  %0 = tensor.argmax %a {dim = -2, keepdim} : tensor<2x3x2xf32> -> tensor<2x1x2xi64>
  return %0 : tensor<2x1x2xi64>
}
