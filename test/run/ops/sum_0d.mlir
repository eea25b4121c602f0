/// tensor.sum of a 0-d tensor is the value itself.
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = tensor.sum %a {dims = []} : tensor<f32>
  return %0 : tensor<f32>
}
