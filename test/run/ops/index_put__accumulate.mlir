/// mut.index_put_ with accumulate and repeated indices.
func.func @main(%x: tensor<5xf32>, %i: tensor<4xi64>, %v: tensor<4xf32>) -> tensor<5xf32> {
  mut.index_put_ %x, %i, %v {accumulate} : tensor<5xf32>, tensor<4xi64>, tensor<4xf32>
  return %x : tensor<5xf32>
}
