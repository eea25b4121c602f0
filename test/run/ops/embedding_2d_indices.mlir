/// tensor.embedding with 2-D indices and repeats (the weight gradient
/// accumulates over repeated rows).
func.func @main(%a: tensor<5x3xf32>, %b: tensor<2x3xi64>) -> tensor<2x3x3xf32> {
  %0 = tensor.embedding %a, %b : tensor<5x3xf32>, tensor<2x3xi64> -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}
