/// tensor.sum over all dims (dims = []) to a 0-d tensor.
func.func @main(%a: tensor<2x3xf32>) -> tensor<f32> {
  %0 = tensor.sum %a {dims = []} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
