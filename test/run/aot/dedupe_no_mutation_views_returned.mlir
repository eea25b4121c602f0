/// f(x, x) without mutation, returning a view of each position: both
/// outputs alias argument 0 (the same tensor), regenerated from their own
/// position's argument.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = view.select %y {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  %s = tensor.sub %x, %y : tensor<2x3xf32>
  return %t, %r, %s : tensor<3x2xf32>, tensor<3xf32>, tensor<2x3xf32>
}
