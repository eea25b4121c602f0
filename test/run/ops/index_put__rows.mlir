/// mut.index_put_ (no accumulate, distinct indices) of rows into a non-leaf
/// argument; values require grad.
func.func @main(%x: tensor<4x2xf32>, %i: tensor<2xi64>, %v: tensor<2x2xf32>) -> tensor<4x2xf32> {
  mut.index_put_ %x, %i, %v : tensor<4x2xf32>, tensor<2xi64>, tensor<2x2xf32>
  return %x : tensor<4x2xf32>
}
