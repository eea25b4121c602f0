/// tensor.cat of one value with itself: its gradient accumulates.
func.func @main(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = tensor.cat %x, %x {dim = 0} : tensor<3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
