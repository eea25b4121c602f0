// golden: expect-error
// A write through a view taken before its base moved (as_strided_ in grad
// mode): CopySlices' backward finds the view outside the base.
func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<2x3x3xf32>) -> (tensor<3xi64>) {
  %v0 = "view.diagonal"(%arg1) {offset = 0 : i64, dim1 = -1 : i64, dim2 = 0 : i64} : (tensor<2x3x3xf32>) -> tensor<3x2xf32>
  %v1 = "mut.as_strided_"(%arg1) {size = [1, 1], stride = [1, 1], offset = 14 : i64} : (tensor<2x3x3xf32>) -> tensor<1x1xf32>
  %v2 = "view.diagonal"(%v1) {offset = 0 : i64, dim1 = 1 : i64, dim2 = 0 : i64, aot.no_grad} : (tensor<1x1xf32>) -> tensor<1xf32>
  %v3 = "view.unbind"(%v2) {dim = -1 : i64} : (tensor<1xf32>) -> tensor<f32>
  %v4 = "view.permute"(%v0) {dims = [0, 1]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v5 = "tensor.constant"() {value = dense<[1, 2, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  "mut.index_put_"(%v4, %v5, %v0) {accumulate = true} : (tensor<3x2xf32>, tensor<3xi64>, tensor<3x2xf32>) -> ()
  return %v5 : tensor<3xi64>
}
