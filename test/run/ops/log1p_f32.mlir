/// tensor.log1p on values > -1.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.log1p %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
