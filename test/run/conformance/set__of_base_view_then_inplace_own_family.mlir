// golden: expect-error
// set_ under no_grad moves a view of a differentiable base into another argument's
// storage; in-place ops through it in grad mode form its own autograd family (its
// root's storage is no longer its own); the forward compiles, and PyTorch's
// backward refuses the saved values the later writes changed.
func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> (tensor<f32>) {
  %v0 = "view.squeeze"(%arg0) {dim = -1 : i64} : (tensor<1xf32>) -> tensor<f32>
  %v1 = "mut.set_"(%arg2, %v0) {aot.no_grad} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  "mut.exp_"(%v1) : (tensor<f32>) -> ()
  "mut.exp_"(%arg1) : (tensor<4xf32>) -> ()
  "mut.add_"(%v0, %v1) : (tensor<f32>, tensor<f32>) -> ()
  "mut.tanh_"(%v1) : (tensor<f32>) -> ()
  return %v1 : tensor<f32>
}
