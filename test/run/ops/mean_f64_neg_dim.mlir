/// tensor.mean over dim -1 in f64.
func.func @main(%a: tensor<3x5xf64>) -> tensor<3xf64> {
  %0 = tensor.mean %a {dims = [-1]} : tensor<3x5xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
