/// tensor.prod over the last dim of f32, with gradients (PyTorch's rule: one
/// row holds a zero).
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = tensor.prod %a {dims = [1]} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
