/// tensor.lt, 3x1 vs 1x3 -> 3x3 (an outer comparison).
func.func @main(%a: tensor<3x1xf32>, %b: tensor<1x3xf32>) -> tensor<3x3xi1> {
  %0 = tensor.lt %a, %b : tensor<3x1xf32>, tensor<1x3xf32> -> tensor<3x3xi1>
  return %0 : tensor<3x3xi1>
}
