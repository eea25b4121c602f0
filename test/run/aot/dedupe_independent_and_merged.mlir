/// Two duplicate groups: (x, x) untouched (strategy 1) and (y, y) mutated
/// (strategy 2), in one function.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>, %x2: tensor<3xf32>, %y2: tensor<3xf32>) -> tensor<3xf32> {
  mut.sub_ %y, %x2 : tensor<3xf32>
  %0 = tensor.mul %x, %y2 : tensor<3xf32>
  return %0 : tensor<3xf32>
}
