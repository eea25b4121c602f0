// A split made under no_grad of an intermediate that requires grad, returned with
// the intermediate: the split's tangent reaches nothing (no history of its own).
func.func @main(%arg0: tensor<4x2x2xf32>, %arg1: tensor<f32>) -> (tensor<4x1x2xf32>, tensor<4x2x2xf32>) {
  %v0 = "tensor.minimum"(%arg1, %arg0) : (tensor<f32>, tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %v4:2 = "view.split"(%v0) {dim = 1 : i64, sizes = [1, 1], aot.no_grad} : (tensor<4x2x2xf32>) -> (tensor<4x1x2xf32>, tensor<4x1x2xf32>)
  return %v4#1, %v0 : tensor<4x1x2xf32>, tensor<4x2x2xf32>
}
