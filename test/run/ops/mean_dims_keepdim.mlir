/// tensor.mean over dims [0, 2] with keepdim.
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<1x3x1xf32> {
  %0 = tensor.mean %a {dims = [0, 2], keepdim} : tensor<2x3x2xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}
