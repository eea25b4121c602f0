/// tensor.mul elementwise; the gradient of each operand is the other operand.
func.func @main(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = tensor.mul %a, %b : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
