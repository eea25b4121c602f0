/// A view output taken before the argument is mutated shows the new
/// values: v = x.t(); x.mul_(k); return v.
func.func @main(%x: tensor<2x3xf32>, %k: tensor<3xf32>) -> tensor<3x2xf32> {
  %v = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  mut.mul_ %x, %k : tensor<2x3xf32>, tensor<3xf32>
  return %v : tensor<3x2xf32>
}
