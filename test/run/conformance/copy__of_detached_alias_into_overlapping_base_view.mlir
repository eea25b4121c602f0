// copy_ of a detached alias of y into y (a view of a differentiable base
// overlapping x): the data is unchanged, but the copied elements' gradient
// stops at the detach; x's output reads them.
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<4x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>) {
  "mut.clamp_"(%arg0) {min = -0.81 : f64} : (tensor<4x2xf32>) -> ()
  %v0 = "view.detach"(%arg1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %v1 = "tensor.full"() {value = 1.14 : f64} : () -> tensor<f32>
  "mut.mul_"(%v0, %v1) : (tensor<4x2xf32>, tensor<f32>) -> ()
  "mut.copy_"(%arg1, %v0) : (tensor<4x2xf32>, tensor<4x2xf32>) -> ()
  %v2 = "view.split"(%arg0) {dim = 1 : i64, sizes = [2]} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %v3 = "tensor.constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v4 = "tensor.index_select"(%arg1, %v3) {dim = 0 : i64} : (tensor<4x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  return %v4, %v2 : tensor<1x2xf32>, tensor<4x2xf32>
}
