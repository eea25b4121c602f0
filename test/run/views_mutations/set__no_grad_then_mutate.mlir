/// set_ under aot.no_grad on a non-leaf argument keeps its autograd
/// identity; a following mul_ by w is recorded.
func.func @main(%x: tensor<4xf32>, %src: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %y = mut.set_ %x, %src {aot.no_grad} : tensor<4xf32>
  mut.mul_ %y, %w : tensor<4xf32>
  return %y : tensor<4xf32>
}
