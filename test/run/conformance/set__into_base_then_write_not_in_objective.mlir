// set_ of an intermediate onto a view of a differentiable base, then index_put_
// through it: the base's data changes, but not its version counter or history,
// so the base is not in the gradient's objective.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<f32>) {
  %v0 = "view.view"(%arg0) {shape = [3]} : (tensor<3xf32>) -> tensor<3xf32>
  %v1 = "tensor.maximum"(%v0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v2 = "mut.set_"(%v1, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v4 = "tensor.constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v5 = "tensor.full"() {value = -1.99 : f64} : () -> tensor<f32>
  "mut.index_put_"(%v2, %v4, %v5) {accumulate = false} : (tensor<3xf32>, tensor<1xi64>, tensor<f32>) -> ()
  %v6 = "tensor.clone"(%v5) : (tensor<f32>) -> tensor<f32>
  return %v6 : tensor<f32>
}
