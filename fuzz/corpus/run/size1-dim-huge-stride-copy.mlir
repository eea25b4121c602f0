// Views of a differentiable base; a duplicate of one is as_strided_ under no_grad, a
// sibling is written by index_put_: the base's history changed, so every view's final
// value is in the objective, and the shrunken view's tangent reaches the base through
// the storage elements it now holds.
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %v0 = "mut.as_strided_"(%arg2) {size = [1, 1], stride = [9223372036854775807, 1], offset = 1 : i64, aot.no_grad} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %v1 = "view.t"(%v0) : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %v2 = "tensor.constant"() {value = dense<[1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  "mut.index_put_"(%arg1, %v2, %v1) : (tensor<2x3xf32>, tensor<2xi64>, tensor<1x1xf32>) -> ()
  return %arg1 : tensor<2x3xf32>
}
// ===== inputs.json
{"args": [{"dtype": "f32", "shape": [2, 3], "data": [0.5, -1.0, 1.5, 2.0, -0.5, 0.25]}, {"dtype": "f32", "shape": [2, 3], "data": [0.5, -1.0, 1.5, 2.0, -0.5, 0.25]}, {"dtype": "f32", "shape": [2, 3], "data": [0.5, -1.0, 1.5, 2.0, -0.5, 0.25]}]}
