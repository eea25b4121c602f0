/// tensor.mm whose first operand is a transposed (non-contiguous) view.
func.func @main(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %at = view.t %a : tensor<3x2xf32> -> tensor<2x3xf32>
  %0 = tensor.mm %at, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
