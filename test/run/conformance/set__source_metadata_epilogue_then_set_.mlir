// golden: expect-error
// An argument set_ onto another's storage, whose metadata unsqueeze_ then
// changes: the epilogue's set_ must read the source argument after its own
// as_strided_ (the verifier rejects a use of the stale value). Inference
// answers; the backward raises PyTorch's error for the unbind output whose
// base the no_grad div_ modified.
func.func @main(%arg0: tensor<4x1xf32>, %arg1: tensor<3x2xf32>) -> (tensor<4x1x1xf32>, tensor<4x1xf32>) {
  %v0 = "mut.set_"(%arg1, %arg0) {aot.no_grad} : (tensor<3x2xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %v1 = "mut.unsqueeze_"(%arg0) {dim = 2 : i64, aot.no_grad} : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
  %v7 = "view.unbind"(%v1) {dim = 2 : i64} : (tensor<4x1x1xf32>) -> tensor<4x1xf32>
  %v8 = "view.detach"(%v1) : (tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
  %v9 = "tensor.full"() {value = 0.03 : f64} : () -> tensor<f32>
  "mut.div_"(%v8, %v9) {aot.no_grad} : (tensor<4x1x1xf32>, tensor<f32>) -> ()
  return %v8, %v7 : tensor<4x1x1xf32>, tensor<4x1xf32>
}
