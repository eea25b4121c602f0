/// tensor.minimum of distinct values; the gradient goes to the smaller operand.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.minimum %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
