// golden: expect-error
// A grad-mode view of a no_grad view, used after another view of the same base was
// written in place: 'Output 0 of Unsqueeze is a view of a view which was created ...'.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<1x3xf32>) {
  %c = "tensor.mul"(%arg0, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v0 = "view.select"(%c) {aot.no_grad, dim = 0 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  %v1 = "view.unsqueeze"(%v0) {dim = 0 : i64} : (tensor<3xf32>) -> tensor<1x3xf32>
  %z = "view.select"(%c) {dim = 0 : i64, index = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  "mut.exp_"(%z) : (tensor<3xf32>) -> ()
  %e = "tensor.exp"(%v1) : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %e : tensor<1x3xf32>
}
