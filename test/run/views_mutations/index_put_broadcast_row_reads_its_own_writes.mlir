// index_put_ whose values are one row of the destination, broadcast to every
// index position: position 0 doubles row 0, position 1 adds the doubled row
// to row 1, position 2 doubles row 0 again (PyTorch's CPU kernel reads each
// position's values when it reaches it; the strided destination makes its
// overlap check undecided, so nothing is raised).
func.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %d = "view.detach"(%x) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = "view.select"(%d) {dim = 0 : i64, index = 0 : i64} : (tensor<3x2xf32>) -> tensor<2xf32>
  %i = "tensor.constant"() {value = dense<[0, 1, 0]> : tensor<3xi64>} : () -> tensor<3xi64>
  "mut.index_put_"(%x, %i, %r) {accumulate} : (tensor<3x2xf32>, tensor<3xi64>, tensor<2xf32>) -> ()
  %y = "tensor.mul"(%x, %x) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %x, %y : tensor<3x2xf32>, tensor<3x2xf32>
}
