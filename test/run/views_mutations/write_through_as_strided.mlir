/// as_strided(x, [2, 2], [1, 3], 1).mul_(k): a strided window of a 3x3
/// argument is scaled in place.
func.func @main(%x: tensor<3x3xf32>, %k: tensor<2x2xf32>) -> tensor<3x3xf32> {
  %v = view.as_strided %x {size = [2, 2], stride = [1, 3], offset = 1} : tensor<3x3xf32> -> tensor<2x2xf32>
  mut.mul_ %v, %k : tensor<2x2xf32>
  return %x : tensor<3x3xf32>
}
