/// A mutation through a transposed view lands in the argument's base:
/// x.t().mul_(y); the non-leaf argument x is returned.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  mut.mul_ %t, %y : tensor<3x2xf32>
  return %x : tensor<2x3xf32>
}
