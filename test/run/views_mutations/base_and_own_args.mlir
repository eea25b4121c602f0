/// A base storage with one transposed view arg, plus an own-storage arg
/// requiring grad; the view arg is mutated and returned.
func.func @main(%v: tensor<3x2xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  mut.add_ %v, %y : tensor<3x2xf32>
  return %v : tensor<3x2xf32>
}
