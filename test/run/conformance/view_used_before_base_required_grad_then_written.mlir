// golden: expect-error
// A view used by a recorded op while its base did not require grad has no
// grad_fn yet: once the base requires grad, writing it is PyTorch's leaf
// error.
func.func @main(%arg0: tensor<f32>) -> (tensor<f32>, tensor<1xf32>) {
  %v0 = "tensor.full"() {value = 1.74 : f64} : () -> tensor<f32>
  %v1 = "tensor.mul"(%v0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v2 = "mut.as_strided_"(%v1) {size = [1], stride = [2], offset = 0 : i64} : (tensor<f32>) -> tensor<1xf32>
  %v3 = "view.squeeze"(%v0) : (tensor<f32>) -> tensor<f32>
  "mut.exp_"(%v0) {aot.no_grad} : (tensor<f32>) -> ()
  "mut.mul_"(%v2, %v3) : (tensor<1xf32>, tensor<f32>) -> ()
  "mut.neg_"(%v3) {aot.no_grad} : (tensor<f32>) -> ()
  "mut.tanh_"(%v2) : (tensor<1xf32>) -> ()
  "mut.sub_"(%v0, %arg0) : (tensor<f32>, tensor<f32>) -> ()
  "mut.neg_"(%v2) {aot.no_grad} : (tensor<1xf32>) -> ()
  "mut.copy_"(%v3, %arg0) : (tensor<f32>, tensor<f32>) -> ()
  return %v3, %v2 : tensor<f32>, tensor<1xf32>
}
