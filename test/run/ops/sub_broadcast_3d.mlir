/// tensor.sub broadcasting 2x1x3 - 4x3 -> 2x4x3.
func.func @main(%a: tensor<2x1x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = tensor.sub %a, %b : tensor<2x1x3xf32>, tensor<4x3xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
