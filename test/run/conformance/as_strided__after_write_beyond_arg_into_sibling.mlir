// A no_grad write through as_strided of x reaches x's elements and its
// sibling's; x then moves (as_strided_). x's data goes back through the
// layout it had at the call, the sibling's through its own.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<3x4xf32>) -> (tensor<3xf32>) {
  %v0 = "mut.as_strided_"(%arg0) {size = [], stride = [], offset = 5 : i64, aot.no_grad} : (tensor<4xf32>) -> tensor<f32>
  %v1 = "view.permute"(%arg1) {dims = [0]} : (tensor<4xf32>) -> tensor<4xf32>
  %v2 = "tensor.amax"(%arg2) {dims = [1]} : (tensor<3x4xf32>) -> tensor<3xf32>
  %v3 = "view.as_strided"(%v0) {size = [3, 2], stride = [1, 3], offset = 2 : i64} : (tensor<f32>) -> tensor<3x2xf32>
  %v6:2 = "view.unbind"(%v3) {dim = 1 : i64, aot.no_grad} : (tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %v7 = "tensor.cast"(%v6#1) : (tensor<3xf32>) -> tensor<3xf64>
  %v8 = "tensor.cast"(%v7) : (tensor<3xf64>) -> tensor<3xf32>
  %v9 = "view.detach"(%v3) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v10 = "tensor.full"() {value = -1.48 : f64} : () -> tensor<f32>
  "mut.copy_"(%v9, %v10) {aot.no_grad} : (tensor<3x2xf32>, tensor<f32>) -> ()
  %v11 = "view.detach"(%v6#0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.copy_"(%v11, %v6#0) : (tensor<3xf32>, tensor<3xf32>) -> ()
  return %v11 : tensor<3xf32>
}
