/// tensor.mean over all dims.
func.func @main(%a: tensor<3x4xf32>) -> tensor<f32> {
  %0 = tensor.mean %a {dims = []} : tensor<3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
