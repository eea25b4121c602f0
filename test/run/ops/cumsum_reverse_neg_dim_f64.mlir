/// tensor.cumsum from the end along dim -2 of a 3-d f64 tensor (the
/// derivative of a forward cumsum), with gradients.
func.func @main(%a: tensor<3x4x2xf64>) -> tensor<3x4x2xf64> {
  %0 = tensor.cumsum %a {dim = -2, reverse} : tensor<3x4x2xf64>
  return %0 : tensor<3x4x2xf64>
}
