/// tensor.attention: 4-d heads, the default scale 1/sqrt(E), no mask.
func.func @main(%a0: tensor<2x3x4x8xf32>, %a1: tensor<2x3x5x8xf32>, %a2: tensor<2x3x5x6xf32>) -> (tensor<2x3x4x6xf32>, tensor<2x3x4xf32>) {
  %0:2 = tensor.attention %a0, %a1, %a2 : tensor<2x3x4x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x6xf32> -> (tensor<2x3x4x6xf32>, tensor<2x3x4xf32>)
  return %0#0, %0#1 : tensor<2x3x4x6xf32>, tensor<2x3x4xf32>
}
