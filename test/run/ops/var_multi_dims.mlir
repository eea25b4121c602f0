/// tensor.var over dims [0, -1] of a 3-D tensor, correction 2.
func.func @main(%a: tensor<3x2x4xf32>) -> tensor<2xf32> {
  %0 = tensor.var %a {dims = [0, -1], correction = 2} : tensor<3x2x4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
