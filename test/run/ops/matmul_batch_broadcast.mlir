/// tensor.matmul broadcasting batch dims: (2x1x3x4)@(5x4x2) -> 2x5x3x2.
func.func @main(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32> {
  %0 = tensor.matmul %a, %b : tensor<2x1x3x4xf32>, tensor<5x4x2xf32> -> tensor<2x5x3x2xf32>
  return %0 : tensor<2x5x3x2xf32>
}
