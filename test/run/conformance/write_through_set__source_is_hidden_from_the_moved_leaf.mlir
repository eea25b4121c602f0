// A leaf set_ under no_grad onto a fresh tensor, which exp_ then writes in
// grad mode: the leaf's value changes, but autograd never sees the write
// as the leaf's, so its final value stays out of the gradient objective.
func.func @main(%arg0: tensor<f32>) -> (tensor<f32>) {
  %v0 = "tensor.neg"(%arg0) {aot.no_grad} : (tensor<f32>) -> tensor<f32>
  %v2 = "mut.set_"(%arg0, %v0) {aot.no_grad} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "mut.exp_"(%v0) : (tensor<f32>) -> ()
  %v7 = "tensor.full"() {value = -1.37 : f64} : () -> tensor<f32>
  return %v7 : tensor<f32>
}
