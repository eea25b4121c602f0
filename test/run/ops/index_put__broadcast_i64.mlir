/// mut.index_put_ of a broadcast 0-d value into rows of an i64 tensor
/// (accumulate = false written out).
func.func @main(%x: tensor<3x2xi64>, %i: tensor<2xi64>, %v: tensor<i64>) {
  mut.index_put_ %x, %i, %v {accumulate = false} : tensor<3x2xi64>, tensor<2xi64>, tensor<i64>
  return
}
