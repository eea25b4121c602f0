/// mut.fill_ of one row (a select view) of an i64 argument.
func.func @main(%x: tensor<3x2xi64>) {
  %r = view.select %x {dim = 0, index = 1} : tensor<3x2xi64> -> tensor<2xi64>
  mut.fill_ %r {value = -4} : tensor<2xi64>
  return
}
