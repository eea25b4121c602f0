/// tensor.matmul of a 3-D tensor and a matrix.
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<4x2xf32>) -> tensor<2x3x2xf32> {
  %0 = tensor.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x2xf32> -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}
