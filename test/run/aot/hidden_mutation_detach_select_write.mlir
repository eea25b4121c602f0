/// A write through a select of a detached alias: the argument changes, the
/// mutation is hidden from autograd; the argument is returned as well.
func.func @main(%a: tensor<2x3xf32>, %w: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %d = view.detach %a : tensor<2x3xf32>
  %r = view.select %d {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  mut.mul_ %r, %w : tensor<3xf32>
  %0 = tensor.mul %a, %a : tensor<2x3xf32>
  return %0, %a : tensor<2x3xf32>, tensor<2x3xf32>
}
