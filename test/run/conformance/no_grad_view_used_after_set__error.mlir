// golden: expect-error
// A view made under no_grad, moved by set_ under no_grad, then used in
// grad mode: set_ bumped the view's own version counter, so PyTorch
// raises its no_grad-view error (the new storage's version is irrelevant).
func.func @main(%arg0: tensor<4x1x2xf32>, %arg1: tensor<4x4xf32>) -> (tensor<2x4x4xf32>) {
  %v0 = "view.transpose"(%arg0) {dim0 = 1 : i64, dim1 = -1 : i64, aot.no_grad} : (tensor<4x1x2xf32>) -> tensor<4x2x1xf32>
  %v1 = "mut.set_"(%v0, %arg1) {aot.no_grad} : (tensor<4x2x1xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v2 = "view.expand"(%v1) {shape = [2, 4, 4]} : (tensor<4x4xf32>) -> tensor<2x4x4xf32>
  return %v2 : tensor<2x4x4xf32>
}
