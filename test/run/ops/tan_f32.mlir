/// tensor.tan on f32.
func.func @main(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = tensor.tan %a : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
