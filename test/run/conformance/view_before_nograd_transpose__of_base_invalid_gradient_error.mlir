// golden: expect-error
// A view (expand) of an intermediate taken before transpose_ of the intermediate
// under no_grad: autograd regenerates the view from its base as it is now, and the
// base's history receives a gradient of the transposed shape.
func.func @main(%arg0: tensor<4x2xf32>) -> (tensor<4x1xf32>) {
  %v0 = "tensor.constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v1 = "tensor.index_select"(%arg0, %v0) {dim = 1 : i64} : (tensor<4x2xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %v2 = "view.expand"(%v1) {shape = [4, -1]} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %v3 = "mut.transpose_"(%v1) {dim0 = 0 : i64, dim1 = 1 : i64, aot.no_grad} : (tensor<4x1xf32>) -> tensor<1x4xf32>
  return %v2 : tensor<4x1xf32>
}
