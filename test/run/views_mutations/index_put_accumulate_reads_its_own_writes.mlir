// index_put_ accumulating values that are the destination's own elements
// (a detached alias of it). The destination is strided, so PyTorch's overlap
// check cannot decide and lets the op run; its CPU kernel then puts one
// index position after another, each reading the values as the earlier
// positions left them: row 2 receives rows 0 and 1, then row 0 receives
// row 2 as those two puts left it (a snapshot of the values would give
// row 0 the old row 2).
func.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>) {
  %d = "view.detach"(%x) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %i = "tensor.constant"() {value = dense<[2, 2, 0]> : tensor<3xi64>} : () -> tensor<3xi64>
  "mut.index_put_"(%x, %i, %d) {accumulate} : (tensor<3x2xf32>, tensor<3xi64>, tensor<3x2xf32>) -> ()
  return %x : tensor<3x2xf32>
}
