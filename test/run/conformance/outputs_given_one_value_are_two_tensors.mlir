// A fresh tensor returned next to a view of another tensor that copy_
// overwrote with its data: the graph returns one value for both, and the
// caller gets two tensors, each with its own requires_grad.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %v2 = "tensor.constant"() {value = dense<[1, 2, 0]> : tensor<3xi64>} : () -> tensor<3xi64>
  %v3 = "tensor.index_select"(%arg0, %v2) {dim = 0 : i64} : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %v6 = "view.alias"(%v3) : (tensor<3xf32>) -> tensor<3xf32>
  %v7 = "tensor.full"() {value = 1.07 : f64} : () -> tensor<3xf32>
  "mut.copy_"(%v3, %v7) : (tensor<3xf32>, tensor<3xf32>) -> ()
  return %v7, %v6 : tensor<3xf32>, tensor<3xf32>
}
