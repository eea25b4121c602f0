// golden: expect-error
// A view made under no_grad of a detached alias (no grad then), whose base is then
// written in grad mode by a tensor that requires grad: using the view raises.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %v1 = "tensor.sum"(%v0) {dims = [0]} : (tensor<4xf32>) -> tensor<f32>
  %v2 = "view.detach"(%v0) : (tensor<4xf32>) -> tensor<4xf32>
  %v3 = "view.expand"(%v2) {shape = [4]} : (tensor<4xf32>) -> tensor<4xf32>
  %v4 = "view.unsqueeze"(%v3) {dim = 1 : i64, aot.no_grad} : (tensor<4xf32>) -> tensor<4x1xf32>
  "mut.copy_"(%v3, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()
  %v5 = "tensor.sub"(%v4, %v1) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  return %v2 : tensor<4xf32>
}
