/// mut.mul_ of a non-leaf argument by itself-derived values.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  mut.mul_ %x, %y : tensor<2x2xf32>
  %0 = tensor.add %x, %y : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
