// Outputs that view an intermediate base which native code returns as a
// view into a larger buffer (at offset 4): their layouts are relative to
// the base itself.
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<f32>, tensor<1xf32>) {
  %v0 = "mut.as_strided_"(%arg0) {size = [], stride = [], offset = 4 : i64, aot.no_grad} : (tensor<3x2xf32>) -> tensor<f32>
  %v1 = "mut.squeeze_"(%v0) {aot.no_grad} : (tensor<f32>) -> tensor<f32>
  %v2 = "mut.squeeze_"(%v1) {aot.no_grad} : (tensor<f32>) -> tensor<f32>
  %v3 = "view.detach"(%v2) : (tensor<f32>) -> tensor<f32>
  %v4 = "tensor.full"() {value = -1.78 : f64} : () -> tensor<f32>
  "mut.sub_"(%v3, %v4) {aot.no_grad} : (tensor<f32>, tensor<f32>) -> ()
  %v5 = "mut.t_"(%v4) : (tensor<f32>) -> tensor<f32>
  "mut.copy_"(%v5, %v2) : (tensor<f32>, tensor<f32>) -> ()
  %v6 = "view.unsqueeze"(%v5) {dim = 0 : i64} : (tensor<f32>) -> tensor<1xf32>
  %v7 = "view.unbind"(%v6) {dim = 0 : i64} : (tensor<1xf32>) -> tensor<f32>
  return %v7, %v6 : tensor<f32>, tensor<1xf32>
}
