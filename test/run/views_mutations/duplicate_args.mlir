/// The same tensor passed twice (same_as): x * y with y = x; both
/// entries report the gradient 2x.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.mul %x, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}
