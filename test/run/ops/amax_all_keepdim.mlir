/// tensor.amax over all dims with keepdim.
func.func @main(%a: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %0 = tensor.amax %a {dims = [], keepdim} : tensor<2x3xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
