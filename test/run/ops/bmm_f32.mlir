/// tensor.bmm (2x3x4)@(2x4x2).
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x2xf32>) -> tensor<2x3x2xf32> {
  %0 = tensor.bmm %a, %b : tensor<2x3x4xf32>, tensor<2x4x2xf32> -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}
