/// mut.transpose_ of an i64 argument (no grad).
func.func @main(%x: tensor<2x3x2xi64>) -> tensor<2x3x2xi64> {
  %y = mut.transpose_ %x {dim0 = 0, dim1 = -1} : tensor<2x3x2xi64>
  return %y : tensor<2x3x2xi64>
}
