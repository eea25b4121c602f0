// as_strided_ of a self-overlapping view of a differentiable base: the
// element its positions share gets its gradient once (PyTorch splits the
// as_strided gradient among the positions).
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<4x2xf32>, %arg2: tensor<2xf32>) -> (tensor<1x1xf32>, tensor<3xi64>, tensor<1x1xf32>) {
  %v0 = "tensor.full"() {value = -1.98 : f64} : () -> tensor<f32>
  "mut.copy_"(%arg2, %v0) : (tensor<2xf32>, tensor<f32>) -> ()
  "mut.add_"(%arg2, %v0) {aot.no_grad} : (tensor<2xf32>, tensor<f32>) -> ()
  %v1 = "tensor.full"() {value = 1.67 : f64} : () -> tensor<f32>
  "mut.add_"(%v0, %v1) : (tensor<f32>, tensor<f32>) -> ()
  %v2 = "mut.as_strided_"(%arg0) {size = [1, 1], stride = [2, 2], offset = 3 : i64} : (tensor<4x2xf32>) -> tensor<1x1xf32>
  %v3 = "tensor.constant"() {value = dense<[0, 0, 0]> : tensor<3xi64>} : () -> tensor<3xi64>
  %v4 = "tensor.index_select"(%v2, %v3) {dim = 0 : i64} : (tensor<1x1xf32>, tensor<3xi64>) -> tensor<3x1xf32>
  %v5 = "tensor.reciprocal"(%v2) : (tensor<1x1xf32>) -> tensor<1x1xf32>
  return %v5, %v3, %v2 : tensor<1x1xf32>, tensor<3xi64>, tensor<1x1xf32>
}
