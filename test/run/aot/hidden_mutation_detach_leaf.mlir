/// A hidden mutation of a leaf that requires grad: x.detach().add_(1) is
/// legal on a leaf (the epilogue must use detach().copy_); y = x * w then
/// uses the new values.
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %d = view.detach %x : tensor<4xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %d, %one : tensor<4xf32>, tensor<f32>
  %0 = tensor.mul %x, %w : tensor<4xf32>
  return %0 : tensor<4xf32>
}
