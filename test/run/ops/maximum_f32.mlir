/// tensor.maximum of distinct values; the gradient goes to the larger operand.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.maximum %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
