/// tensor.relu on f32 (no zeros).
func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = tensor.relu %a : tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
