/// The diagonal of an argument is overwritten (fill_) and then scaled.
func.func @main(%x: tensor<3x3xf32>, %s: tensor<3xf32>) -> tensor<3x3xf32> {
  %d = view.diagonal %x : tensor<3x3xf32> -> tensor<3xf32>
  mut.fill_ %d {value = 1.0} : tensor<3xf32>
  mut.mul_ %d, %s : tensor<3xf32>
  return %x : tensor<3x3xf32>
}
