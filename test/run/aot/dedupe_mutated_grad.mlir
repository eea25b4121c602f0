/// f(x, x) where x is a non-leaf that requires grad: the mutation through
/// one position is seen through the other, and the graph takes x once.
func.func @main(%a: tensor<3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  mut.mul_ %a, %w : tensor<3xf32>
  %0 = tensor.mul %b, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}
