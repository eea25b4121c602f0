// t_ of an intermediate, then an alias of it: both outputs keep PyTorch's
// layout (the alias is regenerated in the intermediate's storage order).
func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %v0 = "view.slice"(%arg1) {dim = -1 : i64, start = -1 : i64, end = 8 : i64, step = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %v1 = "tensor.gt"(%v0, %arg0) : (tensor<4x1xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
  %v2 = "tensor.full"() {value = -0.75 : f64} : () -> tensor<f32>
  %v3 = "tensor.where"(%v1, %v0, %v2) : (tensor<4x3xi1>, tensor<4x1xf32>, tensor<f32>) -> tensor<4x3xf32>
  %v4 = "mut.t_"(%v3) : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %v6 = "view.alias"(%v4) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %v6, %v4 : tensor<3x4xf32>, tensor<3x4xf32>
}
