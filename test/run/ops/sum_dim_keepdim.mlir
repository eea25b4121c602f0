/// tensor.sum over dim 1 with keepdim.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tensor.sum %a {dims = [1], keepdim} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
