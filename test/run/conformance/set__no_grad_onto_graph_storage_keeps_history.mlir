// x.add_(c) in grad mode, then set_ under no_grad onto a graph tensor: x
// keeps its history, so its tangent reaches the add_.
func.func @main(%arg0: tensor<2x4xf32>) -> (tensor<f32>) {
  %v0 = "tensor.full"() {value = 1.28 : f64} : () -> tensor<2x4xf32>
  "mut.add_"(%arg0, %v0) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
  %v1 = "mut.set_"(%arg0, %v0) {aot.no_grad} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %v2 = "view.transpose"(%v1) {dim0 = -1 : i64, dim1 = 0 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %v3 = "tensor.gt"(%v2, %v2) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xi1>
  %v4 = "tensor.full"() {value = 0.17 : f64} : () -> tensor<f32>
  %v5 = "tensor.where"(%v3, %v2, %v4) : (tensor<4x2xi1>, tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return %v4 : tensor<f32>
}
