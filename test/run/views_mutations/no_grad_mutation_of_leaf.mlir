/// An in-place op on a leaf requiring grad is allowed under no_grad
/// (as an optimizer step); the leaf keeps requiring grad.
func.func @main(%w: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  mut.sub_ %w, %g {aot.no_grad} : tensor<3xf32>
  %0 = tensor.mul %w, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}
